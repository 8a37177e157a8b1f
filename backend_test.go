package situate_test

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/situatetest"
	"github.com/situate/situate/sqlite"
)

// memBackendHarness runs situatetest.TestIndexBackend on memBackend over
// SQLite stores.
func memBackendHarness() situatetest.IndexBackendHarness {
	return situatetest.IndexBackendHarness{
		Open: func(t *testing.T) driver.IndexBackend { return newMemBackend() },
		Reopen: func(t *testing.T, old driver.IndexBackend) driver.IndexBackend {
			return old.(*memBackend).reopen()
		},
		NewStore: func(t *testing.T) driver.Store { return newSQLiteStore(t) },
	}
}

// TestIndexBackendSuiteOnMemBackend: an Engine over an index backend
// (Options.Backend, the path Weaviate takes) ranks, filters, updates,
// deletes and repairs as the embedded engine does; memBackend, written
// from the driver's documentation, is the backend, so the suite runs
// without a Weaviate server.
func TestIndexBackendSuiteOnMemBackend(t *testing.T) {
	t.Parallel() // its own stores and directories; waits on fsync, so it overlaps well
	situatetest.TestIndexBackend(t, memBackendHarness())
}

// backendEngine opens an Engine over store and b with opts (the embedded
// defaults, no contextualizer, when opts is nil).
func backendEngine(t *testing.T, store driver.Store, b driver.IndexBackend, opts *situate.Options) *situate.Engine {
	t.Helper()
	o := situate.DefaultOptions()
	o.Contextualizer = nil
	if opts != nil {
		o = *opts
	}
	o.Backend = b
	e, err := situate.Open(context.Background(), "", store, o)
	if err != nil {
		t.Fatalf("open over the backend: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func newSQLiteStore(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "situate.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestBackendOpenRepairsWhatTheBackendMissed: documents written to the
// store while the backend was away (a new version, a deletion) are put
// right when a writer opens over it again — vectors included — and
// CheckBackend reports the difference before and none after.
func TestBackendOpenRepairsWhatTheBackendMissed(t *testing.T) {
	ctx := context.Background()
	store := newSQLiteStore(t)
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.Embedder = &hashEmbedder{dim: 64}
	b := newMemBackend()
	e := backendEngine(t, store, b, &opts)
	for _, d := range []situate.Document{doc("a", "The ferry crosses the sound at dawn."),
		doc("b", "Stone bridges span the river."), doc("c", "The bakery sells rye bread.")} {
		if _, err := e.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !b.isClosed() {
		t.Fatal("Engine.Close left its backend open")
	}

	// Meanwhile the store moves on over another backend.
	other := backendEngine(t, store, newMemBackend(), &opts)
	if _, err := other.Put(ctx, doc("a", "The lighthouse keeper trims the lamp.")); err != nil {
		t.Fatal(err)
	}
	if err := other.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	other.Close()

	before := situate.CheckBackend(ctx, store, b.reopen())
	if before.OK() || !slices.Equal(before.Missing, []string{"a"}) || !slices.Equal(before.Extra, []string{"b"}) {
		t.Fatalf("CheckBackend before the repair: missing %v, extra %v, ok %v; want missing [a] (older version), extra [b]",
			before.Missing, before.Extra, before.OK())
	}

	again := b.reopen()
	e = backendEngine(t, store, again, &opts)
	v, err := again.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"a": 2, "c": 1}; !maps.Equal(v, want) {
		t.Errorf("backend versions after the repair: %v, want %v", v, want)
	}
	if after := situate.CheckBackend(ctx, store, again); !after.OK() {
		t.Errorf("CheckBackend after the repair: missing %v, extra %v, err %v", after.Missing, after.Extra, after.Err)
	}
	for _, mode := range []string{situate.ModeBM25, situate.ModeDense} {
		hits := search(t, e, situate.Query{Text: "lighthouse keeper lamp", K: 1, Mode: mode})
		if len(hits) != 1 || hits[0].DocID != "a" || !strings.Contains(hits[0].Text, "lighthouse") {
			t.Errorf("%s search for a's new text after the repair: %v", mode, hits)
		}
	}
	if ids := searchIDs(t, e, situate.Query{Text: "stone bridges", K: 5, Mode: situate.ModeBM25}); len(ids) != 0 {
		t.Errorf("the deleted document is still found: %v", ids)
	}
}

func search(t *testing.T, e *situate.Engine, q situate.Query) []situate.Hit {
	t.Helper()
	hits, err := e.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return hits
}

var errBackendDown = errors.New("backend down")

// TestBackendFailedReplaceRepairedOnOpen: when the backend fails to take
// a document, Put says so and keeps the stored document; the next Open
// indexes it from the store (the pending journal), so nothing is lost.
func TestBackendFailedReplaceRepairedOnOpen(t *testing.T) {
	ctx := context.Background()
	store := newSQLiteStore(t)
	b := newMemBackend()
	e := backendEngine(t, store, b, nil)
	b.setFail(func(op string) error {
		if op == "replace" {
			return errBackendDown
		}
		return nil
	})
	_, err := e.Put(ctx, doc("a", "The ferry crosses the sound at dawn."))
	if !errors.Is(err, errBackendDown) || !strings.Contains(err.Error(), "index backend") {
		t.Fatalf("Put with the backend down: %v, want an index backend error wrapping the cause", err)
	}
	if _, err := store.Document(ctx, "a"); err != nil {
		t.Fatalf("the document was not kept in the store: %v", err)
	}
	e.Close()
	e = backendEngine(t, store, b.reopen(), nil)
	if ids := searchIDs(t, e, situate.Query{Text: "ferry", K: 5, Mode: situate.ModeBM25}); !slices.Equal(ids, []string{"a"}) {
		t.Errorf("after reopening: %v, want [a] indexed from the store", ids)
	}
}

// TestBackendErrorsNameTheBackend: a backend that fails a search, a
// delete or Open's calls makes the Engine's call fail with an error that
// says the index backend failed and wraps its cause.
func TestBackendErrorsNameTheBackend(t *testing.T) {
	ctx := context.Background()
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.Embedder = &hashEmbedder{dim: 32}
	for _, op := range []string{"search terms", "search vector", "delete", "init", "versions"} {
		t.Run(op, func(t *testing.T) {
			store := newSQLiteStore(t)
			b := newMemBackend()
			e := backendEngine(t, store, b, &opts)
			if _, err := e.Put(ctx, doc("a", "The ferry crosses the sound at dawn.")); err != nil {
				t.Fatal(err)
			}
			fail := func(o string) error {
				if o == op {
					return errBackendDown
				}
				return nil
			}
			var err error
			switch op {
			case "search terms", "search vector":
				b.setFail(fail)
				_, err = e.Search(ctx, situate.Query{Text: "ferry", Mode: situate.ModeHybrid})
			case "delete":
				b.setFail(fail)
				err = e.Delete(ctx, "a")
			default:
				e.Close()
				again := b.reopen()
				again.setFail(fail)
				o := opts
				o.Backend = again
				var eng *situate.Engine
				if eng, err = situate.Open(ctx, "", store, o); eng != nil {
					eng.Close()
				}
				if !again.isClosed() {
					t.Error("a failed Open left the backend open")
				}
			}
			if !errors.Is(err, errBackendDown) || !strings.Contains(err.Error(), "index backend") {
				t.Errorf("%s failing: %v, want an index backend error wrapping the cause", op, err)
			}
		})
	}
}

// TestBackendOptionsItCannotKeep: an index backend holds one text field,
// so Options.ContextWeight (a separate context field) is refused at Open,
// naming the field; a backend built with other BM25 settings is refused
// too.
func TestBackendOptionsItCannotKeep(t *testing.T) {
	ctx := context.Background()
	store := newSQLiteStore(t)
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.ContextWeight = 0.5
	opts.Backend = newMemBackend()
	if e, err := situate.Open(ctx, "", store, opts); !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), "ContextWeight") {
		if e != nil {
			e.Close()
		}
		t.Errorf("ContextWeight over a backend: %v, want ErrInvalid naming ContextWeight", err)
	}

	b := newMemBackend()
	backendEngine(t, store, b, nil).Close()
	opts = situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.BM25K1 = 2
	opts.Backend = b.reopen()
	if e, err := situate.Open(ctx, "", store, opts); !errors.Is(err, situate.ErrInvalid) {
		if e != nil {
			e.Close()
		}
		t.Errorf("other BM25 settings over a backend built with the defaults: %v, want the backend's ErrInvalid", err)
	}
}

// TestBackendReaderLeavesTheBackendAlone: a reader over a backend searches
// it but repairs nothing (the backend is the writer's) and refuses writes.
func TestBackendReaderLeavesTheBackendAlone(t *testing.T) {
	ctx := context.Background()
	store := newSQLiteStore(t)
	b := newMemBackend()
	w := backendEngine(t, store, b, nil)
	for _, d := range []situate.Document{doc("a", "ferry at dawn"), doc("b", "ferry at dusk")} {
		if _, err := w.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if err := b.reopen().Delete(ctx, []string{"b"}); err != nil {
		t.Fatal(err)
	}
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.OpenMode = situate.OpenReader
	r := b.reopen()
	e := backendEngine(t, store, r, &opts)
	if ids := searchIDs(t, e, situate.Query{Text: "ferry", K: 5, Mode: situate.ModeBM25}); !slices.Equal(ids, []string{"a"}) {
		t.Errorf("reader search: %v, want [a] (what the backend holds)", ids)
	}
	if v, _ := r.Versions(ctx); len(v) != 1 {
		t.Errorf("a reader changed the backend: it holds %v", v)
	}
	if _, err := e.Put(ctx, doc("c", "ferry at noon")); !errors.Is(err, situate.ErrReadOnly) {
		t.Errorf("reader Put: %v, want ErrReadOnly", err)
	}
}

// nativeBackend is memBackend ranking by its own means (a NativeRanker,
// as Weaviate with Config.Native): SearchNative records each query and
// answers ranked, the order the backend's own ranking would give.
type nativeBackend struct {
	*memBackend
	ranked  []driver.BackendHit
	queries []driver.NativeQuery
}

func (n *nativeBackend) Native() bool { return true }

func (n *nativeBackend) SearchNative(_ context.Context, q driver.NativeQuery) ([]driver.BackendHit, error) {
	n.queries = append(n.queries, q)
	return n.ranked[:min(len(n.ranked), q.K)], nil
}

// TestBackendNativeRanking: over a NativeRanker that reports Native,
// Search hands it the query (its text, its embedding in hybrid mode, the
// mode, K, the filter and the arm weights) and returns its ranking as it
// is, with the stored text of each chunk, not situate's ranking.
func TestBackendNativeRanking(t *testing.T) {
	ctx := context.Background()
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.Embedder = &hashEmbedder{dim: 32}
	nb := &nativeBackend{memBackend: newMemBackend()}
	e := backendEngine(t, newSQLiteStore(t), nb, &opts)
	for _, d := range []situate.Document{doc("a", "ferry at dawn"), doc("b", "bakery bread"), doc("c", "ferry at dusk")} {
		if _, err := e.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	// The backend's own order puts the bakery first, which situate's
	// BM25 never would for "ferry".
	nb.ranked = []driver.BackendHit{{DocID: "b", Chunk: 0, Score: 0.9}, {DocID: "c", Chunk: 0, Score: 0.5}}
	f := situate.Filter{Principals: []string{"staff"}}
	hits := search(t, e, situate.Query{Text: "ferry", K: 2, Mode: situate.ModeHybrid, Filter: f})
	if len(hits) != 2 || hits[0].DocID != "b" || hits[1].DocID != "c" || hits[0].Text != "bakery bread" || hits[0].Score != 0.9 {
		t.Fatalf("native hits: %+v, want b (score 0.9, its stored text) then c", hits)
	}
	if len(nb.queries) != 1 {
		t.Fatalf("SearchNative called %d times, want 1", len(nb.queries))
	}
	q := nb.queries[0]
	if q.Text != "ferry" || q.Mode != situate.ModeHybrid || q.K < 2 || len(q.Vector) != 32 ||
		!slices.Equal(q.Filter.Principals, f.Principals) || q.DenseWeight != opts.DenseWeight || q.LexicalWeight != opts.LexicalWeight {
		t.Errorf("SearchNative got %+v", q)
	}
	// An explanation of a native ranking has no arms to show: an empty
	// list, never null (the API's schema requires the array).
	nb.queries = nil
	if x := search(t, e, situate.Query{Text: "ferry", K: 2, Mode: situate.ModeHybrid, Filter: f, Explain: true})[0].Explain; x == nil || x.Arms == nil || len(x.Arms) != 0 || x.FusedScore != 0.9 {
		t.Errorf("native explanation %+v, want no arms and the fused score 0.9", x)
	}
	nb.queries = nil
	search(t, e, situate.Query{Text: "ferry", K: 2, Mode: situate.ModeBM25})
	if len(nb.queries) != 1 || nb.queries[0].Vector != nil {
		t.Errorf("a bm25 search handed SearchNative %+v, want no vector (nothing embedded)", nb.queries)
	}
}

// TestBackendSharedStoreSync: engines over one shared store and one
// backend share the index; Sync brings a second engine's records to what
// the first wrote, so its hits carry the new title, a document added
// elsewhere is returned and one deleted elsewhere is not; over a store
// that lists its changes and one that does not.
func TestBackendSharedStoreSync(t *testing.T) {
	for name, store := range sharedStores(t) {
		t.Run(name, func(t *testing.T) { backendSharedStoreSync(t, store) })
	}
}

func backendSharedStoreSync(t *testing.T, store driver.Store) {
	ctx := context.Background()
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.SharedStore = true
	b := newMemBackend()
	w := backendEngine(t, store, b, &opts)
	a := doc("a", "ferry at dawn")
	a.Title = "Old title"
	if _, err := w.Put(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Put(ctx, doc("b", "ferry at dusk")); err != nil {
		t.Fatal(err)
	}
	r := backendEngine(t, store, b.reopen(), &opts)
	a.Title, a.Text = "New title", "ferry at dawn, and at noon"
	if _, err := w.Put(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := w.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	hits := search(t, r, situate.Query{Text: "ferry", K: 5, Mode: situate.ModeBM25})
	if len(hits) != 1 || hits[0].DocID != "a" || hits[0].Title != "New title" {
		t.Errorf("after Sync: %+v, want a with its new title only", hits)
	}
	if got := r.Documents(); len(got) != 1 || got[0].Title != "New title" {
		t.Errorf("records after Sync: %+v", got)
	}
	// A second round: a store that lists its changes is read from the
	// first Sync's stamp.
	a.Title = "Newest title"
	if _, err := w.Put(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Put(ctx, doc("c", "ferry at midnight")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	hits = search(t, r, situate.Query{Text: "ferry", K: 5, Mode: situate.ModeBM25})
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.DocID)
		if rec, err := r.Document(h.DocID); err != nil || h.DocID == "a" && (h.Title != "Newest title" || rec.Title != "Newest title") {
			t.Errorf("after the second Sync: hit %s titled %q, record %+v, %v", h.DocID, h.Title, rec, err)
		}
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"a", "c"}) {
		t.Errorf("after the second Sync: hits %v, want a and the new c", ids)
	}
}

// TestCloseTwice: closing an Engine a second time is a no-op, so an index
// backend (a client of a server other processes share) is closed once.
func TestCloseTwice(t *testing.T) {
	b := newMemBackend()
	e := backendEngine(t, newSQLiteStore(t), b, nil)
	if err := e.Close(); err != nil {
		t.Fatalf("first Close: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v, want nil (nothing left to close)", err)
	}
}
