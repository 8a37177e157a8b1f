package voyage_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/voyage"
	"github.com/situate/situate/provider/voyage/voyagetest"
)

// BenchmarkEmbed measures client plus fake-server cost of embedding
// chunk-sized texts (~100 words) in one call: JSON both ways, checks, and
// the fake's bag-of-words vectors. It bounds the client's own overhead;
// the real API's latency dominates in production.
func BenchmarkEmbed(b *testing.B) {
	for _, n := range []int{128, 1000} {
		b.Run(fmt.Sprintf("texts=%d", n), func(b *testing.B) {
			s := voyagetest.NewServer(voyagetest.Config{})
			defer s.Close()
			e, _ := voyage.NewEmbedder(voyage.Options{APIKey: "k", BaseURL: s.URL})
			in := make([]string, n)
			for i := range in {
				in[i] = strings.Repeat(fmt.Sprintf("word%d lorem ipsum dolor sit amet ", i), 17)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := e.Embed(context.Background(), in, driver.InputDocument); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n)/1000, "µs/text")
		})
	}
}
