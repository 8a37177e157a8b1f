package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate/llm"
	"github.com/situate/situate/report"
	"github.com/situate/situate/wiring"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("status", "", "Show documents, chunks, languages, contexts by source, store size, and what is stale\n"+
		"(documents indexed with other chunking or contextualizer settings than the current ones).\n"+
		"With no flags, status compares against the settings the store was last indexed with, which are\n"+
		"recorded in the store: nothing needs repeating. To ask \"what would 'index' with these settings\n"+
		"redo?\", give the same settings 'index' would get (flags, situate.toml or environment).")
	c.flags(fs, "store", "store-url", "config", "chunk-size", "chunk-overlap", "contextualizer", "analyzer", "context-weight", "recipe")
	groupFlags(fs, "Indexing settings to compare with the store's (as given to 'index')",
		"chunk-size", "chunk-overlap", "contextualizer", "analyzer", "context-weight", "recipe")
	// Only the LLM settings that identify the contexts a model writes (and
	// those needed to ask a local server which model it serves); rates,
	// retries, prices and budgets do not make a document stale.
	statusLLM := []string{"llm", "llm-base-url", "llm-api-key-env", "llm-template", "llm-language", "llm-max-tokens", "llm-extra", "llm-glossary", "llm-one-chunk"}
	c.flags(fs, statusLLM...)
	groupFlags(fs, "With --llm: the model whose contexts to compare with the store's (status asks a local\n"+
		"server which model it serves; a key is only read, never stored)", statusLLM...)
	if _, err := c.parse(e, fs, args); err != nil {
		return err
	}
	e.stored = true
	eng, store, err := openReader(ctx, e, c)
	if err != nil {
		return err
	}
	defer store.Close()
	defer eng.Close()
	docs := eng.Documents()
	langs := map[string]int{}
	formats := map[string]int{}
	chunks := 0
	stale := len(eng.Stale())
	for _, d := range docs {
		langs[d.Lang]++
		formats[d.Format]++
		chunks += d.Chunks
	}
	st, err := wiring.ContextStats(ctx, store, docs)
	if err != nil {
		return err
	}
	dir := c.storeDir(e)
	fmt.Fprintf(e.stdout, "store       %s (%s)\n", dir, report.Bytes(report.DirSize(dir)))
	fmt.Fprintf(e.stdout, "documents   %d\n", len(docs))
	fmt.Fprintf(e.stdout, "chunks      %d\n", chunks)
	fmt.Fprintf(e.stdout, "languages   %s\n", report.Counts(langs))
	fmt.Fprintf(e.stdout, "formats     %s\n", report.Counts(formats))
	fmt.Fprintf(e.stdout, "contexts    %s\n", report.Counts(st.ContextsBySource))
	fmt.Fprintf(e.stdout, "flagged     %d contexts", st.FlaggedContexts)
	if st.FlaggedContexts > 0 {
		// By kind: failed calls that fell back, contexts shortened to fit
		// the embedder, checks that failed (wrong language, unknown numbers).
		kinds := map[string]int{}
		for _, d := range docs {
			chunks, err := store.Chunks(ctx, d.ID)
			if err != nil {
				return err
			}
			for _, ch := range chunks {
				for _, f := range ch.Context.Flags {
					kind, _, _ := strings.Cut(f, ":")
					kinds[kind]++
				}
			}
		}
		fmt.Fprintf(e.stdout, " (%s)", report.Counts(kinds))
	}
	fmt.Fprintln(e.stdout)
	ix := eng.IndexStats()
	fmt.Fprintf(e.stdout, "bm25        %d chunks, %d terms, %d tokens\n", ix.Chunks, ix.Terms, ix.Tokens)
	sc, found, err := wiring.ReadStoredContextualizer(ctx, store)
	if err != nil {
		return err
	}
	var changes []string
	if found && sc.LLM != nil {
		l := sc.LLM
		lang := l.Language
		if lang == "" {
			lang = "each document's"
		}
		fmt.Fprintf(e.stdout, "llm         %s (template %s, max tokens %d, language %s)\n", l.Model, l.Template, l.MaxTokens, lang)
		if cur, ok := eng.Options().Contextualizer.(*llm.Contextualizer); ok {
			changes = cur.Settings().Changes(*l)
		}
	}
	switch {
	case stale > 0 && len(changes) > 0:
		fmt.Fprintf(e.stdout, "stale       %d documents: %s; 'situate index' with these settings re-situates them\n", stale, strings.Join(changes, "; "))
	case stale > 0:
		fmt.Fprintf(e.stdout, "stale       %d documents were indexed with other chunking/contextualizer settings; 'situate index' re-processes them\n", stale)
	default:
		fmt.Fprintf(e.stdout, "stale       none\n")
	}
	return nil
}
