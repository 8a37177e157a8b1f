package bm25

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWarm checks that Warm gives every segment its ordinals and a
// writable index its id maps, that searches return what they returned
// before, and that a write after Warm replaces and adds docs as it would
// have; a read-only index gets ordinals and no maps.
func TestWarm(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Analyzer: "english", MergeFactor: 100}
	w := openT(t, dir, opts)
	rng := rand.New(rand.NewPCG(5, 6))
	words := []string{"river", "stone", "bridge", "lamp", "harbour", "field", "tower", "garden"}
	text := func() string {
		var s string
		for range 6 {
			s += words[rng.IntN(len(words))] + " "
		}
		return s
	}
	for c := range 4 { // four commits, four segments
		var b Batch
		for i := range 300 {
			g := fmt.Sprintf("doc%03d", rng.IntN(1000))
			id := fmt.Sprintf("%s#%d-%d", g, c, i)
			b.Replace(g, []Doc{{ID: id, Fields: map[string]string{"text": text()}}})
		}
		if err := w.Apply(&b); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()

	queries := []string{"river", "stone bridge", "lamp harbour field", "tower garden river stone"}
	search := func(ix *Index) [][]Result {
		var out [][]Result
		for _, q := range queries {
			res, err := ix.Search(Query{Text: q, K: 50})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
		}
		return out
	}

	cold := openT(t, dir, opts)
	want := search(cold)
	cold.Close()

	ix := openT(t, dir, opts)
	defer ix.Close()
	if ix.ids != nil {
		t.Fatal("a freshly opened index already has its id maps")
	}
	if err := ix.Warm(); err != nil {
		t.Fatal(err)
	}
	s := ix.snap.Load()
	if len(s.segs) < 2 {
		t.Fatalf("%d segments; the test needs several", len(s.segs))
	}
	for i := range s.segs {
		if !s.segs[i].seg.ordDone.Load() {
			t.Fatalf("segment %d has no ordinals after Warm", i)
		}
	}
	if ix.ids == nil {
		t.Fatal("Warm did not build the id maps of a writable index")
	}
	got := search(ix)
	for i := range queries {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("%q: warm results differ from cold ones:\n%v\n%v", queries[i], got[i], want[i])
		}
	}
	// A write after Warm: replacing a group removes its old docs.
	var g string
	for i := range s.segs {
		if s.segs[i].seg.numDocs > 0 {
			g = s.segs[i].seg.group(0)
			break
		}
	}
	checkReplacement(t, ix, g, "river stone bridge lamp harbour field tower garden")

	ro, err := OpenReadOnly(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Warm(); err != nil {
		t.Fatal(err)
	}
	if ro.ids != nil {
		t.Fatal("Warm built id maps for a read-only index")
	}
	rs := ro.snap.Load()
	for i := range rs.segs {
		if !rs.segs[i].seg.ordDone.Load() {
			t.Fatalf("read-only segment %d has no ordinals after Warm", i)
		}
	}
}

// checkReplacement replaces group g of ix by one doc, g#new, and checks
// that a search for every word the group's docs may hold (words) finds
// only that doc of g: the replacement removed the group's old docs.
func checkReplacement(t *testing.T, ix *Index, g, words string) {
	t.Helper()
	var b Batch
	b.Replace(g, []Doc{{ID: g + "#new", Fields: map[string]string{"text": "zeppelin"}}})
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(Query{Text: "zeppelin " + words, K: 100000})
	if err != nil {
		t.Fatal(err)
	}
	var inGroup []string
	for _, r := range res {
		if r.Group == g {
			inGroup = append(inGroup, r.ID)
		}
	}
	if !slices.Equal(inGroup, []string{g + "#new"}) {
		t.Fatalf("group %s after its replacement holds %v, want only %s#new", g, inGroup, g)
	}
}
