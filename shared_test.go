package situate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/embedcache"
	"github.com/situate/situate/sqlite"
)

// changeLogStore is a SQLite store that lists its changes as the
// PostgreSQL store does (driver.ChangeLister: a counter bumped by every
// document write or deletion, and what changed after a count), so the
// root's tests run Sync's change-list path without a PostgreSQL server.
type changeLogStore struct {
	*sqlite.Store
	mu sync.Mutex
	n  int64
	// written and deleted map ids to the count of their last change.
	written, deleted map[string]int64
}

var _ driver.ChangeLister = (*changeLogStore)(nil)

func newChangeLogStore(s *sqlite.Store) *changeLogStore {
	return &changeLogStore{Store: s, written: map[string]int64{}, deleted: map[string]int64{}}
}

func (s *changeLogStore) wrote(id string) {
	s.n++
	s.written[id] = s.n
	delete(s.deleted, id)
}

func (s *changeLogStore) PutDocument(ctx context.Context, rec situate.DocumentRecord, chunks []situate.StoredChunk) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.Store.PutDocument(ctx, rec, chunks); err != nil {
		return err
	}
	s.wrote(rec.ID)
	return nil
}

func (s *changeLogStore) PutDocuments(ctx context.Context, puts []driver.DocumentPut) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.Store.PutDocuments(ctx, puts); err != nil {
		return err
	}
	for _, p := range puts {
		s.wrote(p.Record.ID)
	}
	return nil
}

func (s *changeLogStore) DeleteDocument(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.Store.DeleteDocument(ctx, id); err != nil {
		return err
	}
	s.n++
	s.deleted[id] = s.n
	delete(s.written, id)
	return nil
}

func (s *changeLogStore) ChangeStamp(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strconv.FormatInt(s.n, 10), nil
}

func (s *changeLogStore) DocumentChanges(ctx context.Context, since string) (driver.DocumentChanges, error) {
	var ch driver.DocumentChanges
	from, err := strconv.ParseInt(since, 10, 64)
	if err != nil {
		return ch, fmt.Errorf("document changes: stamp %q: %w", since, situate.ErrInvalid)
	}
	s.mu.Lock() // one snapshot: no write lands while the records are read
	defer s.mu.Unlock()
	for id, n := range s.written {
		if n > from {
			rec, err := s.Store.Document(ctx, id)
			if err != nil {
				return ch, err
			}
			ch.Written = append(ch.Written, rec)
		}
	}
	for id, n := range s.deleted {
		if n > from {
			ch.Deleted = append(ch.Deleted, id)
		}
	}
	slices.SortFunc(ch.Written, func(a, b situate.DocumentRecord) int { return strings.Compare(a.ID, b.ID) })
	slices.Sort(ch.Deleted)
	ch.Stamp = strconv.FormatInt(s.n, 10)
	return ch, nil
}

// sharedStores are the two kinds of shared store Sync reads: one it
// lists whole on every Sync, and one that lists its changes.
func sharedStores(t *testing.T) map[string]driver.Store {
	return map[string]driver.Store{
		"document-list": newSQLiteStore(t),
		"change-list":   newChangeLogStore(newSQLiteStore(t)),
	}
}

func sharedOpts() situate.Options {
	o := situate.DefaultOptions()
	o.Contextualizer = nil
	o.SharedStore = true
	return o
}

