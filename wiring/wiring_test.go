package wiring_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/wiring"
)

// settings are the defaults with some values set, as a front end would
// hand them over.
type settings map[string]string

func (s settings) Value(name string) string {
	if v, ok := s[name]; ok {
		return v
	}
	for _, d := range wiring.Defs() {
		if d.Name == name {
			return d.Default
		}
	}
	panic("unknown setting " + name)
}

func (s settings) Origin(name string) string {
	if _, ok := s[name]; ok {
		return "flag"
	}
	return "default"
}

func TestDefsNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range wiring.Defs() {
		if seen[d.Name] || d.Usage == "" {
			t.Errorf("setting %q: defined twice or without usage", d.Name)
		}
		seen[d.Name] = true
	}
	for _, list := range [][]string{wiring.LLMSettings, wiring.DenseSettings, wiring.IndexSettings} {
		for _, n := range list {
			if !seen[n] {
				t.Errorf("%s is listed but not defined", n)
			}
		}
	}
}

func TestEngineOptions(t *testing.T) {
	o, err := wiring.EngineOptions(settings{}, wiring.Env{}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := situate.DefaultOptions()
	if o.BM25B != d.BM25B || o.BM25K1 != d.BM25K1 || o.ChunkSize != d.ChunkSize || o.Contextualizer == nil {
		t.Errorf("defaults: %+v", o)
	}
	// 0 is a valid BM25 b and k1: it must reach the index as 0, which the
	// bm25 package computes in float32, not be read as "unset".
	o, err = wiring.EngineOptions(settings{"bm25-b": "0", "bm25-k1": "0"}, wiring.Env{}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if float32(o.BM25B) != 0 || o.BM25B == 0 || float32(o.BM25K1) != 0 || o.BM25K1 == 0 {
		t.Errorf("--bm25-b 0 --bm25-k1 0: b %g, k1 %g: want a value that is 0 in float32 and not the zero that means default", o.BM25B, o.BM25K1)
	}
	for _, c := range []struct {
		s    settings
		want string
	}{
		{settings{"recipe": "bm42"}, `--recipe "bm42" (from flag): must be situate or lucene`},
		{settings{"bm25-b": "x"}, `--bm25-b (from flag): "x" is not a number`},
		{settings{"bm25-b": "2"}, "BM25B"},
		{settings{"contextualizer": "llm"}, "--contextualizer llm needs --llm"},
		{settings{"contextualizer": "oracle"}, `--contextualizer "oracle"`},
		{settings{"embed": "nowhere:x"}, `--embed "nowhere:x": provider must be`},
	} {
		_, err := wiring.EngineOptions(c.s, wiring.Env{}, nil, nil, nil)
		if c.s["embed"] != "" {
			// The embedder is built only with a store for its cache.
			_, _, err = wiring.NewEmbedder(context.Background(), c.s, wiring.Env{}, nil)
		}
		var ue wiring.UsageError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ue) {
			t.Errorf("%v: got %v, want a UsageError with %q", c.s, err, c.want)
		}
	}
}

func TestProvidersRefuseBadSpecs(t *testing.T) {
	env := wiring.Env{Getenv: func(string) string { return "" }}
	if _, err := wiring.NewLLM(settings{"llm": "anthropic:claude-haiku-4-5"}, env); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY is empty") {
		t.Errorf("anthropic without a key: %v", err)
	}
	if _, err := wiring.NewLLM(settings{"llm": "vllm:m"}, env); err == nil || !strings.Contains(err.Error(), "needs --llm-base-url") {
		t.Errorf("vllm without a URL: %v", err)
	}
	if r, err := wiring.NewReranker(context.Background(), settings{}, env); r != nil || err != nil {
		t.Errorf("no --rerank: %v, %v", r, err)
	}
	if b, err := wiring.NewIndexBackend(context.Background(), settings{}, env, "", false); b != nil || err != nil {
		t.Errorf("embedded index: %v, %v", b, err)
	}
	if _, err := wiring.NewIndexBackend(context.Background(), settings{"index": "weaviate"}, env, "", false); err == nil || !strings.Contains(err.Error(), "needs --weaviate-url") {
		t.Errorf("weaviate without URLs: %v", err)
	}
	if err := wiring.CheckLLMSpec("claude", "flag"); err == nil || !strings.Contains(err.Error(), "want PROVIDER:MODEL") {
		t.Errorf("CheckLLMSpec(claude): %v", err)
	}
}

// TestOpenWriterThenReader indexes into a SQLite store through the writer
// and reads it back through a reader, as "index" and "search" do.
func TestOpenWriterThenReader(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := settings{"store": "store"}
	env := wiring.Env{WorkDir: dir}
	if _, _, err := wiring.OpenReader(ctx, s, env, true, nil); err == nil || !strings.Contains(err.Error(), "no store at") {
		t.Fatalf("reader before any index: %v", err)
	}
	eng, store, err := wiring.OpenWriter(ctx, s, env, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Put(ctx, situate.Document{ID: "a", Text: "the zebra grazes by the river"}); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	store.Close()
	eng, store, err = wiring.OpenReader(ctx, s, env, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	defer eng.Close()
	hits, err := eng.Search(ctx, situate.Query{Text: "zebra"})
	if err != nil || len(hits) != 1 || hits[0].DocID != "a" {
		t.Fatalf("search: %v, %v", hits, err)
	}
}

// TestOpenTenant opens a server tenant's own SQLite store beside the root
// store, with the server's tuning applied.
func TestOpenTenant(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := settings{"store": "store"}
	env := wiring.Env{WorkDir: dir}
	root, sdir, shared, err := wiring.OpenStore(ctx, s, env, true)
	if err != nil || shared {
		t.Fatalf("OpenStore: %v (shared %v)", err, shared)
	}
	defer root.Close()
	eng, store, err := wiring.OpenTenant(ctx, s, env, root, sdir, false, "acme", func(o *situate.Options) { o.ChunkCacheBytes = 1 << 20 }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if store == root || eng.Options().ChunkCacheBytes != 1<<20 {
		t.Errorf("tenant acme: own store %v, tuned options %d", store != root, eng.Options().ChunkCacheBytes)
	}
	eng.Close()
	store.Close()
	if _, err := os.Stat(filepath.Join(sdir, wiring.TenantsDir, "acme", wiring.StoreFile)); err != nil {
		t.Errorf("tenant store: %v", err)
	}

}
