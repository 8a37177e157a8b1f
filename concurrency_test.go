package situate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

// Readers beside one writer. Every chunk names its document and version
// ("d07v3"), and chunking is deterministic, so a reader can tell whether a
// hit's text is exactly chunk i of a version of its document; the writer
// records the versions it committed. A result is consistent with some
// commit when each of its hits is.

// versionText is version v of document d: 2 to 9 sentences, each carrying
// the mark, a common word and a few rotating words.
func versionText(d, v int) string {
	var b strings.Builder
	words := strings.Fields("harbour lantern granary orchard quarry meadow tannery foundry")
	for s := range 2 + (d*7+v*3)%8 {
		fmt.Fprintf(&b, "d%dv%d common %s %s %s. ", d, v, words[(d+s)%len(words)], words[(v+s)%len(words)], words[(d*v+s)%len(words)])
	}
	return b.String()
}

func versionDoc(d, v int) situate.Document {
	return situate.Document{ID: fmt.Sprintf("d%d", d), Title: fmt.Sprintf("Doc %d", d), Text: versionText(d, v), Lang: "en"}
}

// concurrencyOptions are the engine's options in the concurrency tests:
// small chunks, so versions differ in their number of chunks.
func concurrencyOptions() situate.Options {
	o := situate.DefaultOptions()
	o.ChunkSize, o.ChunkOverlap = 24, 0
	return o
}

// versionChunks splits versions of documents, once each.
type versionChunks struct {
	splitter *situate.Engine
	cache    sync.Map // "d7v3" -> []situate.Chunk
	// latest[d] is the highest version of d the writer has begun.
	latest []atomic.Int64
}

func (vc *versionChunks) chunks(d, v int) []situate.Chunk {
	key := fmt.Sprintf("d%dv%d", d, v)
	if c, ok := vc.cache.Load(key); ok {
		return c.([]situate.Chunk)
	}
	c, err := vc.splitter.Split(versionDoc(d, v))
	if err != nil {
		panic(err)
	}
	vc.cache.Store(key, c)
	return c
}

// check returns the versions of the hit's document whose chunk Chunk is
// the hit's text ("d7v3"...); none means the hit is no chunk of any
// version begun.
func (vc *versionChunks) check(h situate.Hit) []string {
	d, err := strconv.Atoi(strings.TrimPrefix(h.DocID, "d"))
	if err != nil || d < 0 || d >= len(vc.latest) {
		return nil
	}
	var out []string
	for v := range int(vc.latest[d].Load()) + 1 {
		if c := vc.chunks(d, v); h.Chunk < len(c) && c[h.Chunk].Text == h.Text {
			out = append(out, fmt.Sprintf("d%dv%d", d, v))
		}
	}
	return out
}

// writerLoop indexes, re-indexes and removes documents until stop is
// closed, recording every version committed.
func writerLoop(t *testing.T, eng *situate.Engine, vc *versionChunks, stop <-chan struct{}, committed *sync.Map) (rounds int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	docs := len(vc.latest)
	version := make([]int, docs)
	for {
		select {
		case <-stop:
			return rounds
		default:
		}
		rounds++
		// Re-index a random half with a new version, in batches.
		var batch []*situate.Prepared
		var ids []string
		for d := range docs {
			if rng.IntN(2) == 0 {
				continue
			}
			version[d]++
			vc.latest[d].Store(int64(version[d]))
			p, err := eng.Prepare(ctx, versionDoc(d, version[d]))
			if err != nil {
				t.Error(err)
				return rounds
			}
			if p != nil {
				batch = append(batch, p)
				ids = append(ids, fmt.Sprintf("d%dv%d", d, version[d]))
			}
			if len(batch) == 8 {
				if _, err := eng.Commit(ctx, batch); err != nil {
					t.Error(err)
					return rounds
				}
				for _, id := range ids {
					committed.Store(id, true)
				}
				batch, ids = nil, nil
			}
		}
		if _, err := eng.Commit(ctx, batch); err != nil {
			t.Error(err)
			return rounds
		}
		for _, id := range ids {
			committed.Store(id, true)
		}
		// Remove a few.
		for range 3 {
			if err := eng.Delete(ctx, fmt.Sprintf("d%d", rng.IntN(docs))); err != nil {
				t.Error(err)
				return rounds
			}
		}
	}
}

