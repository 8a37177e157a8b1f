package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/wiring"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("search", "QUERY", "Search the index. Every result shows the original chunk text with the generated context marked apart.")
	// Only what a query uses: no chunking, contextualizer or LLM settings
	// (those shape the index, written by "situate index").
	c.flags(fs, "store", "store-url", "config", "k", "mode", "analyzer", "bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe")
	c.flags(fs, wiring.DenseSettings...)
	groupFlags(fs, "BM25 ranking", "analyzer", "bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe")
	groupFlags(fs, "Hybrid search and reranking (with --embed or --rerank)", wiring.DenseSettings...)
	c.flags(fs, wiring.IndexSettings...)
	groupFlags(fs, "Index backend (--index weaviate)", wiring.IndexSettings...)
	noRerank := fs.Bool("no-rerank", false, "skip the configured reranker")
	asJSON := fs.Bool("json", false, "print one JSON object {query, results: [...]}")
	explain := fs.Bool("explain", false, "show each result's rank and score in each arm (BM25 arms, their combined ranking, dense), fused and reranked")
	docs := fs.String("doc", "", "restrict to these document ids (comma-separated)")
	principals := fs.String("as", "", "search as these principals (comma-separated): only documents they may see")
	words, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(words, " "))
	if query == "" {
		return usagef("no QUERY given")
	}
	k, err := c.int("k")
	if err != nil {
		return err
	}
	if k <= 0 {
		return usagef("-k: must be > 0, got %d", k)
	}
	eng, store, err := openSearcher(ctx, e, c)
	if err != nil {
		return err
	}
	defer store.Close()
	defer eng.Close()

	q := situate.Query{Text: query, K: k, Mode: c.str("mode"), Explain: *explain, Rerank: eng.Options().Reranker != nil && !*noRerank}
	if *docs != "" {
		q.Filter.Docs = wiring.SplitList(*docs)
	}
	if *principals != "" {
		q.Filter.Principals = wiring.SplitList(*principals)
	}
	hits, err := eng.Search(ctx, q)
	if err != nil {
		return err
	}
	if *asJSON {
		// The same shape as the HTTP API's search response.
		out := httpapi.NewSearchResponse(query, hits)
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printHits(e.stdout, query, hits)
	return nil
}

// printHits writes a readable listing: document and heading, the context
// dimmed (on a terminal) and labelled with what made it, then the text.
func printHits(w io.Writer, query string, hits []situate.Hit) {
	dim, bold, reset := "", "", ""
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		dim, bold, reset = "\x1b[2m", "\x1b[1m", "\x1b[0m"
	}
	if len(hits) == 0 {
		fmt.Fprintf(w, "no results for %q\n", query)
		return
	}
	for _, h := range hits {
		where := ingest.QuoteName(h.DocID)
		if h.Heading != "" {
			where += " § " + termLine(h.Heading)
		}
		fmt.Fprintf(w, "%s%d. %s%s  (chunk %d, score %.3f)\n", bold, h.Rank, where, reset, h.Chunk, h.Score)
		if h.Context.Text != "" {
			src := h.Context.Source
			if len(h.Context.Flags) > 0 {
				src += ", flagged: " + strings.Join(h.Context.Flags, " ")
			}
			fmt.Fprintf(w, "   %s[context by %s] %s%s\n", dim, src, termLine(oneLine(h.Context.Text, 400)), reset)
		}
		for _, line := range strings.Split(termText(excerpt(h.Text, 600)), "\n") {
			fmt.Fprintf(w, "   │ %s\n", line)
		}
		if h.Explain != nil {
			fmt.Fprintf(w, "   %s%s%s\n", dim, h.Explain, reset)
		}
		fmt.Fprintln(w)
	}
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	return truncateRunes(s, max)
}

func excerpt(s string, max int) string {
	return truncateRunes(strings.TrimSpace(s), max)
}

func truncateRunes(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + " …"
}
