package anthropic_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
)

// BenchmarkComplete measures one streamed call against the local fake:
// request encoding, loopback HTTP, the fake's validation and cache lookup,
// SSE parsing. It is the client's overhead per chunk, not Anthropic's
// latency.
func BenchmarkComplete(b *testing.B) {
	for _, size := range []int{20000, 400000} { // ~5k and ~100k-token documents
		b.Run(fmt.Sprintf("prefix_bytes=%d", size), func(b *testing.B) {
			s := anthropictest.NewServer(anthropictest.Config{})
			defer s.Close()
			c, err := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: s.URL, Model: "claude-sonnet-4-5"})
			if err != nil {
				b.Fatal(err)
			}
			p := prompt("d", doc(size), "Revenue grew by 3% over the previous quarter.")
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := c.Complete(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
