package bm25

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLeastByOrdinal compares leastByOrdinal (integer keys, the n smallest
// selected before sorting) with ordering the whole run by ordinal.
func TestLeastByOrdinal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var keys []uint64
	for c := range 3000 {
		numDocs := 1 + rng.IntN(500)
		ord := make([]uint32, numDocs)
		for d, o := range rng.Perm(numDocs) {
			ord[d] = uint32(o)
		}
		base := int32(rng.IntN(1000))
		runLen := 1 + rng.IntN(numDocs)
		var run []int32
		for _, d := range rng.Perm(numDocs)[:runLen] {
			run = append(run, base+int32(d))
		}
		n := 1 + rng.IntN(runLen)
		if c%3 == 0 {
			n = 1 + rng.IntN(min(runLen, 4))
		}
		want := slices.Clone(run)
		slices.SortFunc(want, func(a, b int32) int { return int(ord[a-base]) - int(ord[b-base]) })
		keys = leastByOrdinal(keys, run, ord, base, n)
		if !slices.Equal(run[:n], want[:n]) {
			t.Fatalf("case %d: run of %d, n %d: got %v, want %v", c, runLen, n, run[:n], want[:n])
		}
		// run stays a permutation of its docs.
		slices.Sort(run)
		slices.Sort(want)
		if !slices.Equal(run, want) {
			t.Fatalf("case %d: run is no longer a permutation of its docs", c)
		}
	}
}

// TestSortDocs compares sortDocs (a bitmap past a few dozen docs) with
// slices.Sort, and checks that it leaves its bitmap clear.
func TestSortDocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sc := &scratch{}
	for c := range 2000 {
		s := &snapshot{maxDoc: 1 + rng.IntN(20000)}
		n := 1 + rng.IntN(min(s.maxDoc, 3000))
		var docs []int32
		for _, d := range rng.Perm(s.maxDoc)[:n] {
			docs = append(docs, int32(d))
		}
		want := slices.Sorted(slices.Values(docs))
		s.sortDocs(sc, docs)
		if !slices.Equal(docs, want) {
			t.Fatalf("case %d: %d of %d docs: got %v, want %v", c, n, s.maxDoc, docs, want)
		}
		for w, word := range sc.bits {
			if word != 0 {
				t.Fatalf("case %d: bitmap word %d left set", c, w)
			}
		}
	}
}

// TestKthLargest compares kthLargest (a sampled threshold, then quickselect
// on the values that reach it) with sorting, on uniform, clustered and
// heavily tied values.
func TestKthLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var buf []float32
	for c := range 3000 {
		n := 1 + rng.IntN(20000)
		v := make([]float32, n)
		for i := range v {
			switch c % 4 {
			case 0:
				v[i] = rng.Float32() * 20
			case 1: // a few distinct scores: ties everywhere
				v[i] = float32(rng.IntN(5))
			case 2: // ascending, as candidates in doc order can be
				v[i] = float32(i)
			case 3: // most low, a few high
				v[i] = rng.Float32()
				if rng.IntN(100) == 0 {
					v[i] += 10
				}
			}
		}
		k := 1 + rng.IntN(min(n, 400))
		if c%5 == 0 {
			k = 1 + rng.IntN(n)
		}
		sorted := slices.Sorted(slices.Values(v))
		want := sorted[n-k]
		var got float32
		got, buf = kthLargest(slices.Clone(v), k, buf[:0])
		if got != want {
			t.Fatalf("case %d: n %d, k %d: got %v, want %v", c, n, k, got, want)
		}
	}
}

// BenchmarkKthLargest: the 150th of 5000 scores, as a search's arm asks.
func BenchmarkKthLargest(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	v := make([]float32, 5000)
	for i := range v {
		v[i] = rng.Float32() * 20
	}
	w := make([]float32, len(v))
	var buf []float32
	b.Run("sampled", func(b *testing.B) {
		for b.Loop() {
			copy(w, v)
			_, buf = kthLargest(w, 150, buf[:0])
		}
	})
	b.Run("quickselect", func(b *testing.B) {
		for b.Loop() {
			copy(w, v)
			quickselect(w, 149)
		}
	})
}

// TestScratchHeadroom checks that a scratch sized for n docs still fits
// after a few more docs arrive (a server's commits), without reallocating.
func TestScratchHeadroom(t *testing.T) {
	var sc scratch
	sc.fit(100000)
	acc, fstate := &sc.acc[0], &sc.fstate[0]
	for n := 100001; n <= 110000; n += 7 {
		sc.fit(n)
		if len(sc.acc) < n || len(sc.fstate) < n {
			t.Fatalf("fit(%d): %d and %d entries", n, len(sc.acc), len(sc.fstate))
		}
	}
	if &sc.acc[0] != acc || &sc.fstate[0] != fstate {
		t.Fatal("a scratch sized for 100000 docs was reallocated for 110000")
	}
}
