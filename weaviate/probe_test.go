package weaviate_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/weaviatetest"
	"github.com/situate/situate/weaviate"
)

var probeArms = []driver.BackendArm{{Name: "bm25", K1: 1.2, B: 0.75, Analyzers: []string{"standard"}}}

// TestBM25TopK writes more matching chunks than a limited BM25 query keeps
// in Weaviate's heap, the best one last, and searches at once (everything
// still in the memtable): the best chunk must come first. It does on a
// server with the exact WAND (weaviatetest's default); on Weaviate
// v1.35.2's default BlockMax WAND the best chunk was never scored, and
// Init's check refuses such a server, naming the setting.
func TestBM25TopK(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two Weaviate servers")
	}
	ctx := context.Background()
	t.Run("exact", func(t *testing.T) {
		cl := weaviatetest.Start(t)
		x, err := weaviate.Open(ctx, weaviate.Config{URLs: cl.URLs(), Collection: "TopK", VectorIndex: "flat"})
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		if err := x.Init(ctx, probeArms); err != nil {
			t.Fatal(err)
		}
		// One write per document, the best last: Weaviate numbers its
		// objects in the order they arrive.
		for i := range 40 {
			terms := []string{"filler", "common"}
			if i == 39 {
				terms = []string{"common", "rare", "rare"}
			}
			d := driver.BackendDocument{Record: situate.DocumentRecord{ID: fmt.Sprintf("d%02d", i), Version: 1, Chunks: 1},
				Chunks: []driver.BackendChunk{{Terms: []driver.ArmTerms{{Arm: "bm25", Analyzer: "standard", Terms: terms}}}}}
			if err := x.Replace(ctx, []driver.BackendDocument{d}); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range []int{1, 5, 10} {
			hits, err := x.SearchTerms(ctx, driver.TermQuery{Arm: "bm25", Terms: map[string][]string{"standard": {"common", "rare"}}, K: k})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != k || hits[0].DocID != "d39" {
				t.Fatalf("K=%d: got %v, want %d hits led by d39 (the only chunk holding both terms)", k, hits, k)
			}
			if k > 1 && !(hits[0].Score > hits[1].Score) {
				t.Fatalf("K=%d: d39 scores %g, the next %g: want it strictly higher", k, hits[0].Score, hits[1].Score)
			}
		}
	})
	t.Run("blockmax refused", func(t *testing.T) {
		cl := weaviatetest.StartClusterEnv(t, 1, "USE_BLOCKMAX_WAND=true")
		x, err := weaviate.Open(ctx, weaviate.Config{URLs: cl.URLs(), Collection: "TopK", VectorIndex: "flat"})
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		err = x.Init(ctx, probeArms)
		if !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), weaviate.EnvHint) {
			t.Fatalf("Init on a BlockMax WAND server: got %v, want ErrInvalid naming %s", err, weaviate.EnvHint)
		}
		// The probe leaves no tenant behind.
		x2, err := weaviate.Open(ctx, weaviate.Config{URLs: cl.URLs(), Collection: "TopK", VectorIndex: "flat", SkipBM25Check: true})
		if err != nil {
			t.Fatal(err)
		}
		defer x2.Close()
		if err := x2.Init(ctx, probeArms); err != nil {
			t.Fatalf("Init with SkipBM25Check: %v", err)
		}
		tenants, err := weaviate.Tenants(ctx, x2, "TopKLangStandard")
		if err != nil {
			t.Fatal(err)
		}
		for _, tn := range tenants {
			if strings.HasPrefix(tn, "situate-probe-") {
				t.Fatalf("probe tenant %s left behind (tenants %v)", tn, tenants)
			}
		}
	})
}
