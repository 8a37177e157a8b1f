package offline_test

import (
	"context"
	"testing"

	"github.com/situate/situate/offline"
)

// BenchmarkCodebase contextualizes all 90 documents (737 chunks) of
// Anthropic's codebase set per iteration.
func BenchmarkCodebase(b *testing.B) {
	docs, chunks := loadCodebase(b)
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
