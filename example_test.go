package situate_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/situate/situate"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// Open a store, index a document with the offline contextualizer and search
// it: the hit carries the original chunk text and, apart, its context.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "situate-example-")
	defer os.RemoveAll(dir)

	store, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	opts := situate.DefaultOptions()
	opts.Contextualizer = offline.New(offline.DefaultOptions())
	opts.ChunkSize, opts.ChunkOverlap = 16, 0 // tiny, so each section is its own chunk
	eng, err := situate.Open(ctx, dir, store, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	doc := situate.Document{
		ID:     "acme.md",
		Title:  "ACME Corp annual report",
		Format: situate.FormatMarkdown,
		Lang:   situate.LangEnglish,
		Text: "# ACME Corp annual report\n\nACME Corp makes anvils.\n\n" +
			"## Results\n\nRevenue grew 3% over the previous quarter.\n",
	}
	if _, err := eng.Put(ctx, doc); err != nil {
		log.Fatal(err)
	}
	hits, err := eng.Search(ctx, situate.Query{Text: "ACME revenue", K: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("%s chunk %d: %q\n[context by %s] %s\n", h.DocID, h.Chunk, h.Text, h.Context.Source, h.Context.Text)
	}
	// Output:
	// acme.md chunk 1: "## Results\n\nRevenue grew 3% over the previous quarter."
	// [context by offline] From ACME Corp annual report, section Results: ACME Corp.
}
