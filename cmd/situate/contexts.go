package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/wiring"
)

// DefaultReviewChunkChars is how much of a chunk "situate contexts" shows
// without --full.
const DefaultReviewChunkChars = 400

type reviewJSON struct {
	Doc      string   `json:"doc"`
	Version  int      `json:"version"`
	Chunk    int      `json:"chunk"`
	Heading  string   `json:"heading,omitempty"`
	Source   string   `json:"source"`
	Flags    []string `json:"flags"`
	Context  string   `json:"context"`
	Text     string   `json:"text"`
	Language string   `json:"lang"`
}

func runContexts(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("contexts", "",
		"Show chunk contexts beside their chunks for review, with the checks' flags (fallback, empty,\n"+
			"wrong-language, unknown-number:N, unknown-identifier:X...). --regenerate re-contextualizes the\n"+
			"documents of the flagged contexts shown with the LLM named by --llm: flagged contexts are asked\n"+
			"again (their cache entries are bypassed), clean ones come from the cache, and the new version\n"+
			"replaces the old one in the store and the index.")
	c.flags(fs, "store", "config", "chunk-size", "chunk-overlap", "contextualizer", "analyzer",
		"bm25-k1", "bm25-b", "context-weight", "compound-weight", "parallel", "max-file-size")
	c.flags(fs, wiring.LLMSettings...)
	// Those settings shape what --regenerate writes; review ignores them.
	groupFlags(fs, "With --regenerate: how the documents are indexed again (as 'index' takes them)",
		"chunk-size", "chunk-overlap", "contextualizer", "analyzer", "bm25-k1", "bm25-b", "context-weight", "compound-weight", "parallel", "max-file-size")
	groupFlags(fs, "With --regenerate: the LLM that writes the new contexts (as 'index' takes them)", wiring.LLMSettings...)
	sample := fs.Int("sample", 10, "show this many chunks, picked at random (0: all)")
	flagged := fs.Bool("flagged", false, "only chunks whose context has flags")
	seed := fs.Uint64("seed", 1, "random seed of the sample")
	var docIDs []string
	fs.Func("doc", "only this document (repeatable)", func(v string) error {
		docIDs = append(docIDs, v)
		return nil
	})
	full := fs.Bool("full", false, fmt.Sprintf("show whole chunks (default: the first %d characters)", DefaultReviewChunkChars))
	asJSON := fs.Bool("json", false, "print JSON lines, one per chunk")
	regenerate := fs.Bool("regenerate", false, "re-contextualize the documents of the flagged contexts shown, with --llm")
	if _, err := c.parse(e, fs, args); err != nil {
		return err
	}
	if *sample < 0 {
		return usagef("--sample %d: must be >= 0", *sample)
	}
	if *regenerate && c.str("llm") == "" {
		return usagef("--regenerate needs --llm PROVIDER:MODEL")
	}
	store, err := openStoreOnly(ctx, e, c)
	if err != nil {
		return err
	}
	defer store.Close()
	docs, err := store.Documents(ctx)
	if err != nil {
		return err
	}
	byID := map[string]situate.DocumentRecord{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	for _, id := range docIDs {
		if _, ok := byID[id]; !ok {
			return fmt.Errorf("--doc %q: not indexed", id)
		}
	}
	var picked []situate.StoredChunk
	for _, d := range docs {
		if len(docIDs) > 0 && !slices.Contains(docIDs, d.ID) {
			continue
		}
		chunks, err := store.Chunks(ctx, d.ID)
		if err != nil {
			return err
		}
		for _, ch := range chunks {
			if *flagged && len(ch.Context.Flags) == 0 {
				continue
			}
			picked = append(picked, ch)
		}
	}
	if *sample > 0 && len(picked) > *sample {
		rng := rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))
		rng.Shuffle(len(picked), func(i, j int) { picked[i], picked[j] = picked[j], picked[i] })
		picked = picked[:*sample]
		slices.SortFunc(picked, func(a, b situate.StoredChunk) int {
			if a.DocID != b.DocID {
				return strings.Compare(a.DocID, b.DocID)
			}
			return a.Index - b.Index
		})
	}
	enc := json.NewEncoder(e.stdout)
	for _, ch := range picked {
		d := byID[ch.DocID]
		flags := ch.Context.Flags
		if flags == nil {
			flags = []string{}
		}
		if *asJSON {
			if err := enc.Encode(reviewJSON{Doc: ch.DocID, Version: d.Version, Chunk: ch.Index, Heading: ch.Heading,
				Source: ch.Context.Source, Flags: flags, Context: ch.Context.Text, Text: ch.Text, Language: d.Lang}); err != nil {
				return err
			}
			continue
		}
		text := ch.Text
		if !*full && len([]rune(text)) > DefaultReviewChunkChars {
			text = string([]rune(text)[:DefaultReviewChunkChars]) + " […]"
		}
		fl := "none"
		if len(flags) > 0 {
			fl = strings.Join(flags, ", ")
		}
		fmt.Fprintf(e.stdout, "== %s chunk %d (version %d, %s)\n", ingest.QuoteName(ch.DocID), ch.Index, d.Version, d.Lang)
		fmt.Fprintf(e.stdout, "source   %s\nflags    %s\n", orDefault(ch.Context.Source, "-"), fl)
		fmt.Fprintf(e.stdout, "context  %s\n", indentLines(termText(ch.Context.Text)))
		fmt.Fprintf(e.stdout, "chunk    %s\n\n", indentLines(termText(text)))
	}
	if !*asJSON {
		nFlagged := 0
		for _, ch := range picked {
			if len(ch.Context.Flags) > 0 {
				nFlagged++
			}
		}
		fmt.Fprintf(e.stderr, "%d chunks shown, %d flagged\n", len(picked), nFlagged)
	}
	if !*regenerate {
		return nil
	}
	var ids []string
	for _, ch := range picked {
		if len(ch.Context.Flags) > 0 && !slices.Contains(ids, ch.DocID) {
			ids = append(ids, ch.DocID)
		}
	}
	return regenerateDocs(ctx, e, c, store, byID, ids)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func indentLines(s string) string {
	return strings.ReplaceAll(s, "\n", "\n         ")
}

// regenerateDocs re-contextualizes documents with the LLM, bypassing cached
// contexts that carry flags.
func regenerateDocs(ctx context.Context, e *env, c *config, store *sqlite.Store, byID map[string]situate.DocumentRecord, ids []string) error {
	if len(ids) == 0 {
		fmt.Fprintln(e.stderr, "nothing to regenerate: no flagged context shown")
		// A run killed after committing its last document may have left
		// an index commit half done: a writer's open repairs it.
		eng, st, err := openEngine(ctx, e, c, false)
		if err != nil {
			return err
		}
		cerr := eng.Close()
		st.Close()
		return cerr
	}
	res, err := wiring.Regenerate(ctx, c, e.wiring(), store, byID, ids, warnLogger(e.stderr),
		func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) })
	if err != nil {
		return err
	}
	if res.Read == 0 || res.Failed > 0 {
		return errAlreadyReported
	}
	return nil
}
