package postgres_test

import (
	"context"
	"fmt"
	"log"

	"github.com/situate/situate"
	"github.com/situate/situate/postgres"
)

// Open a store on a PostgreSQL database (scripts/dev-postgres.sh start
// prints such a URL); every process that opens the same URL shares it.
func Example() {
	ctx := context.Background()
	s, err := postgres.Open(ctx, "postgres://postgres@127.0.0.1:55432/situate?sslmode=disable")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	rec := situate.DocumentRecord{ID: "notes.md", Title: "Notes", Version: 1}
	chunks := []situate.StoredChunk{{Chunk: situate.Chunk{Index: 0, End: 5, Text: "hello"}}}
	if err := s.PutDocument(ctx, rec, chunks); err != nil {
		log.Fatal(err)
	}
	got, err := s.Chunks(ctx, "notes.md")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got[0].Text)
}
