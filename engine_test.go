package situate_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

// Root-package tests of the Engine's own behaviour: Put, Commit, Delete,
// pruning, repair after a crash and convergence of every index to the
// store, read-only opens, the writer lock. No command line involved.

// logBuffer is a slog logger into a buffer, safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testStore is a store directory: the SQLite file and the index directory.
type testStore struct {
	t     *testing.T
	dir   string
	store *sqlite.Store
}

func newTestStore(t *testing.T) *testStore {
	t.Helper()
	ts := &testStore{t: t, dir: t.TempDir()}
	ts.reopenStore()
	return ts
}

func (ts *testStore) reopenStore() {
	ts.t.Helper()
	if ts.store != nil {
		ts.store.Close()
	}
	s, err := sqlite.Open(context.Background(), filepath.Join(ts.dir, "situate.db"))
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.store = s
	ts.t.Cleanup(func() { s.Close() })
}

func (ts *testStore) open(opts situate.Options) *situate.Engine {
	ts.t.Helper()
	eng, err := situate.Open(context.Background(), ts.dir, ts.store, opts)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { eng.Close() })
	return eng
}

func doc(id, text string) situate.Document {
	return situate.Document{ID: id, Title: strings.ToUpper(id), Text: text, Lang: "en"}
}

// indexed returns what every index holds, failing unless each equals want.
func checkIndexed(t *testing.T, eng *situate.Engine, want ...string) {
	t.Helper()
	slices.Sort(want)
	got, err := eng.IndexedDocuments()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("no index reported")
	}
	for name, ids := range got {
		if !slices.Equal(ids, want) && !(len(ids) == 0 && len(want) == 0) {
			t.Errorf("index %s holds %v, want %v", name, ids, want)
		}
	}
}

func searchIDs(t *testing.T, eng *situate.Engine, q situate.Query) []string {
	t.Helper()
	hits, err := eng.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	var ids []string
	for _, h := range hits {
		if !slices.Contains(ids, h.DocID) {
			ids = append(ids, h.DocID)
		}
	}
	slices.Sort(ids)
	return ids
}

func TestPutChanges(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	eng := ts.open(situate.DefaultOptions())
	for _, step := range []struct {
		doc     situate.Document
		want    situate.Change
		version int
	}{
		{doc("a", "The river ferry runs at dawn."), situate.Added, 1},
		{doc("a", "The river ferry runs at dawn."), situate.Unchanged, 1},
		{doc("a", "The river ferry runs at dusk."), situate.Updated, 2},
		{doc("b", "Stone bridges span the river."), situate.Added, 1},
		{doc("a", "The river ferry runs at dusk."), situate.Unchanged, 2},
	} {
		got, err := eng.Put(ctx, step.doc)
		if err != nil {
			t.Fatal(err)
		}
		if got != step.want {
			t.Errorf("put %s %q: %v, want %v", step.doc.ID, step.doc.Text, got, step.want)
		}
		rec, err := eng.Document(step.doc.ID)
		if err != nil || rec.Version != step.version {
			t.Errorf("put %s: record %+v %v, want version %d", step.doc.ID, rec, err, step.version)
		}
	}
	if got := searchIDs(t, eng, situate.Query{Text: "dawn"}); len(got) != 0 {
		t.Errorf("old version still found: %v", got)
	}
	if got := searchIDs(t, eng, situate.Query{Text: "dusk"}); !slices.Equal(got, []string{"a"}) {
		t.Errorf("new version: %v", got)
	}
	if _, err := eng.Put(ctx, situate.Document{Text: "no id"}); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("empty id: %v, want ErrInvalid", err)
	}
	checkIndexed(t, eng, "a", "b")
}

