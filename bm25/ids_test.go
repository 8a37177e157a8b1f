package bm25

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestIDIndexIsAMapOfIDs drives idIndex and a plain map of ID strings with
// the same random sets and deletions, with the real hash and with hashes
// that collide most of the time (the overflow path), and checks that every
// ID is found exactly where the map says.
func TestIDIndexIsAMapOfIDs(t *testing.T) {
	for _, tc := range testHashes {
		t.Run(tc.name, func(t *testing.T) {
			x := newIDIndex()
			if tc.hash != nil {
				x.hash = tc.hash
			}
			rng := rand.New(rand.NewSource(1))
			// Segments holding every ID, so a docRef can name any of them.
			var ids []string
			for i := range 300 {
				ids = append(ids, fmt.Sprintf("doc%d#%d", rng.Intn(1000), i))
			}
			var segs []*segment
			for range 3 {
				segs = append(segs, testSegment(t, ids))
			}
			want := map[string]docRef{}
			overflowed := 0
			for step := range 20000 {
				i := rng.Intn(len(ids))
				id, seg := ids[i], segs[rng.Intn(len(segs))]
				switch rng.Intn(3) {
				case 0, 1:
					r := docRef{seg, uint32(i)}
					x.set(id, r)
					want[id] = r
				case 2:
					x.deleteIn(id, seg)
					if r, ok := want[id]; ok && r.seg == seg {
						delete(want, id)
					}
				}
				overflowed = max(overflowed, len(x.overflow))
				if step%97 == 0 || step == 19999 {
					for _, id := range ids {
						got, ok := x.get(id)
						w, wok := want[id]
						if ok != wok || got != w {
							t.Fatalf("step %d: get(%q) = %v %v, want %v %v", step, id, got, ok, w, wok)
						}
					}
					if x.len() != len(want) {
						t.Fatalf("step %d: %d entries, want %d", step, x.len(), len(want))
					}
				}
			}
			if tc.hash != nil && overflowed == 0 {
				t.Fatal("colliding hashes never used the overflow: the test checks too little")
			}
		})
	}
}

// testHashes are the hashes the ID and group index tests run with: the
// real one (nil) and two that collide most of the time.
var testHashes = []struct {
	name string
	hash func(string) uint64
}{
	{"maphash", nil},
	{"length", func(s string) uint64 { return uint64(len(s)) }},
	{"last byte", func(s string) uint64 { return uint64(s[len(s)-1]) }},
}

// testSegment builds an in-memory segment whose doc i has ID ids[i], in a
// group of its own named after it.
func testSegment(t *testing.T, ids []string) *segment {
	t.Helper()
	seg := buildTestSegment(t, ids, 1, func(g string, _ int) string { return g })
	for i, id := range ids {
		if seg.id(uint32(i)) != id {
			t.Fatalf("doc %d has ID %q, want %q: the segment does not keep the batch's order", i, seg.id(uint32(i)), id)
		}
	}
	return seg
}

// buildTestSegment builds an in-memory segment of perGroup docs per group,
// in the order given, doc i of group g having ID id(g, i).
func buildTestSegment(t *testing.T, groups []string, perGroup int, id func(g string, i int) string) *segment {
	t.Helper()
	ix, err := New(Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var b Batch
	for _, g := range groups {
		var docs []Doc
		for i := range perGroup {
			docs = append(docs, Doc{ID: id(g, i), Fields: map[string]string{"text": "x"}})
		}
		b.Replace(g, docs)
	}
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
	segs := ix.snap.Load().segs
	if len(segs) != 1 {
		t.Fatalf("%d segments, want 1", len(segs))
	}
	return segs[0].seg
}
