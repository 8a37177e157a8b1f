package situate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/bm25"
	"github.com/situate/situate/embedcache"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/vector"
)

// TestCheckAndRepair damages every kind of index file through the library
// (byte flipped, truncated, deleted; documents the indexes lack or hold in
// excess): Check reports the file or the documents, Repair rebuilds from the
// store, and searches then equal those of the undamaged store.
func TestCheckAndRepair(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	emb := &hashEmbedder{dim: 32}
	opts := situate.DefaultOptions()
	opts.Embedder = embedcache.New(emb, store)
	eng, err := situate.Open(ctx, dir, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		doc := situate.Document{ID: fmt.Sprintf("doc%02d", i), Title: fmt.Sprint("Doc ", i),
			Text: fmt.Sprintf("Entity%02d harbour ledger %d. The lamp keeper of tower %d rang the bell.", i, i, i), Format: situate.FormatText}
		if _, err := eng.Put(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	search := func() string {
		t.Helper()
		eng, err := situate.Open(ctx, dir, store, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		var out string
		for _, q := range []string{"harbour ledger 3", "lamp keeper tower 7", "Entity05"} {
			hits, err := eng.Search(ctx, situate.Query{Text: q, K: 5, Mode: situate.ModeHybrid})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				out += fmt.Sprintf("%s %s#%d %.4f\n", q, h.DocID, h.Chunk, h.Score)
			}
		}
		return out
	}
	eng.Close()
	want := search()
	r, err := situate.Check(ctx, dir, store, opts)
	if err != nil || !r.OK() {
		t.Fatalf("Check of a sound store: %+v, %v", r, err)
	}
	if len(r.Arms) != 5 {
		t.Fatalf("Check saw arms %+v, want bm25, bm25-code, bm25-pairs, bm25-defs and vectors", r.Arms)
	}

	segOf := func(arm, glob string) string {
		m, _ := filepath.Glob(filepath.Join(dir, arm, glob))
		if len(m) == 0 {
			t.Fatalf("no %s in %s", glob, arm)
		}
		return m[0]
	}
	for _, tc := range []struct {
		arm, glob, how string
	}{
		{"bm25", "seg-*.seg", "flip"}, {"bm25", "seg-*.seg", "truncate"}, {"bm25", "seg-*.seg", "delete"},
		{"bm25", "MANIFEST", "flip"}, {"bm25-code", "MANIFEST", "truncate"}, {"bm25-pairs", "seg-*.seg", "flip"},
		{"bm25", "MANIFEST", "delete"},
		{"vectors", "seg-*.vec", "flip"}, {"vectors", "seg-*.vec", "truncate"}, {"vectors", "seg-*.vec", "delete"},
		{"vectors", "MANIFEST", "flip"}, {"vectors", "MANIFEST", "truncate"}, {"vectors", "MANIFEST", "delete"},
	} {
		t.Run(tc.arm+"/"+tc.glob+"/"+tc.how, func(t *testing.T) {
			path := segOf(tc.arm, tc.glob)
			b, _ := os.ReadFile(path)
			switch tc.how {
			case "flip":
				b[len(b)*2/3] ^= 0x10
				os.WriteFile(path, b, 0o644)
			case "truncate":
				os.WriteFile(path, b[:len(b)/2], 0o644)
			case "delete":
				os.Remove(path)
			}
			r, err := situate.Check(ctx, dir, store, opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.OK() {
				t.Fatalf("Check found nothing wrong after the %s of %s", tc.how, path)
			}
			named := false
			for _, a := range r.Arms {
				for _, f := range a.Files {
					if f.Path == path && f.Err != nil {
						named = true
						if !errors.Is(f.Err, bm25.ErrCorrupt) && !errors.Is(f.Err, vector.ErrCorrupt) {
							t.Errorf("%s: %v does not wrap ErrCorrupt", path, f.Err)
						}
					}
				}
				if a.Name == tc.arm && !a.Damaged() && len(a.Missing) == 0 {
					t.Errorf("arm %s: neither damaged nor missing documents: %+v", a.Name, a)
				}
			}
			if !named && tc.how != "delete" && tc.glob != "MANIFEST" {
				t.Errorf("Check did not name %s: %+v", path, r.Arms)
			}
			r, err = situate.Repair(ctx, dir, store, opts)
			if err != nil || !r.OK() {
				t.Fatalf("Repair: %v; report %+v", err, r)
			}
			if !slices.Contains(r.Repaired, tc.arm) {
				t.Errorf("Repair rebuilt %v, want %s among them", r.Repaired, tc.arm)
			}
			if got := search(); got != want {
				t.Fatalf("search after repair differs:\n%s\nwant\n%s", got, want)
			}
		})
	}

	// The indexes hold a document the store does not (its row removed
	// behind the engine's back), and lack one it has.
	t.Run("extra and missing documents", func(t *testing.T) {
		if err := store.DeleteDocument(ctx, "doc03"); err != nil {
			t.Fatal(err)
		}
		r, err := situate.Check(ctx, dir, store, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range r.Arms {
			if !slices.Equal(a.Extra, []string{"doc03"}) {
				t.Errorf("arm %s: extra %v, want [doc03]", a.Name, a.Extra)
			}
		}
		r, err = situate.Repair(ctx, dir, store, opts)
		if err != nil || !r.OK() {
			t.Fatalf("Repair: %v; report %+v", err, r)
		}
		eng, err := situate.Open(ctx, dir, store, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		hits, err := eng.Search(ctx, situate.Query{Text: "Entity03", K: 5, Mode: situate.ModeHybrid})
		if err != nil {
			t.Fatalf("search after removing extra documents: %v", err)
		}
		for _, h := range hits {
			if h.DocID == "doc03" {
				t.Fatalf("repaired index still returns doc03")
			}
		}
	})
}
