package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

func gaussian(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// corpus returns n items in groups of per (IDs "g<g>#<i>").
func corpus(seed uint64, n, dim, per int) []Item {
	r := rand.New(rand.NewPCG(seed, 99))
	items := make([]Item, n)
	for i := range items {
		g := i / per
		items[i] = Item{ID: fmt.Sprintf("g%d#%d", g, i%per), Group: fmt.Sprintf("g%d", g), Vector: gaussian(r, dim)}
	}
	return items
}

func byGroup(items []Item) map[string][]Item {
	m := map[string][]Item{}
	for _, it := range items {
		m[it.Group] = append(m[it.Group], it)
	}
	return m
}

// naive is the reference: every allowed item scored in float64.
func naive(items []Item, q []float32, k int, metric string, allow func(Item) bool) []Result {
	norm := func(v []float32) []float64 {
		out := make([]float64, len(v))
		var s float64
		for i, x := range v {
			out[i] = float64(x)
			s += float64(x) * float64(x)
		}
		if metric == MetricCosine {
			for i := range out {
				out[i] /= math.Sqrt(s)
			}
		}
		return out
	}
	qq := norm(q)
	var res []Result
	for _, it := range items {
		if allow != nil && !allow(it) {
			continue
		}
		x := norm(it.Vector)
		var d float64
		for i := range x {
			d += x[i] * qq[i]
		}
		res = append(res, Result{ID: it.ID, Group: it.Group, Score: d})
	}
	sort.Slice(res, func(i, j int) bool {
		if res[i].Score != res[j].Score {
			return res[i].Score > res[j].Score
		}
		return res[i].ID < res[j].ID
	})
	return res[:min(k, len(res))]
}

// sameRanking checks got against the naive reference: same scores (to
// float32 rounding) and the same IDs, except that IDs may swap where the
// reference scores are within eps.
func sameRanking(t *testing.T, got, want []Result) {
	t.Helper()
	const eps = 1e-5
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d", len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i].Score-want[i].Score) > eps*max(1, math.Abs(want[i].Score)) {
			t.Fatalf("result %d: score %v (%s), want %v (%s)", i, got[i].Score, got[i].ID, want[i].Score, want[i].ID)
		}
		if got[i].ID != want[i].ID {
			tol := eps * max(1, math.Abs(want[i].Score))
			near := (i > 0 && want[i].Score-want[i-1].Score > -tol) || (i+1 < len(want) && want[i].Score-want[i+1].Score < tol)
			if !near {
				t.Fatalf("result %d: ID %s, want %s (score %v)", i, got[i].ID, want[i].ID, want[i].Score)
			}
		}
	}
}

func TestExactMatchesNaive(t *testing.T) {
	for _, metric := range []string{MetricCosine, MetricDot} {
		for _, dim := range []int{3, 64, 100, 1024} {
			t.Run(fmt.Sprintf("metric=%s/dim=%d", metric, dim), func(t *testing.T) {
				items := corpus(uint64(dim), 3000, dim, 8) // 8 divides the 1000-item batches
				ix, err := New(Options{Dim: dim, Metric: metric, QuantizeAbove: -1, Workers: 3})
				if err != nil {
					t.Fatal(err)
				}
				// Several batches: several segments.
				for _, part := range [][]Item{items[:1000], items[1000:2000], items[2000:]} {
					if err := ix.ReplaceBatch(byGroup(part)); err != nil {
						t.Fatal(err)
					}
				}
				if ix.Len() != len(items) {
					t.Fatalf("Len = %d, want %d", ix.Len(), len(items))
				}
				r := rand.New(rand.NewPCG(5, 5))
				for range 5 {
					q := gaussian(r, dim)
					for _, k := range []int{1, 10, 150} {
						got, err := ix.Search(q, k, nil)
						if err != nil {
							t.Fatal(err)
						}
						sameRanking(t, got, naive(items, q, k, metric, nil))
					}
				}
				// Larger k than the index returns everything.
				got, _ := ix.Search(items[0].Vector, 5000, nil)
				if len(got) != len(items) {
					t.Errorf("k=5000: %d results, want %d", len(got), len(items))
				}
				if metric == MetricCosine && (got[0].ID != items[0].ID || math.Abs(got[0].Score-1) > 1e-5) {
					t.Errorf("self query: top %s %v, want %s 1", got[0].ID, got[0].Score, items[0].ID)
				}
			})
		}
	}
}

