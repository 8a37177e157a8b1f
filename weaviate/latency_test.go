package weaviate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/fakeembed"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/weaviate"
)

// latencyEmbedder is fakeembed's hashed bag of words at 100 dimensions (the
// size of the GloVe vectors this machine has): a stand-in whose vectors
// cost what real ones cost to store and scan.
type latencyEmbedder struct{}

func (latencyEmbedder) Name() string { return "hash-100" }
func (latencyEmbedder) Embed(_ context.Context, texts []string, _ driver.InputType) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fakeembed.Vector(t, 100)
	}
	return out, nil
}

// latencyWords is a Zipf-distributed vocabulary, so BM25 posting lists
// have realistic lengths. Words are letters only (the n-th word spells n in
// base 26), so every analyzer, the code arm's too, sees the same words:
// "w17"-style words would split into "w" and "17" there, a term in every
// chunk that no real text has.
func latencyWords(z *rand.Zipf, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(latencyWord(z.Uint64()))
	}
	return b.String()
}

func latencyWord(n uint64) string {
	w := []byte{'q'} // no word is an English stop word
	for {
		w = append(w, byte('a'+n%26))
		if n /= 26; n == 0 {
			break
		}
	}
	return string(w)
}

// TestLatency100k is acceptance 6 of issue 12: search latency for 100k
// chunks (20,000 documents of 5 chunks, ~60 words each, a Zipf vocabulary of
// 50,000 words, 100-d vectors) on the embedded engine and on Weaviate, BM25,
// dense and hybrid, the same queries on the same data, one client. It runs
// only when SITUATE_LATENCY_WEAVIATE names Weaviate nodes (comma-separated)
// and SITUATE_LATENCY_DIR a directory for the embedded store; both are
// built once and reused. Record its output in bench/.
func TestLatency100k(t *testing.T) {
	urls, dir := os.Getenv("SITUATE_LATENCY_WEAVIATE"), os.Getenv("SITUATE_LATENCY_DIR")
	if urls == "" || dir == "" {
		t.Skip("set SITUATE_LATENCY_WEAVIATE (nodes) and SITUATE_LATENCY_DIR to measure")
	}
	ctx := context.Background()
	const docs, chunksPer, queries = 20000, 5, 300
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 2, 50000)
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.Embedder = latencyEmbedder{}
	open := func(name string, backend driver.IndexBackend) *situate.Engine {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		store, err := sqlite.Open(ctx, filepath.Join(d, "situate.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		o := opts
		o.Backend = backend
		e, err := situate.Open(ctx, d, store, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	x, err := weaviate.Open(ctx, weaviate.Config{URLs: strings.Split(urls, ","), Collection: "Latency", Consistency: "ONE", Timeout: 5 * time.Minute, BatchSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	engines := map[string]*situate.Engine{"embedded": open("embedded", nil), "weaviate": open("weaviate", x)}
	for _, name := range []string{"embedded", "weaviate"} {
		e := engines[name]
		if n := len(e.Documents()); n == docs {
			continue
		}
		start := time.Now()
		r := rand.New(rand.NewPCG(1, 2))
		z := rand.NewZipf(r, 1.1, 2, 50000)
		var batch []*situate.Prepared
		for i := range docs {
			doc := situate.Document{ID: fmt.Sprintf("d%05d", i), Lang: "en"}
			chunks := make([]situate.Chunk, chunksPer)
			contexts := make([]situate.Context, chunksPer)
			for j := range chunks {
				chunks[j] = situate.Chunk{Text: latencyWords(z, 60)}
				contexts[j] = situate.Context{Text: latencyWords(z, 10), Source: "bench"}
			}
			p, err := e.PrepareChunks(ctx, doc, chunks, contexts)
			if err != nil {
				t.Fatal(err)
			}
			if p != nil {
				batch = append(batch, p)
			}
			if len(batch) == 200 || i == docs-1 {
				if _, err := e.Commit(ctx, batch); err != nil {
					t.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		t.Logf("%s: indexed %d chunks in %s", name, docs*chunksPer, time.Since(start).Round(time.Second))
	}
	qs, warm := make([]string, queries), make([]string, queries/3)
	for i := range qs {
		qs[i] = latencyWords(z, 4)
	}
	for i := range warm {
		warm[i] = latencyWords(z, 4)
	}
	// Warm: every engine and mode answers another set of queries first, so
	// no row is taken while the other engine's import is still settling
	// (Weaviate flushes its memtables for minutes after a large import,
	// and BM25 is slow meanwhile). The load average is printed beside the
	// figures: the machine is shared.
	for _, mode := range []string{situate.ModeBM25, situate.ModeDense, situate.ModeHybrid} {
		for _, name := range []string{"embedded", "weaviate"} {
			for _, q := range warm {
				if _, err := engines[name].Search(ctx, situate.Query{Text: q, K: 10, Mode: mode}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	t.Logf("warmed with %d other queries per engine and mode; load average %s", len(warm), loadAvg())
	for _, mode := range []string{situate.ModeBM25, situate.ModeDense, situate.ModeHybrid} {
		for _, name := range []string{"embedded", "weaviate"} {
			e := engines[name]
			lat := make([]time.Duration, len(qs))
			for i, q := range qs {
				start := time.Now()
				hits, err := e.Search(ctx, situate.Query{Text: q, K: 10, Mode: mode})
				lat[i] = time.Since(start)
				if err != nil || len(hits) == 0 {
					t.Fatalf("%s %s %q: %d hits, %v", name, mode, q, len(hits), err)
				}
			}
			slices.Sort(lat)
			pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))].Round(10 * time.Microsecond) }
			t.Logf("mode=%-6s engine=%-8s queries=%d p50=%s p95=%s p99=%s max=%s load=%s", mode, name, len(qs), pct(0.5), pct(0.95), pct(0.99), lat[len(lat)-1].Round(10*time.Microsecond), loadAvg())
		}
	}
}

// loadAvg is /proc/loadavg's 1-minute figure ("?" where there is none).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}