// TestReadersBesideWriter: 8 readers search in a loop while a writer
// indexes, re-indexes and removes. Half of them open a read-only engine for
// every search (as a command does), half keep one open (as a server does).
// No search fails, and every hit is a chunk of a committed version.
func TestReadersBesideWriter(t *testing.T) {
	duration := 20 * time.Second
	if testing.Short() {
		duration = 2 * time.Second
	}
	if s := os.Getenv("SITUATE_CONCURRENCY_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SITUATE_CONCURRENCY_SECONDS=%q: %v", s, err)
		}
		duration = time.Duration(n) * time.Second
	}
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "situate.db")
	wstore, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer wstore.Close()
	writer, err := situate.Open(ctx, dir, wstore, concurrencyOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	const docs = 40
	var committed sync.Map
	var first []*situate.Prepared
	for d := range docs {
		p, err := writer.Prepare(ctx, versionDoc(d, 0))
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, p)
		committed.Store(fmt.Sprintf("d%dv0", d), true)
	}
	if _, err := writer.Commit(ctx, first); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var rounds int
	var wwg sync.WaitGroup
	vc := &versionChunks{splitter: writer, latest: make([]atomic.Int64, docs)}
	wwg.Go(func() { rounds = writerLoop(t, writer, vc, stop, &committed) })

	var (
		searches, hits, failures atomic.Int64
		seenMu                   sync.Mutex
		seen                     [][]string // per hit, the versions it may be of
		rwg                      sync.WaitGroup
	)
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
	}
	deadline := time.Now().Add(duration)
	for r := range 8 {
		rwg.Go(func() {
			store, err := sqlite.Open(ctx, dbPath)
			if err != nil {
				fail("reader %d: %v", r, err)
				return
			}
			defer store.Close()
			opts := concurrencyOptions()
			opts.OpenMode = situate.OpenReader
			var eng *situate.Engine
			queries := []string{"common", "harbour lantern", "granary", "quarry meadow foundry"}
			for i := 0; time.Now().Before(deadline); i++ {
				if eng == nil || r%2 == 0 {
					if eng != nil {
						eng.Close()
					}
					if eng, err = situate.Open(ctx, dir, store, opts); err != nil {
						fail("reader %d: open: %v", r, err)
						return
					}
				}
				res, err := eng.Search(ctx, situate.Query{Text: queries[i%len(queries)], K: 10})
				searches.Add(1)
				if err != nil {
					fail("reader %d: search: %v", r, err)
					continue
				}
				for _, h := range res {
					hits.Add(1)
					versions := vc.check(h)
					if len(versions) == 0 {
						fail("reader %d: hit %s#%d: text %q is no chunk of any version of its document", r, h.DocID, h.Chunk, h.Text)
						continue
					}
					seenMu.Lock()
					seen = append(seen, versions)
					seenMu.Unlock()
				}
			}
			if eng != nil {
				eng.Close()
			}
		})
	}
	rwg.Wait()
	close(stop)
	wwg.Wait()
	// Every version a reader saw was committed (or being committed when
	// the writer stopped: its Commit has returned by now).
	for _, versions := range seen {
		ok := false
		for _, v := range versions {
			_, c := committed.Load(v)
			ok = ok || c
		}
		if !ok {
			fail("a reader saw a chunk of %v, never committed", versions)
		}
	}
	t.Logf("%v: %d searches by 8 readers, %d hits checked, %d failures; writer ran %d rounds", duration, searches.Load(), hits.Load(), failures.Load(), rounds)
	if searches.Load() < 8 {
		t.Errorf("only %d searches ran", searches.Load())
	}
	if rounds < 1 {
		t.Errorf("writer finished no round")
	}
}

// deletedMeanwhile is a store whose document gone was deleted after the
// store was listed: its chunks are not found.
type deletedMeanwhile struct {
	*sqlite.Store
	gone string
}

func (s deletedMeanwhile) Chunks(ctx context.Context, id string) ([]situate.StoredChunk, error) {
	if id == s.gone {
		return nil, fmt.Errorf("sqlite chunks of %q: %w", id, situate.ErrNotFound)
	}
	return s.Store.Chunks(ctx, id)
}

// TestReaderOpensBesideADelete: a reader whose index lacks documents reads
// them from the store as it opens; one that its writer deleted between the
// reader's listing and its read is left out, and the reader opens
// (TestReadersBesideWriter once failed so: "repair index: sqlite chunks of
// "d22": not found").
func TestReaderOpensBesideADelete(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	w := ts.open(situate.DefaultOptions())
	for _, d := range []situate.Document{doc("a", "Windmill gears grind grain."), doc("b", "Windmill sails turn slowly.")} {
		if _, err := w.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	// The indexes are lost: the reader builds them from the store.
	for _, dir := range []string{"bm25", "bm25-code", "bm25-pairs", "bm25-defs"} {
		os.RemoveAll(filepath.Join(ts.dir, dir))
	}
	ropts := situate.DefaultOptions()
	ropts.OpenMode = situate.OpenReader
	reader, err := situate.Open(ctx, ts.dir, deletedMeanwhile{ts.store, "b"}, ropts)
	if err != nil {
		t.Fatalf("reader beside a delete: %v", err)
	}
	defer reader.Close()
	if got := searchIDs(t, reader, situate.Query{Text: "windmill"}); !slices.Equal(got, []string{"a"}) {
		t.Errorf("reader's search: %v, want [a]", got)
	}
}