func TestTiesByIDAscending(t *testing.T) {
	ix, _ := New(Options{Dim: 2, QuantizeAbove: -1})
	v := []float32{1, 0}
	for _, id := range []string{"c", "a", "b"} {
		if err := ix.Replace(id, []Item{{ID: id, Vector: v}}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := ix.Search(v, 2, nil)
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "b" {
		t.Errorf("ties: %v, want a, b", got)
	}
}

func TestFilter(t *testing.T) {
	for _, quant := range []int{-1, 100} {
		items := corpus(3, 2000, 32, 10)
		ix, _ := New(Options{Dim: 32, QuantizeAbove: quant, Rescore: 5000})
		if err := ix.ReplaceBatch(byGroup(items)); err != nil {
			t.Fatal(err)
		}
		q := gaussian(rand.New(rand.NewPCG(1, 1)), 32)
		groups := map[string]bool{"g3": true, "g17": true, "g150": true, "g151": false}
		f := &Filter{Groups: groups}
		got, err := ix.Search(q, 25, f)
		if err != nil {
			t.Fatal(err)
		}
		// 3 allowed groups x 10 items: 25 of the 30 come back.
		want := naive(items, q, 25, MetricCosine, func(it Item) bool { return groups[it.Group] })
		sameRanking(t, got, want)

		// Accept: only IDs ending in "#3"; k results although they are rare.
		var calls sync.Map
		f = &Filter{Accept: func(id, group string) bool {
			calls.Store(id, group)
			return strings.HasSuffix(id, "#3")
		}}
		got, _ = ix.Search(q, 50, f)
		want = naive(items, q, 50, MetricCosine, func(it Item) bool { return strings.HasSuffix(it.ID, "#3") })
		sameRanking(t, got, want)
		if v, ok := calls.Load("g7#1"); !ok || v != "g7" {
			t.Errorf("Accept not called with (g7#1, g7): %v %v", v, ok)
		}
		// Both: groups AND accept.
		f = &Filter{Groups: groups, Accept: func(id, _ string) bool { return strings.HasSuffix(id, "#3") }}
		got, _ = ix.Search(q, 10, f)
		if len(got) != 3 {
			t.Errorf("groups+accept: %d results %v, want 3 (g3#3, g17#3, g150#3)", len(got), got)
		}
	}
}

func TestReplaceAndDelete(t *testing.T) {
	ix, _ := New(Options{Dim: 4, QuantizeAbove: -1})
	a := []float32{1, 0, 0, 0}
	b := []float32{0, 1, 0, 0}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ix.Replace("doc1", []Item{{ID: "doc1#0", Vector: a}, {ID: "doc1#1", Vector: b}}))
	must(ix.Replace("doc2", []Item{{ID: "doc2#0", Vector: b}}))
	if ix.Len() != 3 {
		t.Fatalf("Len %d, want 3", ix.Len())
	}
	// New version of doc1: one chunk only, pointing elsewhere.
	must(ix.Replace("doc1", []Item{{ID: "doc1#0", Vector: b}}))
	if ix.Len() != 2 {
		t.Fatalf("after replace Len %d, want 2", ix.Len())
	}
	got, _ := ix.Search(a, 10, nil)
	if len(got) != 2 || got[0].Score > 1e-6 {
		t.Errorf("old doc1#0 vector still found: %v", got)
	}
	// An ID may not be taken from another group...
	if err := ix.Replace("doc3", []Item{{ID: "doc2#0", Vector: a}}); err == nil || !strings.Contains(err.Error(), `already belongs to group "doc2"`) {
		t.Errorf("stealing an ID: %v", err)
	}
	// ...unless that group is replaced in the same batch.
	must(ix.ReplaceBatch(map[string][]Item{"doc2": nil, "doc3": {{ID: "doc2#0", Vector: a}}}))
	got, _ = ix.Search(a, 1, nil)
	if got[0].ID != "doc2#0" || got[0].Group != "doc3" {
		t.Errorf("moved ID: %v", got)
	}
	must(ix.Delete("doc1"))
	must(ix.Delete("nope"))
	if ix.Len() != 1 {
		t.Errorf("after delete Len %d, want 1", ix.Len())
	}
	must(ix.Compact())
	if ix.Len() != 1 {
		t.Errorf("after compact Len %d, want 1", ix.Len())
	}
	must(ix.Delete("doc3"))
	got, _ = ix.Search(a, 1, nil)
	if ix.Len() != 0 || len(got) != 0 {
		t.Errorf("empty index: Len %d, %v", ix.Len(), got)
	}
}

func TestBadInput(t *testing.T) {
	ix, _ := New(Options{Dim: 3})
	nan := float32(math.NaN())
	cases := []struct {
		err  error
		want string
	}{
		{ix.Replace("d", []Item{{ID: "d#0", Vector: []float32{1, 2}}}), `ID "d#0": dimension 2, index dimension 3`},
		{ix.Replace("d", []Item{{ID: "d#1", Vector: []float32{1, nan, 0}}}), `ID "d#1": component 1 is NaN`},
		{ix.Replace("d", []Item{{ID: "d#2", Vector: []float32{float32(math.Inf(-1)), 0, 0}}}), `ID "d#2": component 0 is -Inf`},
		{ix.Replace("d", []Item{{ID: "d#3", Vector: []float32{0, 0, 0}}}), `ID "d#3": zero vector`},
		{ix.Replace("d", []Item{{ID: "", Vector: []float32{1, 0, 0}}}), `items[0]: empty ID`},
		{ix.Replace("d", []Item{{ID: "x", Group: "e", Vector: []float32{1, 0, 0}}}), `Group "e" differs`},
		{ix.Replace("d", []Item{{ID: "x", Vector: []float32{1, 0, 0}}, {ID: "x", Vector: []float32{1, 0, 0}}}), `ID "x" given twice`},
		{func() error { _, err := ix.Search([]float32{1}, 1, nil); return err }(), "query: dimension 1, index dimension 3"},
		{func() error { _, err := ix.Search([]float32{nan, 1, 1}, 1, nil); return err }(), "query: component 0 is NaN"},
		{func() error { _, err := ix.Search([]float32{1, 1, 1}, -1, nil); return err }(), "k: must be >= 0"},
		{func() error { _, err := New(Options{}); return err }(), "Dim: must be > 0"},
		{func() error { _, err := New(Options{Dim: 2, Metric: "l2"}); return err }(), `Metric: must be "cosine" or "dot", got "l2"`},
		{func() error { _, err := New(Options{Dim: 2, Epsilon: math.NaN()}); return err }(), "Epsilon: must be a finite number, got NaN"},
		{func() error { _, err := New(Options{Dim: 2, BoundDepth: -1}); return err }(), "BoundDepth: must be >= 0, got -1"},
	}
	for i, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("case %d: error %v, want one containing %q", i, c.err, c.want)
		}
	}
	if ix.Len() != 0 {
		t.Errorf("failed replaces left %d vectors", ix.Len())
	}
	// A zero query is fine for dot.
	d, _ := New(Options{Dim: 2, Metric: MetricDot})
	if _, err := d.Search([]float32{0, 0}, 1, nil); err != nil {
		t.Errorf("dot zero query: %v", err)
	}
}

