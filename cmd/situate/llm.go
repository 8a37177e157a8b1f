package main

import (
	"context"
	"fmt"
	"strings"

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

// llmSummary is the line "situate index" prints after a run whose LLM
// settings changed: "re-situated 12 documents: prompt template changed".
func llmSummary(e *env) string {
	if e.llmChange == "" || e.tally == nil {
		return ""
	}
	return fmt.Sprintf("re-situated %d documents: %s", e.tally.Resituated(e.llmBefore), e.llmChange)
}
