package situate_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

// countingStore counts the chunk rows an Engine reads for its hits.
type countingStore struct {
	*sqlite.Store
	rows atomic.Int64
}

func (s *countingStore) ChunksAt(ctx context.Context, refs []situate.ChunkRef) (map[situate.ChunkRef]situate.StoredChunk, error) {
	s.rows.Add(int64(len(refs)))
	return s.Store.ChunksAt(ctx, refs)
}

// TestChunkCacheFollowsChanges: a repeated search is answered from the
// chunk cache without reading the store, and a changed, re-processed or
// deleted document is never shown with the text of its earlier version.
func TestChunkCacheFollowsChanges(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	store := &countingStore{Store: ts.store}
	eng, err := situate.Open(ctx, ts.dir, store, situate.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	search := func(q string) []situate.Hit {
		t.Helper()
		hits, err := eng.Search(ctx, situate.Query{Text: q, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	text := func(q string) string {
		t.Helper()
		hits := search(q)
		if len(hits) != 1 {
			t.Fatalf("search %q: %d hits, want 1", q, len(hits))
		}
		return hits[0].Text
	}
	put := func(d situate.Document) {
		t.Helper()
		if _, err := eng.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}

	put(doc("a", "Walrus migration follows the original route along the coast."))
	if got := text("walrus"); !strings.Contains(got, "original") {
		t.Fatalf("first search: %q", got)
	}
	read := store.rows.Load()
	if got := text("walrus"); !strings.Contains(got, "original") {
		t.Fatalf("second search: %q", got)
	}
	if n := store.rows.Load(); n != read {
		t.Errorf("the repeated search read %d chunk rows, want 0 (from the cache)", n-read)
	}

	put(doc("a", "Walrus migration follows the revised route along the coast."))
	if got := text("walrus"); !strings.Contains(got, "revised") {
		t.Errorf("after a change: %q, want the new version's text", got)
	}

	// The same text under another title is re-stored as a new record.
	d := doc("a", "Walrus migration follows the revised route along the coast.")
	d.Title = "Walruses"
	put(d)
	hits := search("walrus")
	if len(hits) != 1 || hits[0].Title != "Walruses" || !strings.Contains(hits[0].Text, "revised") {
		t.Errorf("after a retitle: %+v", hits)
	}

	if err := eng.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if hits := search("walrus"); len(hits) != 0 {
		t.Errorf("after a delete: %+v", hits)
	}
	put(doc("a", "Walrus migration is back, on a third route."))
	if got := text("walrus"); !strings.Contains(got, "third") {
		t.Errorf("after delete and re-add: %q", got)
	}
}

// TestChunkCacheOff: with ChunkCacheBytes 0 every search reads its hits'
// rows.
func TestChunkCacheOff(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	store := &countingStore{Store: ts.store}
	o := situate.DefaultOptions()
	o.ChunkCacheBytes = 0
	eng, err := situate.Open(ctx, ts.dir, store, o)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.Put(ctx, doc("a", "Walrus migration along the coast.")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := eng.Search(ctx, situate.Query{Text: "walrus", K: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if n := store.rows.Load(); n != 2 {
		t.Errorf("two searches read %d chunk rows, want 2", n)
	}
}

// TestWarmChunkCache: a warmed cache answers searches over the whole store
// without reading a row, a small cache is filled only to its bound, and a
// document changed after the warm-up is shown at its new version.
func TestWarmChunkCache(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	const docs = 40
	eng, err := situate.Open(ctx, ts.dir, ts.store, situate.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		if _, err := eng.Put(ctx, doc(fmt.Sprintf("d%02d", i), fmt.Sprintf("Harbor log %d: the ship marker%02d arrived with cargo.", i, i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	open := func(cacheBytes int64) (*situate.Engine, *countingStore) {
		t.Helper()
		store := &countingStore{Store: ts.store}
		o := situate.DefaultOptions()
		o.ChunkCacheBytes = cacheBytes
		eng, err := situate.Open(ctx, ts.dir, store, o)
		if err != nil {
			t.Fatal(err)
		}
		return eng, store
	}

	eng, store := open(situate.DefaultChunkCacheBytes)
	n, err := eng.WarmChunkCache(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != docs {
		t.Errorf("warmed %d chunks, want all %d", n, docs)
	}
	for i := range docs {
		hits, err := eng.Search(ctx, situate.Query{Text: fmt.Sprintf("marker%02d", i), K: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || !strings.Contains(hits[0].Text, fmt.Sprintf("marker%02d", i)) {
			t.Fatalf("search marker%02d: %+v", i, hits)
		}
	}
	if rows := store.rows.Load(); rows != 0 {
		t.Errorf("searches after the warm-up read %d chunk rows, want 0", rows)
	}
	if _, err := eng.Put(ctx, doc("d07", "Harbor log 7: the ship marker07 left again, empty.")); err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Search(ctx, situate.Query{Text: "marker07", K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || !strings.Contains(hits[0].Text, "left again") {
		t.Errorf("after a change: %+v, want the new version's text", hits)
	}
	eng.Close()

	// The smallest cache, 1 MiB (sizes round up to whole MiB), takes some
	// chunks of twenty documents of 100 KB and stops before its bound.
	big := newTestStore(t)
	beng, err := situate.Open(ctx, big.dir, big.store, situate.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		text := strings.Repeat(fmt.Sprintf("Harbor log %d: the ship arrived with cargo and left again. ", i), 1700)
		if _, err := beng.Put(ctx, doc(fmt.Sprintf("big%02d", i), text)); err != nil {
			t.Fatal(err)
		}
	}
	total, err := big.store.ChunkCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	beng.Close()
	o := situate.DefaultOptions()
	o.ChunkCacheBytes = 2500
	small, err := situate.Open(ctx, big.dir, big.store, o)
	if err != nil {
		t.Fatal(err)
	}
	warmed, err := small.WarmChunkCache(ctx)
	t.Logf("warmed %d of %d chunks into 1 MiB", warmed, total)
	if err != nil || warmed == 0 || warmed >= total*6/10 {
		t.Errorf("warming a 1 MiB cache with %d chunks of 2 MB: %d chunks, %v; want some, and fewer than %d", total, warmed, err, total*6/10)
	}
	small.Close()
	none, _ := open(0)
	if n, err := none.WarmChunkCache(ctx); n != 0 || err != nil {
		t.Errorf("warming without a cache: %d, %v; want 0, nil", n, err)
	}
	none.Close()
}