func TestPersistRoundTrip(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Dim: 48, QuantizeAbove: -1, MaxSegments: 4}
	ix, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	items := corpus(7, 1200, 48, 12)
	groups := byGroup(items)
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	// One commit per group: exercises the segment merge policy.
	for _, g := range names[:40] {
		if err := ix.Replace(g, groups[g]); err != nil {
			t.Fatal(err)
		}
	}
	rest := map[string][]Item{}
	for _, g := range names[40:] {
		rest[g] = groups[g]
	}
	if err := ix.ReplaceBatch(rest); err != nil {
		t.Fatal(err)
	}
	if err := ix.Delete("g5"); err != nil {
		t.Fatal(err)
	}
	live := slices.DeleteFunc(slices.Clone(items), func(it Item) bool { return it.Group == "g5" })
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	if len(segs) > opts.MaxSegments {
		t.Errorf("%d segment files, MaxSegments %d", len(segs), opts.MaxSegments)
	}
	q := gaussian(rand.New(rand.NewPCG(2, 2)), 48)
	before, _ := ix.Search(q, 30, nil)
	sameRanking(t, before, naive(live, q, 30, MetricCosine, nil))

	// A second Open of the same directory is refused while it is open.
	if _, err := Open(dir, Options{LockWait: -1}); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("second open: %v", err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Search(q, 1, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("search after close: %v", err)
	}
	// Wrong options are refused, naming both values.
	if _, err := Open(dir, Options{Dim: 47}); err == nil || !strings.Contains(err.Error(), "Options.Dim 47, index dimension 48") {
		t.Errorf("open with wrong dim: %v", err)
	}
	if _, err := Open(dir, Options{Metric: MetricDot}); err == nil || !strings.Contains(err.Error(), `index metric "cosine"`) {
		t.Errorf("open with wrong metric: %v", err)
	}
	ix, err = Open(dir, Options{QuantizeAbove: -1}) // Dim 0: taken from the index
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(live) {
		t.Fatalf("reopened Len %d, want %d", ix.Len(), len(live))
	}
	after, _ := ix.Search(q, 30, nil)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("reopened results differ:\n%v\n%v", after, before)
	}
	// Replace survives reopening too: the replaced group is gone.
	if err := ix.Replace("g6", []Item{{ID: "new", Vector: q}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Compact(); err != nil {
		t.Fatal(err)
	}
	segs, _ = filepath.Glob(filepath.Join(dir, "seg-*"))
	if len(segs) != 1 {
		t.Errorf("after Compact: %d segment files %v, want 1", len(segs), segs)
	}
	ix.Close()
	ix, err = Open(dir, Options{QuantizeAbove: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	got, _ := ix.Search(q, 1, nil)
	if got[0].ID != "new" || ix.Len() != len(live)-12+1 {
		t.Errorf("after compact+reopen: top %v, Len %d, want new, %d", got[0], ix.Len(), len(live)-11)
	}
	got, _ = ix.Search(q, 10, &Filter{Groups: map[string]bool{"g6": true}})
	if len(got) != 1 {
		t.Errorf("g6 has %d vectors, want 1", len(got))
	}
}

func TestCorruptSegment(t *testing.T) {
	dir := t.TempDir()
	ix, _ := Open(dir, Options{Dim: 4})
	ix.Replace("a", []Item{{ID: "a#0", Vector: []float32{1, 2, 3, 4}}})
	ix.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	b, _ := os.ReadFile(segs[0])
	b[len(b)-1] ^= 0xFF // flip a byte of the ID table
	os.WriteFile(segs[0], b, 0o644)
	_, err := Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "corrupt: ID table checksum mismatch") || !strings.Contains(err.Error(), segs[0]) {
		t.Errorf("corrupt segment: %v", err)
	}
}

func TestQuantizedExactWhenRescoringAll(t *testing.T) {
	// 1024 dimensions fill whole code words, 100 do not; after a Delete
	// the tombstone path runs too.
	for _, dim := range []int{100, 1024} {
		items := corpus(11, 3000, dim, 10)
		ix, _ := New(Options{Dim: dim, QuantizeAbove: 1, Rescore: 3000})
		ix.ReplaceBatch(byGroup(items))
		q := gaussian(rand.New(rand.NewPCG(3, 3)), dim)
		got, _ := ix.Search(q, 20, nil)
		sameRanking(t, got, naive(items, q, 20, MetricCosine, nil))
		top := got[0].Group
		if err := ix.Delete(top); err != nil {
			t.Fatal(err)
		}
		got, _ = ix.Search(q, 20, nil)
		sameRanking(t, got, naive(items, q, 20, MetricCosine, func(it Item) bool { return it.Group != top }))
	}
}

// TestQuantizedFirstPass checks the first pass itself on data where it
// must work: every query is a slightly perturbed stored vector, whose
// estimate stands far above the rest, so the exact neighbour must come
// back first and the bound pass must add few rows to the minimum.
func TestQuantizedFirstPass(t *testing.T) {
	items := corpus(12, 5000, 1024, 10)
	ix, _ := New(Options{Dim: 1024, QuantizeAbove: 1})
	ix.ReplaceBatch(byGroup(items))
	r := rand.New(rand.NewPCG(4, 4))
	for i := range 20 {
		target := items[r.IntN(len(items))]
		q := slices.Clone(target.Vector)
		for j := range q {
			q[j] += 0.2 * float32(r.NormFloat64())
		}
		got, st, err := ix.search(q, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].ID != target.ID {
			t.Errorf("query %d: top %s, want %s", i, got[0].ID, target.ID)
		}
		// 200 candidates plus the few the bounds cannot rule out, not
		// the whole corpus.
		if !st.quantized || st.rescored < DefaultMinRescore || st.rescored > 2*DefaultMinRescore {
			t.Errorf("query %d: quantized %v, %d rescored, want about %d", i, st.quantized, st.rescored, DefaultMinRescore)
		}
	}
}

// TestFirstPassRecallGaussian measures the first pass where it is weakest:
// iid Gaussian vectors and queries, where the true neighbours barely stand
// out. The bound pass must keep recall@10 high while scoring only part of
// the corpus exactly, and must beat rescoring the fixed minimum alone.
func TestFirstPassRecallGaussian(t *testing.T) {
	const n, dim, queries, k = 30000, 256, 20, 10
	for _, metric := range []string{MetricCosine, MetricDot} {
		r := rand.New(rand.NewPCG(21, 21))
		items := make([]Item, n)
		for i := range items {
			v := gaussian(r, dim)
			if metric == MetricDot { // norms from 0.5 to 2
				f := float32(0.5 + 1.5*r.Float64())
				for j := range v {
					v[j] *= f
				}
			}
			items[i] = Item{ID: fmt.Sprintf("g%d#%d", i/10, i%10), Vector: v}
		}
		ix, _ := New(Options{Dim: dim, Metric: metric, QuantizeAbove: 1})
		if err := ix.ReplaceBatch(byGroup(items)); err != nil {
			t.Fatal(err)
		}
		fixed, _ := New(Options{Dim: dim, Metric: metric, QuantizeAbove: 1, Epsilon: -1})
		fixed.ReplaceBatch(byGroup(items))
		var recall, recallFixed float64
		var rescored int
		for range queries {
			q := gaussian(r, dim)
			want := naive(items, q, k, metric, nil)
			got, st, err := ix.search(q, k, nil)
			if err != nil {
				t.Fatal(err)
			}
			gotFixed, stFixed, _ := fixed.search(q, k, nil)
			if stFixed.rescored != DefaultMinRescore {
				t.Errorf("%s: Epsilon -1 rescored %d rows, want %d", metric, stFixed.rescored, DefaultMinRescore)
			}
			rescored += st.rescored
			for _, w := range want {
				recall += countID(got, w.ID) / (queries * k)
				recallFixed += countID(gotFixed, w.ID) / (queries * k)
			}
			// Whatever the first pass finds is scored exactly.
			for i, g := range got {
				if g.ID == want[0].ID && (i != 0 || math.Abs(g.Score-want[0].Score) > 1e-5) {
					t.Errorf("%s: exact best %s at rank %d score %v, want rank 0 score %v", metric, g.ID, i, g.Score, want[0].Score)
				}
			}
		}
		share := float64(rescored) / queries / n
		t.Logf("%s: recall@10 %.3f with the bound pass (%.1f%% of rows rescored), %.3f with %d rows", metric, recall, 100*share, recallFixed, DefaultMinRescore)
		if recall < 0.95 {
			t.Errorf("%s: recall@10 %.3f, want >= 0.95", metric, recall)
		}
		if share > 0.3 {
			t.Errorf("%s: %.1f%% of rows rescored, want a first pass that rules most out", metric, 100*share)
		}
		if recallFixed >= recall {
			t.Errorf("%s: the bound pass (%.3f) does not beat %d fixed candidates (%.3f)", metric, recall, DefaultMinRescore, recallFixed)
		}
	}
}

func countID(rs []Result, id string) float64 {
	for _, r := range rs {
		if r.ID == id {
			return 1
		}
	}
	return 0
}

// TestReadsVersion1Segments opens a segment written before the first-pass
// coefficients were stored (version 1: no coefficient region) and checks
// that searches, quantized or exact, answer as on the current format and
// that Open rewrote the segment in the current format.
func TestReadsVersion1Segments(t *testing.T) {
	dir := t.TempDir()
	const dim = 64
	items := corpus(31, 2000, dim, 10)
	ix, err := Open(dir, Options{Dim: dim, QuantizeAbove: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.ReplaceBatch(byGroup(items)); err != nil {
		t.Fatal(err)
	}
	q := gaussian(rand.New(rand.NewPCG(32, 32)), dim)
	want := map[int][]Result{-1: naive(items, q, 10, MetricCosine, nil)}
	want[1], _ = ix.Search(q, 10, nil) // quantized, on the current format
	ix.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "*.vec"))
	if len(segs) != 1 {
		t.Fatalf("%d segments, want 1", len(segs))
	}
	// Rewrite it as version 1: drop the coefficient region, fix the header.
	b, _ := os.ReadFile(segs[0])
	rows := binary.LittleEndian.Uint64(b[16:])
	bitsOff := binary.LittleEndian.Uint64(b[32:])
	metaOff := binary.LittleEndian.Uint64(b[40:])
	coefOff := bitsOff + rows*uint64(wordsFor(dim))*8
	if metaOff != coefOff+rows*8 {
		t.Fatalf("layout: meta at %d, coefficients at %d for %d rows", metaOff, coefOff, rows)
	}
	v1 := append(slices.Clone(b[:coefOff]), b[metaOff:]...)
	binary.LittleEndian.PutUint32(v1[8:], 1)
	binary.LittleEndian.PutUint64(v1[40:], coefOff)
	binary.LittleEndian.PutUint32(v1[60:], crc32.Checksum(v1[:60], castagnoli))
	os.WriteFile(segs[0], v1, 0o644)
	// The version 1 segment itself (open, unlike Open, does not upgrade).
	for _, quant := range []int{1, -1} {
		old, _, err := open(dir, Options{Dim: dim, QuantizeAbove: quant}, false)
		if err != nil {
			t.Fatal(err)
		}
		if v := old.current().views[0].seg.version; v != 1 {
			t.Fatalf("segment read as version %d, want 1", v)
		}
		got, _ := old.Search(q, 10, nil)
		sameRanking(t, got, want[quant])
		old.Close()
	}
	for _, quant := range []int{1, -1} {
		ix, err := Open(dir, Options{Dim: dim, QuantizeAbove: quant})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := ix.Search(q, 10, nil)
		sameRanking(t, got, want[quant])
		// Open rewrote the old segment in the current format.
		for _, v := range ix.current().views {
			if v.seg.version != segVersion {
				t.Errorf("segment %s still version %d after Open", v.seg.name, v.seg.version)
			}
		}
		ix.Close()
	}
	segs, _ = filepath.Glob(filepath.Join(dir, "*.vec"))
	if b, _ := os.ReadFile(segs[0]); len(segs) != 1 || binary.LittleEndian.Uint32(b[8:]) != segVersion {
		t.Errorf("segment files %v: want one of version %d", segs, segVersion)
	}
}

func TestConcurrentSearchAndWrite(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir, Options{Dim: 16, QuantizeAbove: 500, MaxSegments: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	const per = 10
	r := rand.New(rand.NewPCG(9, 9))
	for g := range 100 {
		var items []Item
		for i := range per {
			items = append(items, Item{ID: fmt.Sprintf("g%d#%d", g, i), Vector: gaussian(r, 16)})
		}
		ix.Replace(fmt.Sprintf("g%d", g), items)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := ix.Search(gaussian(r, 16), 20, nil)
				if err != nil {
					errs <- err
					return
				}
				// Every group always has exactly per vectors: a search
				// never sees half a Replace. Check via a group filter.
				g := res[0].Group
				all, err := ix.Search(gaussian(r, 16), 100, &Filter{Groups: map[string]bool{g: true}})
				if err != nil {
					errs <- err
					return
				}
				if len(all) != per {
					errs <- fmt.Errorf("group %s has %d vectors mid-write, want %d", g, len(all), per)
					return
				}
			}
		}()
	}
	for round := range 60 {
		g := fmt.Sprintf("g%d", r.IntN(100))
		var items []Item
		for i := range per {
			items = append(items, Item{ID: fmt.Sprintf("%s#%d", g, i), Vector: gaussian(r, 16)})
		}
		if err := ix.Replace(g, items); err != nil {
			t.Fatal(err)
		}
		if round%20 == 19 {
			if err := ix.Compact(); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if ix.Len() != 100*per {
		t.Errorf("Len %d, want %d", ix.Len(), 100*per)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	if len(segs) > 3 {
		t.Errorf("%d segment files left, want <= 3 (old ones removed once unreferenced)", len(segs))
	}
}
