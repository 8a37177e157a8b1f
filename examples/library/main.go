// Command library indexes a folder with progress events and searches it with situate's library alone.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

func main() {
	ctx, folder, query, dir := context.Background(), os.Args[1], os.Args[2], filepath.Join(os.TempDir(), "situate-library")
	store := must(sqlite.Open(ctx, filepath.Join(must(dir, os.MkdirAll(dir, 0o755)), "situate.db")))
	opts := situate.DefaultOptions()
	opts.Contextualizer = offline.New(offline.DefaultOptions())
	eng := must(situate.Open(ctx, dir, store, opts))
	res := must(eng.Index(ctx, ingest.Source([]string{folder}, ingest.SourceOptions{}), situate.IndexOptions{Progress: func(ev situate.IndexEvent) {
		fmt.Printf("%d/%d documents, %d chunks %s\n", ev.Progress.Docs, ev.Progress.DocsTotal, ev.Progress.Chunks, ev.DocID)
	}}))
	fmt.Printf("%d added, %d updated, %d unchanged\n", res.Added, res.Updated, res.Unchanged)
	for _, h := range must(eng.Search(ctx, situate.Query{Text: query, K: 3})) {
		fmt.Printf("%s chunk %d [context by %s] %s\n", h.DocID, h.Chunk, h.Context.Source, h.Context.Text)
	}
	must(0, errors.Join(eng.Close(), store.Close()))
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
