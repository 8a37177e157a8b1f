package situate_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

// randomEmbedder stands in for an embedding model in benchmarks: seeded
// random unit vectors, so the vector scan costs what a real one does.
type randomEmbedder struct {
	dim int
	rng *rand.Rand
}

func (r *randomEmbedder) Name() string { return fmt.Sprintf("bench:random@%d", r.dim) }

func (r *randomEmbedder) Embed(_ context.Context, texts []string, _ situate.InputType) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range texts {
		v := make([]float32, r.dim)
		var n float64
		for j := range v {
			v[j] = float32(r.rng.NormFloat64())
			n += float64(v[j] * v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}

// benchEngine builds an engine over docs×chunksPerDoc chunks of ~150 words
// from a Zipfian vocabulary, with 1024-d vectors.
func benchEngine(b *testing.B, docs, chunksPerDoc int, quantizeAbove int) *situate.Engine {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	opts := situate.DefaultOptions()
	opts.Embedder = &randomEmbedder{dim: 1024, rng: rand.New(rand.NewPCG(1, 2))}
	opts.VectorQuantizeAbove = quantizeAbove
	eng, err := situate.Open(ctx, dir, store, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	rng := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(5, 6)), 1.1, 1, 50000)
	word := func() string { return fmt.Sprintf("w%d", zipf.Uint64()) }
	start := time.Now()
	var batch []*situate.Prepared
	for d := range docs {
		doc := situate.Document{ID: fmt.Sprintf("doc%06d", d), Format: situate.FormatText, Lang: "en"}
		chunks := make([]situate.Chunk, chunksPerDoc)
		contexts := make([]situate.Context, chunksPerDoc)
		var text strings.Builder
		for c := range chunksPerDoc {
			var sb strings.Builder
			for range 140 + rng.IntN(20) {
				sb.WriteString(word())
				sb.WriteByte(' ')
			}
			start := text.Len()
			text.WriteString(sb.String())
			chunks[c] = situate.Chunk{Start: start, End: text.Len(), Text: sb.String()}
			contexts[c] = situate.Context{Text: "context " + word() + " " + word(), Source: "bench"}
		}
		doc.Text = text.String()
		p, err := eng.PrepareChunks(ctx, doc, chunks, contexts)
		if err != nil {
			b.Fatal(err)
		}
		batch = append(batch, p)
		if len(batch) == 500 || d == docs-1 {
			if _, err := eng.Commit(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.Logf("indexed %d chunks in %v", docs*chunksPerDoc, time.Since(start).Round(time.Millisecond))
	return eng
}

// BenchmarkHybridSearch measures BM25 (both arms) + 1024-d vector search
// (exact, or with the binary-quantized first pass) + RRF fusion + fetching
// the hits from the store, no rerank. Reports p50 and p99 latency.
func BenchmarkHybridSearch(b *testing.B) {
	for _, c := range []struct {
		n      int
		vector string
		qa     int
	}{{10000, "exact", -1}, {100000, "exact", -1}, {100000, "binary", 20000}} {
		b.Run(fmt.Sprintf("chunks=%d/vectors=%s", c.n, c.vector), func(b *testing.B) {
			eng := benchEngine(b, c.n/10, 10, c.qa)
			ctx := context.Background()
			zipf := rand.NewZipf(rand.New(rand.NewPCG(7, 8)), 1.1, 1, 50000)
			rng := rand.New(rand.NewPCG(9, 10))
			var lat []time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				terms := make([]string, 3+rng.IntN(6))
				for i := range terms {
					terms[i] = fmt.Sprintf("w%d", zipf.Uint64())
				}
				t0 := time.Now()
				if _, err := eng.Search(ctx, situate.Query{Text: strings.Join(terms, " "), K: 10, Mode: situate.ModeHybrid}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
