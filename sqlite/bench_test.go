package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/situate/situate"
)

// BenchmarkPutDocument replaces one document of n chunks of ~800 bytes (a
// typical 200-token chunk with a 60-word context) per iteration.
func BenchmarkPutDocument(b *testing.B) {
	for _, n := range []int{1, 20, 100} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			ctx := context.Background()
			s := MustOpen(b)
			doc := situate.Document{ID: "bench/doc.md", Title: "Bench", Format: situate.FormatMarkdown,
				Text: strings.Repeat("lorem ipsum dolor sit amet ", 30*n)}
			chunks := make([]situate.StoredChunk, n)
			size := len(doc.Text) / n
			for i := range chunks {
				chunks[i] = situate.StoredChunk{
					Chunk: situate.Chunk{DocID: doc.ID, Index: i, Start: i * size, End: (i + 1) * size,
						Text: doc.Text[i*size : (i+1)*size], Heading: "Intro > Part", Tokens: 200},
					Context: situate.Context{Text: strings.Repeat("context words here ", 20), Source: "offline"},
				}
			}
			rec := situate.DocumentRecord{ID: doc.ID, Title: doc.Title, Format: doc.Format, Lang: "en", Hash: doc.Hash()}
			b.ReportAllocs()
			for b.Loop() {
				rec.Version++
				if err := s.PutDocument(ctx, rec, chunks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkChunks(b *testing.B) {
	ctx := context.Background()
	s := MustOpen(b)
	doc, chunks := makeDoc("d", 16)
	if err := s.PutDocument(ctx, doc, chunks); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Chunks(ctx, "d"); err != nil {
			b.Fatal(err)
		}
	}
}
