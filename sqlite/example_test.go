package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/sqlite"
)

func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "situate-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	doc := situate.Document{ID: "report.md", Title: "ACME annual report 2024", Text: "Revenue grew 3%.", Lang: "en"}
	chunks := []situate.StoredChunk{{
		Chunk:   situate.Chunk{DocID: doc.ID, Start: 0, End: len(doc.Text), Text: doc.Text},
		Context: situate.Context{Text: "From ACME annual report 2024: ACME's revenue.", Source: "offline"},
	}}
	rec := situate.DocumentRecord{ID: doc.ID, Title: doc.Title, Lang: "en", Hash: doc.Hash(), Version: 1}
	if err := s.PutDocument(ctx, rec, chunks); err != nil {
		log.Fatal(err)
	}
	stored, err := s.Chunks(ctx, doc.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(driver.Contextualize(stored[0].Context.Text, stored[0].Text))

	_, err = s.Document(ctx, "missing.md")
	fmt.Println(errors.Is(err, situate.ErrNotFound))
	// Output:
	// From ACME annual report 2024: ACME's revenue.
	//
	// Revenue grew 3%.
	// true
}
