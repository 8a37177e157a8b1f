package offline_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/chunk"
	"github.com/situate/situate/offline"
)

// BenchmarkCodebase contextualizes all 90 documents (737 chunks) of
// Anthropic's codebase set per iteration.
func BenchmarkCodebase(b *testing.B) {
	docs, chunks := loadCodebase(b)
	contextualizeAll(b, docs, chunks)
}

// BenchmarkGoSource contextualizes the Go files of the standard library's
// net/http (real code, from this machine's GOROOT), chunked as an index run
// chunks them, per iteration.
func BenchmarkGoSource(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if len(files) == 0 {
		b.Skip("no Go sources under GOROOT")
	}
	var docs []situate.Document
	var chunks [][]situate.Chunk
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		text := string(data)
		spans, err := chunk.Split(text, chunk.Options{Size: chunk.DefaultSize, Overlap: chunk.DefaultOverlap, Format: chunk.FormatCode, Path: f})
		if err != nil {
			b.Fatal(err)
		}
		var chs []situate.Chunk
		for i, s := range spans {
			chs = append(chs, situate.Chunk{Index: i, Start: s.Start, End: s.End, Text: text[s.Start:s.End], Heading: s.Heading, Tokens: s.Tokens})
		}
		docs = append(docs, situate.Document{ID: "net/http/" + filepath.Base(f), Path: f, Text: text, Format: situate.FormatCode})
		chunks = append(chunks, chs)
	}
	contextualizeAll(b, docs, chunks)
}

// contextualizeAll contextualizes every document's chunks per iteration.
func contextualizeAll(b *testing.B, docs []situate.Document, chunks [][]situate.Chunk) {
	c := offline.New(offline.DefaultOptions())
	b.ReportAllocs()
	for b.Loop() {
		for i, doc := range docs {
			if _, err := c.Contextualize(context.Background(), doc, chunks[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
