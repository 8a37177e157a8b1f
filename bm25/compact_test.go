package bm25

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCompact builds an index of several segments with deleted docs, then
// checks that Compact leaves one segment without them, on disk too, and
// that every search returns the same ids and scores as before, also after
// a reopen; that writes after it replace as before; that compacting an
// index of one clean segment rewrites nothing; and that a read-only index
// refuses.
func TestCompact(t *testing.T) {
	for _, persistent := range []bool{true, false} {
		t.Run(fmt.Sprintf("persistent=%v", persistent), func(t *testing.T) {
			dir := ""
			opts := Options{Analyzer: "english", MergeFactor: 100}
			var ix *Index
			var err error
			if persistent {
				dir = t.TempDir()
				ix, err = Open(dir, opts)
			} else {
				ix, err = New(opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer func() { ix.Close() }()
			rng := rand.New(rand.NewPCG(7, 8))
			words := []string{"river", "stone", "bridge", "lamp", "harbour", "field", "tower", "garden", "quay", "mill"}
			text := func() string {
				var s string
				for range 2 + rng.IntN(8) {
					s += words[rng.IntN(len(words))] + " "
				}
				return s
			}
			for c := range 5 { // five commits: five segments, later ones replacing groups of earlier ones
				var b Batch
				for i := range 200 {
					g := fmt.Sprintf("doc%03d", rng.IntN(3000))
					b.Replace(g, []Doc{{ID: fmt.Sprintf("%s#%d-%d", g, c, i), Fields: map[string]string{"text": text()}}})
				}
				if c == 4 {
					b.Delete("doc001")
				}
				if err := ix.Apply(&b); err != nil {
					t.Fatal(err)
				}
			}
			before := ix.Stats()
			s := ix.snap.Load()
			deleted := 0
			for i := range s.segs {
				deleted += s.segs[i].delCount
			}
			if before.Segments < 5 || deleted == 0 {
				t.Fatalf("%d segments, %d deleted docs: the test needs several segments and deletions", before.Segments, deleted)
			}

			queries := []string{"river", "stone bridge", "lamp harbour field", "tower garden river stone", "quay mill mill", "zeppelin"}
			search := func() [][]Result {
				var out [][]Result
				for _, k := range []int{1, 10, 1000} {
					for _, q := range queries {
						res, err := ix.Search(Query{Text: q, K: k})
						if err != nil {
							t.Fatal(err)
						}
						out = append(out, res)
					}
				}
				return out
			}
			check := func(when string, want [][]Result) {
				t.Helper()
				got := search()
				for i := range want {
					if !slices.Equal(got[i], want[i]) {
						t.Fatalf("%s, search %d: results differ:\n got %v\nwant %v", when, i, got[i], want[i])
					}
				}
			}
			want := search()

			if err := ix.Compact(); err != nil {
				t.Fatal(err)
			}
			after := ix.Stats()
			if after.Segments != 1 || after.Docs != before.Docs || after.Groups != before.Groups {
				t.Fatalf("after Compact: %d segments, %d docs, %d groups; want 1, %d, %d", after.Segments, after.Docs, after.Groups, before.Docs, before.Groups)
			}
			if s := ix.snap.Load(); s.segs[0].delCount != 0 || s.segs[0].seg.numDocs != before.Docs {
				t.Fatalf("the compacted segment has %d docs, %d deleted; want %d, none deleted", s.segs[0].seg.numDocs, s.segs[0].delCount, before.Docs)
			}
			check("after Compact", want)
			if persistent {
				segFiles := func() []string {
					m, err := filepath.Glob(filepath.Join(dir, "*.seg"))
					if err != nil {
						t.Fatal(err)
					}
					return m
				}
				if files := segFiles(); len(files) != 1 {
					t.Fatalf("segment files after Compact: %v, want one", files)
				}
				ix.Close()
				ix = openT(t, dir, opts)
				check("after Compact and a reopen", want)

				// One clean segment: nothing to do, nothing rewritten.
				files := segFiles()
				st, err := os.Stat(files[0])
				if err != nil {
					t.Fatal(err)
				}
				if err := ix.Compact(); err != nil {
					t.Fatal(err)
				}
				if again := segFiles(); !slices.Equal(again, files) {
					t.Fatalf("compacting one clean segment rewrote it: %v, then %v", files, again)
				}
				if st2, err := os.Stat(files[0]); err != nil || !st2.ModTime().Equal(st.ModTime()) {
					t.Fatalf("compacting one clean segment touched its file (%v)", err)
				}

				ro, err := OpenReadOnly(dir, opts)
				if err != nil {
					t.Fatal(err)
				}
				if err := ro.Compact(); !errors.Is(err, ErrReadOnly) {
					t.Fatalf("Compact of a read-only index: %v, want ErrReadOnly", err)
				}
				ro.Close()
			}

			// A replacement after Compact removes the group's docs from the
			// compacted segment.
			checkReplacement(t, ix, ix.snap.Load().segs[0].seg.group(0), strings.Join(words, " "))
		})
	}
}

// TestCompactWhileSearching compacts, again and again, an index that
// searches read at the same time: each search sees the state before a
// compaction or after it, and both give the same results. Between
// compactions a commit replaces a group by the same docs, which leaves
// the index's statistics, and so every score, as they were, and gives each
// compaction segments to merge.
func TestCompactWhileSearching(t *testing.T) {
	ix, err := Open(t.TempDir(), Options{Analyzer: "english", MergeFactor: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(9, 10))
	words := []string{"river", "stone", "bridge", "lamp", "harbour", "field", "tower", "garden"}
	groups := map[string][]Doc{}
	for c := range 6 {
		var b Batch
		for i := range 150 {
			g := fmt.Sprintf("doc%04d", rng.IntN(5000))
			var text string
			for range 3 + rng.IntN(6) {
				text += words[rng.IntN(len(words))] + " "
			}
			groups[g] = []Doc{{ID: fmt.Sprintf("%s#%d-%d", g, c, i), Fields: map[string]string{"text": text}}}
			b.Replace(g, groups[g])
		}
		if err := ix.Apply(&b); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"river", "stone bridge", "lamp harbour field", "tower garden river stone"}
	want := make([][]Result, len(queries))
	for i, q := range queries {
		if want[i], err = ix.Search(Query{Text: q, K: 20}); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				i := (w + n) % len(queries)
				got, err := ix.Search(Query{Text: queries[i], K: 20})
				if err == nil && !slices.Equal(got, want[i]) {
					err = fmt.Errorf("%q during compactions: %v, want %v", queries[i], got, want[i])
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for round := range 20 {
		g := fmt.Sprintf("doc%04d", rng.IntN(5000))
		for groups[g] == nil {
			g = fmt.Sprintf("doc%04d", rng.IntN(5000))
		}
		var b Batch
		b.Replace(g, groups[g])
		if err := ix.Apply(&b); err != nil {
			t.Fatal(err)
		}
		if err := ix.Compact(); err != nil {
			t.Fatal(err)
		}
		if n := ix.Segments(); n != 1 {
			t.Fatalf("round %d: %d segments after Compact", round, n)
		}
	}
	close(stop)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
