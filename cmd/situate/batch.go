package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/wiring"
)

var _ llm.BatchClient = anthropic.Batcher{}

// newBatch wires "situate index --batch": the contexts of the changed
// documents are written through Anthropic's Message Batches (half price)
// by llm.Batch, a mode of the library's index workflow.
func newBatch(c *config, e *env, store backingStore, poll time.Duration, quiet bool) (driver.BatchContextualizer, error) {
	if p, _, _ := strings.Cut(c.str("llm"), ":"); p != "anthropic" {
		return nil, usagef("--batch needs --llm anthropic:MODEL (Message Batches are Anthropic's), got %q", c.str("llm"))
	}
	models, err := wiring.NewLLM(c, e.wiring())
	if err != nil {
		return nil, err
	}
	client, ok := models[0].(*anthropic.Client)
	if !ok {
		return nil, fmt.Errorf("--batch: %s is not an Anthropic client", models[0].Name())
	}
	o, err := wiring.LLMOptions(c)
	if err != nil {
		return nil, err
	}
	o.Cache, o.Usage = store, store
	bo := llm.BatchOptions{Options: o, Meta: store, Poll: poll, Log: func(msg string, warning bool) {
		if !quiet || warning {
			fmt.Fprintln(e.stderr, msg)
		}
	}}
	b, err := llm.NewBatch(anthropic.Batcher{Client: client}, bo)
	if err != nil {
		return nil, usageError{Err: err}
	}
	return b, nil
}