func openSharedEngine(t *testing.T, dir string, store driver.Store, opts situate.Options) *situate.Engine {
	t.Helper()
	e, err := situate.Open(context.Background(), dir, store, opts)
	if err != nil {
		t.Fatalf("open shared engine in %q: %v", dir, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func hitDocs(t *testing.T, e *situate.Engine, q string) []string {
	t.Helper()
	return searchIDs(t, e, situate.Query{Text: q, K: 10})
}

// TestSharedEnginesSync: engines sharing one store, each with its own
// local indexes (servers behind a load balancer), see each other's
// commits after Sync — added, changed, deleted — re-indexing only what
// changed; one closed meanwhile catches up when it opens; a damaged SYNC
// file rebuilds the local indexes from the store; a store-only worker
// writes without indexes and a reader builds its indexes in memory. Over
// a store that lists its changes and one that does not.
func TestSharedEnginesSync(t *testing.T) {
	t.Parallel() // its own stores and directories; waits on fsync, so it overlaps well
	for name, store := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dirA, dirB := t.TempDir(), t.TempDir()
			a := openSharedEngine(t, dirA, store, sharedOpts())
			b := openSharedEngine(t, dirB, store, sharedOpts())
			put := func(e *situate.Engine, id, text string) situate.Change {
				t.Helper()
				ch, err := e.Put(ctx, situate.Document{ID: id, Title: id, Text: text, Lang: "en"})
				if err != nil {
					t.Fatal(err)
				}
				return ch
			}
			put(a, "harbour", "The harbour master counts the ships at the tide.")
			put(a, "garden", "Roses and tulips grow in the walled garden.")
			if got := hitDocs(t, b, "harbour ships"); len(got) != 0 {
				t.Fatalf("b found %v before syncing", got)
			}
			res, err := b.Sync(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Indexed != 2 || res.Removed != 0 {
				t.Errorf("first sync: %+v, want 2 indexed", res)
			}
			if got := hitDocs(t, b, "harbour ships"); !slices.Equal(got, []string{"harbour"}) {
				t.Errorf("b after sync: %v", got)
			}
			// b changes a document a indexed: the version comes from the
			// store, not from b's memory; the same text again is unchanged.
			if ch := put(b, "harbour", "The lighthouse keeper watches the ships in the storm."); ch != situate.Updated {
				t.Errorf("b's update of a's document: %v, want updated", ch)
			}
			if rec, err := store.Document(ctx, "harbour"); err != nil || rec.Version != 2 {
				t.Errorf("stored version after b's update: %d, %v; want 2", rec.Version, err)
			}
			if ch := put(b, "harbour", "The lighthouse keeper watches the ships in the storm."); ch != situate.Unchanged {
				t.Errorf("the same text again: %v, want unchanged", ch)
			}
			if ch := put(a, "harbour", "The lighthouse keeper watches the ships in the storm."); ch != situate.Unchanged {
				t.Errorf("the same text again through a, which has not synced: %v, want unchanged (the store holds it)", ch)
			}
			if err := b.Delete(ctx, "garden"); err != nil {
				t.Fatal(err)
			}
			if res, err := b.Sync(ctx); err != nil || res != (situate.SyncResult{}) {
				t.Errorf("b's sync after its own commits: %+v %v, want nothing to do", res, err)
			}
			if res, err := a.Sync(ctx); err != nil || res.Indexed != 1 || res.Removed != 1 {
				t.Errorf("a's sync: %+v %v, want 1 indexed, 1 removed", res, err)
			}
			if got := hitDocs(t, a, "lighthouse storm"); !slices.Equal(got, []string{"harbour"}) {
				t.Errorf("a after sync: lighthouse %v", got)
			}
			if got := hitDocs(t, a, "tulips garden tide master"); len(got) != 0 {
				t.Errorf("a still finds the deleted garden or the old harbour: %v", got)
			}
			if rec, err := a.Document("harbour"); err != nil || rec.Version != 2 {
				t.Errorf("a's record: %+v %v", rec, err)
			}

			// a closes; a store-only worker writes meanwhile; a reopens
			// and has caught up.
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			wo := sharedOpts()
			wo.OpenMode = situate.OpenStoreOnly
			w := openSharedEngine(t, "", store, wo)
			put(w, "orchard", "Apples and pears ripen in the orchard in autumn.")
			if _, err := w.Search(ctx, situate.Query{Text: "apples"}); err == nil {
				t.Error("a store-only engine searched")
			}
			if res, err := w.Sync(ctx); err != nil || res != (situate.SyncResult{}) {
				t.Errorf("a store-only engine synced: %+v %v", res, err)
			}
			w.Close()
			a = openSharedEngine(t, dirA, store, sharedOpts())
			if res, err := a.Sync(ctx); err != nil || res != (situate.SyncResult{}) {
				t.Errorf("a second sync right after open: %+v %v, want nothing to do", res, err)
			}
			if got := hitDocs(t, a, "apples orchard lighthouse"); !slices.Equal(got, []string{"harbour", "orchard"}) {
				t.Errorf("a after reopening: %v", got)
			}
			// A damaged SYNC file rebuilds the local indexes from the store.
			a.Close()
			if err := os.WriteFile(filepath.Join(dirA, "SYNC"), []byte("{garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
			a = openSharedEngine(t, dirA, store, sharedOpts())
			if got := hitDocs(t, a, "apples lighthouse"); !slices.Equal(got, []string{"harbour", "orchard"}) {
				t.Errorf("a after a damaged SYNC file: %v", got)
			}
			// A reader of a shared store builds its indexes in memory.
			ro := sharedOpts()
			ro.OpenMode = situate.OpenReader
			r := openSharedEngine(t, dirB, store, ro)
			if got := hitDocs(t, r, "apples lighthouse"); !slices.Equal(got, []string{"harbour", "orchard"}) {
				t.Errorf("shared reader: %v", got)
			}
		})
	}
}

// TestSharedEnginesSyncVectors: shared engines with an embedder keep
// vectors in their local indexes too: Sync calls no model (the vectors
// come from the store's vector cache, through embedcache) yet dense search
// finds what another engine wrote and not what it deleted; a changed
// embedder rebuilds the local indexes from the store on Open.
func TestSharedEnginesSyncVectors(t *testing.T) {
	t.Parallel() // its own stores and directories; waits on fsync, so it overlaps well
	for name, store := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			opts := sharedOpts()
			cache := store.(driver.VectorCache)
			opts.Embedder = embedcache.New(&hashEmbedder{dim: 32}, cache)
			a := openSharedEngine(t, t.TempDir(), store, opts)
			dirB := t.TempDir()
			bEmb := &hashEmbedder{dim: 32}
			ob := opts
			ob.Embedder = embedcache.New(bEmb, cache)
			b := openSharedEngine(t, dirB, store, ob)
			for _, d := range []situate.Document{doc("ferry", "The ferry crosses the sound at dawn."), doc("bakery", "The bakery sells rye bread.")} {
				if _, err := a.Put(ctx, d); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Delete(ctx, "bakery"); err != nil {
				t.Fatal(err)
			}
			calls := bEmb.calls
			if _, err := b.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if bEmb.calls != calls {
				t.Errorf("Sync embedded %d times; the vectors are the store's", bEmb.calls-calls)
			}
			hits := search(t, b, situate.Query{Text: "ferry crosses the sound", K: 5, Mode: situate.ModeDense})
			if len(hits) != 1 || hits[0].DocID != "ferry" {
				t.Errorf("b's dense search after Sync: %v, want ferry only", hits)
			}
			b.Close()
			renamed := ob
			renamed.Embedder = &namedEmbedder{hashEmbedder: hashEmbedder{dim: 16}, name: "test:other"}
			b = openSharedEngine(t, dirB, store, renamed)
			hits = search(t, b, situate.Query{Text: "ferry crosses the sound", K: 5, Mode: situate.ModeDense})
			if len(hits) != 1 || hits[0].DocID != "ferry" {
				t.Errorf("dense search after a change of embedder: %v, want ferry (the vectors rebuilt)", hits)
			}
		})
	}
}

// TestSharedLocalIndexDamaged: a shared engine whose local index files
// are damaged or gone rebuilds them from the store on Open (they are
// derived data), and Check and Repair over the directory do the same.
func TestSharedLocalIndexDamaged(t *testing.T) {
	t.Parallel() // its own stores and directories; waits on fsync, so it overlaps well
	docs := []situate.Document{doc("harbour", "The harbour master counts the ships."), doc("garden", "Roses grow in the walled garden.")}
	setup := func(t *testing.T, store driver.Store, opts situate.Options) string {
		dir := t.TempDir()
		e := openSharedEngine(t, dir, store, opts)
		for _, d := range docs {
			if _, err := e.Put(context.Background(), d); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	damage := map[string]func(t *testing.T, dir string){
		"bm25 manifest flipped": func(t *testing.T, dir string) { flipByte(t, filepath.Join(dir, "bm25", "MANIFEST")) },
		"vector manifest flipped": func(t *testing.T, dir string) {
			flipByte(t, filepath.Join(dir, "vectors", "MANIFEST"))
		},
		"bm25 arm removed": func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "bm25")); err != nil {
				t.Fatal(err)
			}
		},
		"code arm removed": func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "bm25-code")); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, store := range sharedStores(t) {
		for how, hurt := range damage {
			if name == "change-list" && how != "bm25 arm removed" && how != "code arm removed" {
				continue // a damaged file is found the same way over either store
			}
			t.Run(name+"/"+how, func(t *testing.T) {
				opts := sharedOpts()
				opts.Embedder = &hashEmbedder{dim: 32}
				dir := setup(t, store, opts)
				hurt(t, dir)
				e := openSharedEngine(t, dir, store, opts)
				checkIndexed(t, e, "garden", "harbour")
				for _, mode := range []string{situate.ModeBM25, situate.ModeDense} {
					if got := searchIDs(t, e, situate.Query{Text: "harbour master ships", K: 1, Mode: mode}); !slices.Equal(got, []string{"harbour"}) {
						t.Errorf("%s search after the damage: %v, want harbour", mode, got)
					}
				}
				// The damaged arm holds the documents again, whichever it
				// was, not only the language arm.
				hits, err := e.Search(context.Background(), situate.Query{Text: "harbour master ships", K: 1, Mode: situate.ModeBM25, Explain: true})
				if err != nil || len(hits) == 0 {
					t.Fatalf("search: %v %v", hits, err)
				}
				for _, a := range hits[0].Explain.Arms {
					if (a.Arm == "bm25" || a.Arm == "bm25-code") && a.Rank != 1 {
						t.Errorf("after the damage the %s arm does not find the document: %+v", a.Arm, hits[0].Explain.Arms)
					}
				}
				e.Close()
				hurt(t, dir)
				r, err := situate.Repair(context.Background(), dir, store, opts)
				if err != nil || r.RepairErr != nil || !r.OK() {
					t.Errorf("Repair of the damaged shared directory: %+v, %v", r, err)
				}
			})
		}
	}
}

func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
