package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/wiring"
)

// noteContextualizer says, for an LLM whose settings changed since the
// store was last indexed, what changed: every document is re-processed (the
// engine's processing fingerprint changed) and the chunks whose prompt
// changed get a new call; runIndex reports how many documents were
// re-situated. The Engine itself records the contextualizer at its first
// commit (driver.MetaContextualizer).
func noteContextualizer(ctx context.Context, e *env, store driver.MetaStore, eng *situate.Engine, cz situate.Contextualizer) error {
	l, ok := cz.(*llm.Contextualizer)
	if !ok {
		return nil
	}
	cur := l.Settings()
	old, found, err := wiring.ReadStoredContextualizer(ctx, store)
	if err != nil {
		return err
	}
	if found && old.LLM != nil && len(eng.Documents()) > 0 {
		if changes := cur.Changes(*old.LLM); len(changes) > 0 {
			e.llmChange = strings.Join(changes, "; ")
			e.llmBefore = map[string]bool{}
			for _, r := range eng.Documents() {
				e.llmBefore[r.ID] = true
			}
			fmt.Fprintf(e.stderr, "llm: %s since this store was indexed: its documents are re-situated (chunks whose prompt is unchanged reuse their cached context)\n", e.llmChange)
		}
	}
	return nil
}

// docTally counts the documents that made at least one context call in
// this run (for "re-situated N documents: <reason>").
type docTally struct {
	next driver.UsageRecorder
	mu   sync.Mutex
	docs map[string]bool
}

func (d *docTally) RecordUsage(ctx context.Context, u situate.Usage) error {
	d.note(u)
	if d.next == nil {
		return nil
	}
	return d.next.RecordUsage(ctx, u)
}

// BeginUsage notes the document as RecordUsage does and passes the
// attempt on (driver.AttemptRecorder).
func (d *docTally) BeginUsage(ctx context.Context, u situate.Usage) (int64, error) {
	d.note(u)
	return beginUsage(ctx, d.next, u)
}

// FinishUsage passes the attempt's completed record on.
func (d *docTally) FinishUsage(ctx context.Context, id int64, u situate.Usage) error {
	d.note(u)
	return finishUsage(ctx, d.next, id, u)
}

func (d *docTally) note(u situate.Usage) {
	if strings.HasPrefix(u.Operation, "context") {
		d.mu.Lock()
		if d.docs == nil {
			d.docs = map[string]bool{}
		}
		d.docs[u.DocID] = true
		d.mu.Unlock()
	}
}

// resituated counts the documents among ids that made a context call.
func (d *docTally) resituated(ids map[string]bool) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for id := range d.docs {
		if ids[id] {
			n++
		}
	}
	return n
}

// llmSummary is the line "situate index" prints after a run whose LLM
// settings changed: "re-situated 12 documents: prompt template changed".
func llmSummary(e *env) string {
	if e.llmChange == "" || e.llmDocs == nil {
		return ""
	}
	return fmt.Sprintf("re-situated %d documents: %s", e.llmDocs.resituated(e.llmBefore), e.llmChange)
}
