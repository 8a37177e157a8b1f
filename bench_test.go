package situate_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// randomEmbedder stands in for an embedding model in benchmarks: seeded
// random unit vectors, so the vector scan costs what a real one does.
type randomEmbedder struct {
	dim int
	rng *rand.Rand
}

func (r *randomEmbedder) Name() string { return fmt.Sprintf("bench:random@%d", r.dim) }

func (r *randomEmbedder) Embed(_ context.Context, texts []string, _ driver.InputType) ([][]float32, error) {
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

// BenchmarkCommit measures the committer of an index run: Engine.Commit of
// GOROOT/src/net/http's Go files (real code, offline contexts, the default
// arms) in batches of 64 documents, as situate index commits them. The
// documents are prepared (chunked, contextualized, and analysed for the
// arms) before the timer starts, on the goroutines that prepare them in a
// run; what is timed runs on the one committing goroutine, which bounds how
// fast a run on several cores can go. It reports the committer's
// milliseconds per MB of text.
func BenchmarkCommit(b *testing.B) {
	ctx := context.Background()
	dir := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Skipf("no Go source tree to index: %v", err)
	}
	var docs []situate.Document
	size := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		size += len(text)
		docs = append(docs, situate.Document{ID: "net/http/" + e.Name(), Path: filepath.Join(dir, e.Name()),
			Title: e.Name(), Format: situate.FormatCode, Text: string(text)})
	}
	b.ReportAllocs()
	var committing time.Duration
	for b.Loop() {
		b.StopTimer()
		d := b.TempDir()
		store, err := sqlite.Open(ctx, filepath.Join(d, "situate.db"))
		if err != nil {
			b.Fatal(err)
		}
		opts := situate.DefaultOptions()
		opts.Contextualizer = offline.New(offline.DefaultOptions())
		eng, err := situate.Open(ctx, d, store, opts)
		if err != nil {
			b.Fatal(err)
		}
		prepared := make([]*situate.Prepared, len(docs))
		var wg sync.WaitGroup
		for i := range docs {
			wg.Go(func() {
				p, err := eng.Prepare(ctx, docs[i])
				if err != nil {
					b.Error(err)
				}
				prepared[i] = p
			})
		}
		wg.Wait()
		start := time.Now()
		b.StartTimer()
		for i := 0; i < len(prepared); i += situate.DefaultCommitDocuments {
			if _, err := eng.Commit(ctx, prepared[i:min(i+situate.DefaultCommitDocuments, len(prepared))]); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		committing += time.Since(start)
		eng.Close()
		store.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(committing.Milliseconds())/float64(b.N)/(float64(size)/1e6), "ms/MB")
}
