package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/llamatest"
	"github.com/situate/situate/provider/openai"
)

// grammar keeps the random-weight model's output to lowercase words.
var grammar = map[string]any{"grammar": "root ::= [a-z ]+"}

func llamaClient(t *testing.T, s *llamatest.Server) *openai.Client {
	t.Helper()
	return llamaClientSlots(t, s, "")
}

func llamaClientSlots(t *testing.T, s *llamatest.Server, slots string) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Options{BaseURL: s.BaseURL, Flavor: openai.FlavorLlamaCpp, Slots: slots, ExtraBody: grammar, MaxTokens: 8})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// synthDoc is a deterministic document of about n words.
func synthDoc(seed, n int) string {
	words := strings.Fields("the report describes revenue costs outlook region quarter growth market customer product team plan risk budget forecast supplier contract")
	var b strings.Builder
	x := uint32(seed*2654435761 + 1)
	for i := 0; i < n; i++ {
		x = x*1664525 + 1013904223
		b.WriteString(words[x>>16%uint32(len(words))])
		if i%12 == 11 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestLlamaServer runs the client against a real llama-server serving a
// generated random-weight model: streaming, prefix cache reuse across two
// chunks of one document, /props, /tokenize and the context-size error.
func TestLlamaServer(t *testing.T) {
	s := llamatest.Start(t, llamatest.Options{})
	c := llamaClient(t, s)
	ctx := context.Background()

	props, err := c.Props(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if props.TotalSlots != 2 || props.SlotContext != 4096 {
		t.Errorf("props = %+v, want 2 slots of 4096 tokens (-c 8192 -np 2)", props)
	}
	if w, err := c.ContextWindow(ctx); err != nil || w != 4096 {
		t.Errorf("ContextWindow = %d, %v; want 4096", w, err)
	}
	n, err := c.CountTokens(ctx, "Hello world, the quick brown fox")
	if err != nil || n != 8 {
		t.Errorf("CountTokens = %d, %v; want 8 (llama SPM vocabulary)", n, err)
	}

	doc := "<document>\n" + synthDoc(1, 800) + "\n</document>\n"
	docTokens, err := c.CountTokens(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	var usages []driver.Usage
	var timings []openai.Timings
	for i, chunk := range []string{"revenue grew in the north region", "costs fell for every supplier contract"} {
		started := 0
		comp, tm, err := c.CompleteTimings(ctx, driver.Prompt{DocID: "report.md", Prefix: doc,
			Suffix: "<chunk>\n" + chunk + "\n</chunk>\nSituate this chunk.", MaxTokens: 8, Started: func() { started++ }})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if started != 1 || strings.TrimSpace(comp.Text) == "" || strings.Trim(comp.Text, "abcdefghijklmnopqrstuvwxyz ") != "" {
			t.Errorf("call %d: started %d, text %q: want one Started and lowercase words", i, started, comp.Text)
		}
		t.Logf("call %d: %q usage %+v timings %+v", i, comp.Text, comp.Usage, tm)
		usages = append(usages, comp.Usage)
		timings = append(timings, tm)
	}
	if usages[0].CacheReadTokens != 0 {
		t.Errorf("first call read %d cached tokens, want 0", usages[0].CacheReadTokens)
	}
	if got := usages[1].CacheReadTokens; got < docTokens-2 {
		t.Errorf("second call read %d cached tokens, want about the document's %d", got, docTokens)
	}
	if timings[1].PromptN >= timings[0].PromptN/4 || timings[1].CacheN != usages[1].CacheReadTokens {
		t.Errorf("timings %+v: second call should evaluate only the chunk part", timings)
	}
	if tot := c.Timings(); tot.Calls != 2 || tot.PromptN != timings[0].PromptN+timings[1].PromptN {
		t.Errorf("Timings() = %+v", tot)
	}

	// A prompt longer than a slot: HTTP 400 exceed_context_size_error.
	_, err = c.Complete(ctx, driver.Prompt{DocID: "big", Prefix: strings.Repeat("word ", 5000), Suffix: "x", MaxTokens: 4})
	if !errors.Is(err, driver.ErrPromptTooLarge) {
		t.Fatalf("oversized prompt: err = %v, want ErrPromptTooLarge", err)
	}
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.Retryable() || oe.StatusCode != 400 {
		t.Errorf("oversized prompt: %#v", err)
	}
	t.Log(err)
}

// TestLlamaServerEmbeddings runs the Embedder against llama-server
// --embedding --pooling mean serving the generated model.
func TestLlamaServerEmbeddings(t *testing.T) {
	s := llamatest.Start(t, llamatest.Options{Args: []string{"--embedding", "--pooling", "mean"}})
	e, err := openai.NewEmbedder(openai.EmbedOptions{BaseURL: s.BaseURL, Flavor: openai.FlavorLlamaCpp, BatchSize: 2, MaxInputTokens: 512})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"revenue grew in the north", "Выручка выросла на севере", "北方收入增长", "revenue grew in the north"}
	vecs, err := e.Embed(context.Background(), texts, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 4 || len(vecs[0]) != 64 {
		t.Fatalf("%d vectors of %d dimensions, want 4 of 64 (the model's d)", len(vecs), len(vecs[0]))
	}
	same := func(a, b []float32) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if !same(vecs[0], vecs[3]) || same(vecs[0], vecs[1]) || same(vecs[1], vecs[2]) {
		t.Error("equal texts must embed equally and different texts differently")
	}
	_, err = e.Embed(context.Background(), []string{strings.Repeat("long text ", 200)}, driver.InputDocument)
	if !errors.Is(err, driver.ErrPromptTooLarge) {
		t.Errorf("input above MaxInputTokens: %v", err)
	}
}
