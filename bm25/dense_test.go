package bm25

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/situate/situate/analysis"
)

// denseCorpus is n docs where f0..f7 are in most docs (f7 a hundred or more
// times in some: no byte holds its frequency), r0..r99 each in about one
// doc in fifty, and every doc has its own word.
func denseCorpus(rng *rand.Rand, n int, prefix string) []textDoc {
	docs := make([]textDoc, n)
	for i := range docs {
		var sb strings.Builder
		fmt.Fprintf(&sb, "own%s%d", prefix, i)
		for range 10 + rng.Intn(30) {
			if rng.Intn(3) == 0 {
				fmt.Fprintf(&sb, " r%d", rng.Intn(100))
			} else {
				fmt.Fprintf(&sb, " f%d", rng.Intn(8))
			}
		}
		if i%500 == 7 {
			sb.WriteString(strings.Repeat(" f7", 300))
		}
		docs[i] = textDoc{fmt.Sprintf("%s%05d", prefix, i), sb.String()}
	}
	return docs
}

// indexTextDocs commits docs to ix in one batch: one segment.
func indexTextDocs(t *testing.T, ix *Index, docs []textDoc) {
	t.Helper()
	var b Batch
	for _, d := range docs {
		b.Replace(d.id, []Doc{{ID: d.id, Fields: map[string]string{"text": d.text}}})
	}
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
}

// denseState sums the dense tables of a snapshot's segments.
func denseState(ix *Index) (tables int, bytes int64) {
	s := ix.snap.Load()
	for i := range s.segs {
		t := &s.segs[i].seg.dense
		t.mu.Lock()
		for _, dt := range t.terms {
			if dt.tf != nil {
				tables++
			}
		}
		bytes += t.bytes
		t.mu.Unlock()
	}
	return tables, bytes
}

// TestDenseFrequenciesMatchExhaustive checks that searches which read the
// frequencies of frequent terms from dense tables return exactly what
// exhaustive scoring does, that the tables are built only for terms asked
// for repeatedly in large segments and within the budget, and that a
// merged-away segment gives its bytes back.
func TestDenseFrequenciesMatchExhaustive(t *testing.T) {
	a, err := analysis.New("standard")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	big := denseCorpus(rng, denseMinDocs+1500, "a")
	small := denseCorpus(rng, 300, "b")
	var queries []string
	for i := range 40 {
		// A rare word first: enough candidates for the frequent ones to
		// be left to refine.
		queries = append(queries, fmt.Sprintf("r%d f%d f%d", i%100, i%8, (i+3)%8), fmt.Sprintf("r%d r%d f7 f%d", i, i+1, i%7))
	}
	check := func(ix *Index, live []textDoc, rounds int) {
		t.Helper()
		ref := newReference(a, live, DefaultK1, DefaultB)
		want := map[string][]Result{}
		for _, q := range queries {
			want[q] = ref.search(q, 150)
		}
		for round := range rounds {
			for _, q := range queries {
				for _, k := range []int{10, 150} {
					got, err := ix.Search(Query{Text: q, K: k})
					if err != nil {
						t.Fatal(err)
					}
					sameResults(t, fmt.Sprintf("round %d: %q k=%d", round, q, k), got, want[q][:min(k, len(want[q]))])
				}
			}
		}
	}

	ix, err := New(Options{Analyzer: "standard", MergeFactor: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	indexTextDocs(t, ix, big)
	indexTextDocs(t, ix, small) // a second, small segment: no tables
	if n := ix.Stats().Segments; n != 2 {
		t.Fatalf("%d segments, want 2", n)
	}
	check(ix, append(append([]textDoc{}, big...), small...), denseWarmUses+2)
	tables, bytes := denseState(ix)
	// f0..f6 each get a table in the big segment; f7 (frequencies over
	// 255) and the rare words do not, nor anything in the small one.
	if tables != 7 || bytes != int64(7*len(big)) {
		t.Errorf("%d tables of %d bytes, want 7 of %d", tables, bytes, 7*len(big))
	}
	if used := ix.dense.used.Load(); used != bytes {
		t.Errorf("budget charged %d bytes, the tables hold %d", used, bytes)
	}

	// Deleting docs leaves the tables valid: deleted docs are never
	// candidates.
	var b Batch
	var live []textDoc
	for i, d := range append(append([]textDoc{}, big...), small...) {
		if i%5 == 0 {
			b.Delete(d.id)
		} else {
			live = append(live, d)
		}
	}
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
	// With a fifth deleted the big segment stays; check before a merge.
	check(ix, live, 2)

	// A third small segment makes MergeFactor 2 merge: the old big segment
	// leaves the index and gives its bytes back; the merged one starts
	// without tables.
	extra := denseCorpus(rng, 300, "c")
	indexTextDocs(t, ix, extra)
	live = append(live, extra...)
	if _, bytes := denseState(ix); ix.dense.used.Load() != bytes {
		t.Errorf("after a merge the budget is charged %d bytes, the live segments' tables hold %d", ix.dense.used.Load(), bytes)
	}
	check(ix, live, denseWarmUses+1)
	if tables, bytes := denseState(ix); tables == 0 || ix.dense.used.Load() != bytes {
		t.Errorf("after a merge and more searches: %d tables of %d bytes, budget charged %d", tables, bytes, ix.dense.used.Load())
	}

	t.Run("budget", func(t *testing.T) {
		for _, c := range []struct {
			bytes      int64
			wantTables int
		}{{-1, 0}, {int64(len(big)), 1}, {int64(3*len(big) - 1), 2}} {
			ix, err := New(Options{Analyzer: "standard", DenseBytes: c.bytes})
			if err != nil {
				t.Fatal(err)
			}
			indexTextDocs(t, ix, big)
			check(ix, big, denseWarmUses+1)
			if tables, bytes := denseState(ix); tables != c.wantTables || ix.dense.used.Load() != bytes || bytes > max(c.bytes, 0) {
				t.Errorf("DenseBytes %d: %d tables of %d bytes (budget charged %d), want %d tables", c.bytes, tables, bytes, ix.dense.used.Load(), c.wantTables)
			}
			ix.Close()
		}
	})
}

// TestDenseConcurrentSearches runs the same searches from several
// goroutines while the tables and filters are being built (run it with
// -race): every search returns what the first, sequential one did.
func TestDenseConcurrentSearches(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	docs := denseCorpus(rng, denseMinDocs+500, "a")
	ix, err := New(Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	indexTextDocs(t, ix, docs)
	var queries []string
	for i := range 30 {
		queries = append(queries, fmt.Sprintf("r%d f%d f%d absent%d", i%100, i%8, (i+5)%8, i))
	}
	// Searched once each, sequentially: fewer uses than a table needs.
	want := map[string]string{}
	for _, q := range queries {
		res, err := ix.Search(Query{Text: q, K: 150})
		if err != nil {
			t.Fatal(err)
		}
		want[q] = fmt.Sprint(res)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for round := range 4 {
				for i := range queries {
					q := queries[(i+w)%len(queries)]
					res, err := ix.Search(Query{Text: q, K: 150})
					if err == nil && fmt.Sprint(res) != want[q] {
						err = fmt.Errorf("worker %d round %d: %q: results differ from the sequential search", w, round, q)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if tables, _ := denseState(ix); tables == 0 {
		t.Fatal("no dense table was built: the concurrent build went untested")
	}
}
