package embedcache_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/embedcache"
)

// memCache is a map-backed situate.VectorCache counting its traffic.
type memCache struct {
	mu          sync.Mutex
	m           map[string][]float32
	reads, puts int
	failRead    bool
}

func newMem() *memCache { return &memCache{m: map[string][]float32{}} }

func (c *memCache) CachedVector(_ context.Context, key string) ([]float32, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	if c.failRead {
		return nil, false, errors.New("disk on fire")
	}
	v, ok := c.m[key]
	return v, ok, nil
}

func (c *memCache) CacheVector(_ context.Context, key string, v []float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	c.m[key] = v
	return nil
}

// fakeEmbedder records the texts it is asked for; vector = [len(text), input].
type fakeEmbedder struct {
	name  string
	calls [][]string
	dim   int
}

func (f *fakeEmbedder) Name() string { return f.name }

func (f *fakeEmbedder) Embed(_ context.Context, texts []string, in driver.InputType) ([][]float32, error) {
	f.calls = append(f.calls, append([]string(nil), texts...))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, f.dim)
		v[0], v[1] = float32(len(t)), float32(in)
		out[i] = v
	}
	return out, nil
}

func TestHitsAndMisses(t *testing.T) {
	ctx := context.Background()
	inner := &fakeEmbedder{name: "fake:m1", dim: 3}
	mem := newMem()
	e := embedcache.New(inner, mem)
	if e.Name() != "fake:m1" {
		t.Errorf("Name = %q", e.Name())
	}
	v1, err := e.Embed(ctx, []string{"a", "bb", "a", "ccc"}, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	if len(inner.calls) != 1 || strings.Join(inner.calls[0], ",") != "a,bb,ccc" {
		t.Fatalf("calls %q, want one call with the distinct misses in order", inner.calls)
	}
	if v1[0][0] != 1 || v1[1][0] != 2 || v1[2][0] != 1 || v1[3][0] != 3 {
		t.Fatalf("vectors out of order: %v", v1)
	}
	// Second call: "bb" and "a" hit, "dd" misses.
	v2, err := e.Embed(ctx, []string{"dd", "bb", "a"}, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	if len(inner.calls) != 2 || strings.Join(inner.calls[1], ",") != "dd" {
		t.Fatalf("second call sent %q, want only dd", inner.calls[1])
	}
	if v2[0][0] != 2 || v2[1][0] != 2 || v2[2][0] != 1 {
		t.Fatalf("merged vectors %v", v2)
	}
	hits, sent := e.(*embedcache.Embedder).Stats()
	if hits != 2 || sent != 4 || mem.puts != 4 {
		t.Errorf("hits %d sent %d puts %d, want 2, 4, 4", hits, sent, mem.puts)
	}
	// All hits: no call.
	if _, err := e.Embed(ctx, []string{"a", "dd"}, driver.InputDocument); err != nil || len(inner.calls) != 2 {
		t.Fatalf("all-hit call reached the embedder (%v)", err)
	}
	// A query is another key: a miss.
	vq, _ := e.Embed(ctx, []string{"a"}, driver.InputQuery)
	if len(inner.calls) != 3 || vq[0][1] != 1 {
		t.Fatalf("query served from document cache: %v", vq)
	}
}

func TestKeysSeparateModels(t *testing.T) {
	k := embedcache.Key("voyage:voyage-3.5", driver.InputDocument, "x")
	for _, other := range []string{
		embedcache.Key("voyage:voyage-3.5@512", driver.InputDocument, "x"),
		embedcache.Key("voyage:voyage-3.5", driver.InputQuery, "x"),
		embedcache.Key("voyage:voyage-3.5", driver.InputDocument, "y"),
		embedcache.Key("voyage:voyage-3.", driver.InputDocument, "5x"),
	} {
		if other == k {
			t.Errorf("key collision: %s", k)
		}
	}
	if len(k) != 64 {
		t.Errorf("key %q is not hex sha256", k)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	mem := newMem()
	mem.failRead = true
	e := embedcache.New(&fakeEmbedder{name: "fake:m", dim: 2}, mem)
	if _, err := e.Embed(ctx, []string{"a"}, driver.InputDocument); err == nil || !strings.Contains(err.Error(), "read text 0") {
		t.Errorf("read failure: %v", err)
	}
	// A stale entry of another dimension is refused, not mixed in.
	mem = newMem()
	mem.m[embedcache.Key("fake:m", driver.InputDocument, "old")] = []float32{1, 2, 3, 4}
	e = embedcache.New(&fakeEmbedder{name: "fake:m", dim: 2}, mem)
	_, err := e.Embed(ctx, []string{"new", "old"}, driver.InputDocument)
	if !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), "text 1") {
		t.Errorf("mixed dimensions: %v", err)
	}
}

// TestCacheOnly: vectors cached under an embedder's name are served
// without it; a text the cache lacks names the embedder to configure.
func TestCacheOnly(t *testing.T) {
	ctx := context.Background()
	cache := newMem()
	cache.m[embedcache.Key("voyage:v3", driver.InputDocument, "kept")] = []float32{1, 2}
	e := embedcache.CacheOnly("voyage:v3", cache)
	if e.Name() != "voyage:v3" {
		t.Errorf("Name() = %q", e.Name())
	}
	got, err := e.Embed(ctx, []string{"kept"}, driver.InputDocument)
	if err != nil || len(got) != 1 || got[0][1] != 2 {
		t.Fatalf("cached text: %v, %v", got, err)
	}
	if _, err := e.Embed(ctx, []string{"kept"}, driver.InputQuery); err == nil || !strings.Contains(err.Error(), "embedder voyage:v3") {
		t.Errorf("a query vector was never cached: %v", err)
	}
}