func TestCommitBatch(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	eng := ts.open(situate.DefaultOptions())
	var batch []*situate.Prepared
	for i, text := range []string{"lamp oil", "lamp wick", "clock spring"} {
		p, err := eng.Prepare(ctx, doc(fmt.Sprintf("d%d", i), text))
		if err != nil || p == nil {
			t.Fatalf("prepare: %v %v", p, err)
		}
		batch = append(batch, p)
	}
	// The same document twice in one batch: the second is an update.
	p, err := eng.Prepare(ctx, doc("d0", "lamp oil and glass"))
	if err != nil {
		t.Fatal(err)
	}
	batch = append(batch, p)
	changes, err := eng.Commit(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if want := []situate.Change{situate.Added, situate.Added, situate.Added, situate.Updated}; !slices.Equal(changes, want) {
		t.Errorf("changes %v, want %v", changes, want)
	}
	if got := searchIDs(t, eng, situate.Query{Text: "lamp", K: 10}); !slices.Equal(got, []string{"d0", "d1"}) {
		t.Errorf("lamp: %v", got)
	}
	if got := searchIDs(t, eng, situate.Query{Text: "glass"}); !slices.Equal(got, []string{"d0"}) {
		t.Errorf("glass: %v", got)
	}
	if p, err := eng.Prepare(ctx, doc("d1", "lamp wick")); p != nil || err != nil {
		t.Errorf("unchanged document prepared again: %v %v", p, err)
	}
	checkIndexed(t, eng, "d0", "d1", "d2")
}

func TestDeleteAndPrune(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	opts := situate.DefaultOptions()
	opts.Embedder = &hashEmbedder{dim: 16}
	eng := ts.open(opts)
	for _, id := range []string{"keep-1", "keep-2", "gone-1", "gone-2"} {
		if _, err := eng.Put(ctx, doc(id, "harbour "+id)); err != nil {
			t.Fatal(err)
		}
	}
	// Pruning: every document whose source is no longer there is deleted.
	present := map[string]bool{"keep-1": true, "keep-2": true}
	for _, rec := range eng.Documents() {
		if !present[rec.ID] {
			if err := eng.Delete(ctx, rec.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := eng.Delete(ctx, "never-there"); err != nil {
		t.Errorf("deleting an unknown document: %v", err)
	}
	for _, mode := range []string{situate.ModeBM25, situate.ModeDense, situate.ModeHybrid} {
		if got := searchIDs(t, eng, situate.Query{Text: "harbour", K: 10, Mode: mode}); !slices.Equal(got, []string{"keep-1", "keep-2"}) {
			t.Errorf("%s after prune: %v", mode, got)
		}
	}
	if _, err := eng.Document("gone-1"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("deleted record: %v", err)
	}
	if _, err := ts.store.Document(ctx, "gone-2"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("deleted from the store: %v", err)
	}
	checkIndexed(t, eng, "keep-1", "keep-2")
}

// TestOpenConverges: whatever the indexes hold, a writer's Open leaves
// every one of them holding exactly the store's documents, processes the
// journal, and says once what it repaired.
func TestOpenConverges(t *testing.T) {
	ctx := context.Background()
	texts := map[string]string{"a": "ferry at dawn", "b": "bakery ovens", "c": "clock tower", "d": "ferry tickets"}
	for _, tc := range []struct {
		name string
		// damage acts on the closed store (ts) behind the engine's back.
		damage func(t *testing.T, ts *testStore)
		want   []string
		logs   string // "" when nothing is to be said
	}{
		{"nothing", func(*testing.T, *testStore) {}, []string{"a", "b", "c", "d"}, ""},
		{"store lost documents", func(t *testing.T, ts *testStore) {
			for _, id := range []string{"b", "d"} {
				if err := ts.store.DeleteDocument(ctx, id); err != nil {
					t.Fatal(err)
				}
			}
		}, []string{"a", "c"}, "removed 2"},
		{"interrupted rm (journal)", func(t *testing.T, ts *testStore) {
			// Killed after the store commit, before the index commit.
			if err := ts.store.SetMeta(ctx, "engine.pending", `["d"]`); err != nil {
				t.Fatal(err)
			}
			if err := ts.store.DeleteDocument(ctx, "d"); err != nil {
				t.Fatal(err)
			}
		}, []string{"a", "b", "c"}, "removed 1"},
		{"interrupted update (journal)", func(t *testing.T, ts *testStore) {
			if err := ts.store.SetMeta(ctx, "engine.pending", `["c"]`); err != nil {
				t.Fatal(err)
			}
			rec, err := ts.store.Document(ctx, "c")
			if err != nil {
				t.Fatal(err)
			}
			rec.Version++
			rec.Hash = "changed"
			if err := ts.store.PutDocument(ctx, rec, []situate.StoredChunk{{Chunk: situate.Chunk{DocID: "c", Text: "clock chimes", End: 12}}}); err != nil {
				t.Fatal(err)
			}
		}, []string{"a", "b", "c", "d"}, "re-indexed 1"},
		{"journal and a lost index directory", func(t *testing.T, ts *testStore) {
			// Before, a rebuild skipped the journal: both at once.
			if err := ts.store.SetMeta(ctx, "engine.pending", `["a"]`); err != nil {
				t.Fatal(err)
			}
			if err := ts.store.DeleteDocument(ctx, "a"); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(filepath.Join(ts.dir, "bm25-code")); err != nil {
				t.Fatal(err)
			}
		}, []string{"b", "c", "d"}, "added 3"},
		{"lost index directories", func(t *testing.T, ts *testStore) {
			for _, d := range []string{"bm25", "vectors"} {
				if err := os.RemoveAll(filepath.Join(ts.dir, d)); err != nil {
					t.Fatal(err)
				}
			}
		}, []string{"a", "b", "c", "d"}, "added 4"},
		{"database replaced", func(t *testing.T, ts *testStore) {
			// situate.db deleted and the store dir indexed again.
			ts.store.Close()
			ts.store = nil
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(filepath.Join(ts.dir, "situate.db"+suffix))
			}
			ts.reopenStore()
		}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestStore(t)
			opts := situate.DefaultOptions()
			opts.Embedder = &hashEmbedder{dim: 16}
			eng := ts.open(opts)
			for id, text := range texts {
				if _, err := eng.Put(ctx, doc(id, text)); err != nil {
					t.Fatal(err)
				}
			}
			eng.Close()
			tc.damage(t, ts)
			var logs logBuffer
			opts.Logger = logs.logger()
			eng = ts.open(opts)
			checkIndexed(t, eng, tc.want...)
			warned := strings.Count(logs.String(), "level=WARN")
			switch {
			case tc.logs == "" && warned > 0:
				t.Errorf("nothing to repair, but logged:\n%s", logs.String())
			case tc.logs != "" && (warned != 1 || !strings.Contains(logs.String(), tc.logs)):
				t.Errorf("want one warning saying %q, logged:\n%s", tc.logs, logs.String())
			}
			if v, _, _ := ts.store.Meta(ctx, "engine.pending"); v != "" && v != "[]" {
				t.Errorf("journal left %s", v)
			}
			// Every query works, and finds only stored documents.
			for _, mode := range []string{situate.ModeBM25, situate.ModeDense, situate.ModeHybrid} {
				got := searchIDs(t, eng, situate.Query{Text: "ferry clock bakery chimes", K: 10, Mode: mode})
				for _, id := range got {
					if !slices.Contains(tc.want, id) {
						t.Errorf("%s: found %s, which the store does not hold", mode, id)
					}
				}
			}
			// A second Open has nothing left to repair.
			eng.Close()
			var again logBuffer
			opts.Logger = again.logger()
			eng = ts.open(opts)
			if strings.Contains(again.String(), "level=WARN") || strings.Contains(again.String(), "level=INFO") {
				t.Errorf("second open still repairing:\n%s", again.String())
			}
			// Indexing again into the same directory works.
			if _, err := eng.Put(ctx, doc("e", "ferry timetable")); err != nil {
				t.Fatal(err)
			}
			checkIndexed(t, eng, append(slices.Clone(tc.want), "e")...)
			if got := searchIDs(t, eng, situate.Query{Text: "ferry", K: 10}); !slices.Contains(got, "e") {
				t.Errorf("new document not found: %v", got)
			}
		})
	}
}

// TestSearchSkipsDocumentsTheStoreLacks: an index holding a document the
// store does not (a reader beside a writer, or a crash) never fails a query.
func TestSearchSkipsDocumentsTheStoreLacks(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	eng := ts.open(situate.DefaultOptions())
	for _, id := range []string{"a", "b", "c"} {
		if _, err := eng.Put(ctx, doc(id, "lighthouse keeper "+id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ts.store.DeleteDocument(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Search(ctx, situate.Query{Text: "lighthouse", K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].DocID == "b" || hits[1].DocID == "b" {
		t.Fatalf("want the 2 stored documents, got %+v", hits)
	}
}

func TestCorruptIndexRebuilt(t *testing.T) {
	ctx := context.Background()
	for _, arm := range []string{"bm25", "bm25-pairs", "vectors"} {
		t.Run(arm, func(t *testing.T) {
			ts := newTestStore(t)
			opts := situate.DefaultOptions()
			opts.Embedder = &hashEmbedder{dim: 16}
			eng := ts.open(opts)
			for _, id := range []string{"a", "b"} {
				if _, err := eng.Put(ctx, doc(id, "granary "+id)); err != nil {
					t.Fatal(err)
				}
			}
			eng.Close()
			segs, _ := filepath.Glob(filepath.Join(ts.dir, arm, "seg-*"))
			if len(segs) == 0 {
				t.Fatalf("no segment in %s", arm)
			}
			for _, s := range segs {
				b, err := os.ReadFile(s)
				if err != nil {
					t.Fatal(err)
				}
				for i := len(b) / 3; i < len(b)/3+8; i++ {
					b[i] ^= 0xff
				}
				if err := os.WriteFile(s, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A reader searches an in-memory rebuild and says which file.
			var rlogs logBuffer
			ropts := opts
			ropts.OpenMode, ropts.Logger = situate.OpenReader, rlogs.logger()
			reader := ts.open(ropts)
			if got := searchIDs(t, reader, situate.Query{Text: "granary", K: 5}); !slices.Equal(got, []string{"a", "b"}) {
				t.Errorf("reader over a damaged %s: %v", arm, got)
			}
			if !strings.Contains(rlogs.String(), "situate check") || !strings.Contains(rlogs.String(), filepath.Join(ts.dir, arm)) {
				t.Errorf("reader's warning does not name the file and situate check:\n%s", rlogs.String())
			}
			reader.Close()
			// A writer rebuilds it on disk, saying so once.
			var logs logBuffer
			opts.Logger = logs.logger()
			eng = ts.open(opts)
			if n := strings.Count(logs.String(), "index damaged"); n != 1 {
				t.Errorf("want one line saying the index was damaged, got:\n%s", logs.String())
			}
			checkIndexed(t, eng, "a", "b")
			if got := searchIDs(t, eng, situate.Query{Text: "granary", K: 5}); !slices.Equal(got, []string{"a", "b"}) {
				t.Errorf("after the rebuild: %v", got)
			}
		})
	}
}

func TestWriterLock(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	eng := ts.open(situate.DefaultOptions())
	if _, err := eng.Put(ctx, doc("a", "windmill sails")); err != nil {
		t.Fatal(err)
	}
	opts := situate.DefaultOptions()
	opts.LockWait = 100 * time.Millisecond
	start := time.Now()
	_, err := situate.Open(ctx, ts.dir, ts.store, opts)
	if !errors.Is(err, situate.ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second writer: %v, want ErrLocked naming this process", err)
	}
	if waited := time.Since(start); waited < opts.LockWait {
		t.Errorf("gave up after %v, before LockWait %v", waited, opts.LockWait)
	}
	// Readers are never refused, and see the last commit.
	ropts := situate.DefaultOptions()
	ropts.OpenMode = situate.OpenReader
	reader := ts.open(ropts)
	if got := searchIDs(t, reader, situate.Query{Text: "windmill"}); !slices.Equal(got, []string{"a"}) {
		t.Errorf("reader beside the writer: %v", got)
	}
	if _, err := reader.Put(ctx, doc("b", "x")); !errors.Is(err, situate.ErrReadOnly) {
		t.Errorf("reader Put: %v, want ErrReadOnly", err)
	}
	if err := reader.Delete(ctx, "a"); !errors.Is(err, situate.ErrReadOnly) {
		t.Errorf("reader Delete: %v, want ErrReadOnly", err)
	}
	// Once the writer closes, the next one gets in.
	eng.Close()
	w2, err := situate.Open(ctx, ts.dir, ts.store, opts)
	if err != nil {
		t.Fatalf("writer after the first closed: %v", err)
	}
	w2.Close()
}

func chmodTree(t *testing.T, dir string, writable bool) {
	t.Helper()
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		mode := info.Mode().Perm() &^ 0o222
		if writable {
			mode |= 0o200
		}
		return os.Chmod(path, mode)
	})
}

// TestReaderBuildsInMemory: a reader never writes, so an index it cannot
// trust (another layout, another embedder, documents missing) is searched
// from an in-memory build, with a warning saying how to repair it.
func TestReaderBuildsInMemory(t *testing.T) {
	ctx := context.Background()
	// Options that index another way than the indexes on disk are refused
	// by a reader, saying so: building the index in memory would cost a
	// whole indexing run on every search.
	for _, tc := range []struct {
		name   string
		change func(o *situate.Options)
		says   string
	}{
		{"layout", func(o *situate.Options) { o.ContextWeight = 0.5 }, "index layout changed"},
		{"arm off on disk", func(o *situate.Options) { o.PairArmWeight = 0.7 }, "not kept up to date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestStore(t)
			opts := situate.DefaultOptions()
			opts.PairArmWeight = 0
			eng := ts.open(opts)
			for _, id := range []string{"a", "b", "c"} {
				if _, err := eng.Put(ctx, doc(id, "quarry stone "+id)); err != nil {
					t.Fatal(err)
				}
			}
			eng.Close()
			before := treeState(t, ts.dir)
			tc.change(&opts)
			opts.OpenMode = situate.OpenReader
			r, err := situate.Open(ctx, ts.dir, ts.store, opts)
			if err == nil {
				r.Close()
				t.Fatal("a reader opened indexes built another way")
			}
			if !errors.Is(err, situate.ErrNeedsRebuild) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "situate index") {
				t.Errorf("error %q: want ErrNeedsRebuild saying %q and what to run", err, tc.says)
			}
			if after := treeState(t, ts.dir); after != before {
				t.Errorf("the reader wrote:\nbefore %s\nafter  %s", before, after)
			}
		})
	}

	// The rest are built in memory, with a warning.
	for _, tc := range []struct {
		name   string
		change func(ts *testStore, o *situate.Options)
		warn   string
	}{
		{"embedder", func(_ *testStore, o *situate.Options) {
			o.Embedder = &namedEmbedder{hashEmbedder{dim: 16}, "test:other"}
		}, "made by embedder"},
		{"lost documents", func(ts *testStore, _ *situate.Options) {
			os.RemoveAll(filepath.Join(ts.dir, "bm25"))
		}, "does not hold every stored document"},
		{"lost vectors", func(ts *testStore, _ *situate.Options) {
			os.RemoveAll(filepath.Join(ts.dir, "vectors"))
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestStore(t)
			opts := situate.DefaultOptions()
			opts.PairArmWeight = 0
			opts.Embedder = &hashEmbedder{dim: 16}
			eng := ts.open(opts)
			for _, id := range []string{"a", "b", "c"} {
				if _, err := eng.Put(ctx, doc(id, "quarry stone "+id)); err != nil {
					t.Fatal(err)
				}
			}
			eng.Close()
			before := treeState(t, ts.dir)
			tc.change(ts, &opts)
			var logs logBuffer
			opts.OpenMode, opts.Logger = situate.OpenReader, logs.logger()
			reader := ts.open(opts)
			for _, mode := range []string{situate.ModeBM25, situate.ModeDense} {
				if got := searchIDs(t, reader, situate.Query{Text: "quarry stone", K: 10, Mode: mode}); !slices.Equal(got, []string{"a", "b", "c"}) {
					t.Errorf("%s: %v", mode, got)
				}
			}
			if tc.warn != "" && !strings.Contains(logs.String(), tc.warn) {
				t.Errorf("want a warning saying %q, logged:\n%s", tc.warn, logs.String())
			}
			checkIndexed(t, reader, "a", "b", "c")
			reader.Close()
			if tc.name != "lost documents" && tc.name != "lost vectors" {
				if after := treeState(t, ts.dir); after != before {
					t.Errorf("the reader wrote:\nbefore %s\nafter  %s", before, after)
				}
			}
		})
	}
}

type namedEmbedder struct {
	hashEmbedder
	name string
}

func (n *namedEmbedder) Name() string { return n.name }

// TestReaderSeesLaterCommits: a long-lived read-only Engine (a server, an
// MCP session) searches each new commit of the writer, not the one it
// opened.
func TestReaderSeesLaterCommits(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	opts := situate.DefaultOptions()
	opts.Embedder = &hashEmbedder{dim: 16}
	writer := ts.open(opts)
	if _, err := writer.Put(ctx, doc("a", "canal lock keeper")); err != nil {
		t.Fatal(err)
	}
	ropts := opts
	ropts.OpenMode = situate.OpenReader
	reader := ts.open(ropts)
	for _, step := range []struct {
		do   func() error
		want []string
	}{
		{func() error { return nil }, []string{"a"}},
		{func() error { _, err := writer.Put(ctx, doc("b", "canal barge")); return err }, []string{"a", "b"}},
		{func() error { return writer.Delete(ctx, "a") }, []string{"b"}},
		{func() error { _, err := writer.Put(ctx, doc("b", "river barge")); return err }, nil},
	} {
		if err := step.do(); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{situate.ModeBM25, situate.ModeDense} {
			got := searchIDs(t, reader, situate.Query{Text: "canal", K: 10, Mode: mode})
			if mode == situate.ModeDense {
				// The dense arm ranks every document; check the documents only.
				got = slices.DeleteFunc(got, func(id string) bool { return id == "b" && step.want == nil })
			}
			if !slices.Equal(got, step.want) {
				t.Errorf("%s: reader found %v, want %v", mode, got, step.want)
			}
		}
		want := step.want
		if want == nil {
			want = []string{"b"}
		}
		checkIndexed(t, reader, want...)
	}
}
