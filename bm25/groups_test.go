package bm25

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestGroupIndexIsAMapOfGroups drives groupIndex and a plain map of group
// names with the same random updates (consecutive docs, scattered docs,
// none), with the real hash and with hashes that collide most of the time
// (the overflow path), and checks that every group's docs are those the
// map holds.
func TestGroupIndexIsAMapOfGroups(t *testing.T) {
	for _, tc := range testHashes {
		t.Run(tc.name, func(t *testing.T) {
			x := newGroupIndex()
			if tc.hash != nil {
				x.hash = tc.hash
			}
			rng := rand.New(rand.NewSource(1))
			// Three segments with the same groups: group j holds docs
			// perGroup*j to perGroup*(j+1)-1 in each.
			const groups, perGroup = 200, 5
			var names []string
			for j := range groups {
				names = append(names, fmt.Sprintf("g%d-%d", rng.Intn(1000), j))
			}
			var segs []*segment
			for range 3 {
				segs = append(segs, testGroupSegment(t, names, perGroup))
			}
			want := map[string][]docRef{}
			overflowed, scattered := 0, 0
			for step := range 20000 {
				j := rng.Intn(groups)
				g, first := names[j], uint32(perGroup*j)
				var refs []docRef
				switch rng.Intn(4) {
				case 0, 1: // consecutive docs of one segment
					seg, n := segs[rng.Intn(len(segs))], 1+rng.Intn(perGroup)
					for i := range n {
						refs = append(refs, docRef{seg, first + uint32(i)})
					}
				case 2: // scattered over segments, or with a gap
					for i := range perGroup {
						if rng.Intn(2) == 0 {
							refs = append(refs, docRef{segs[rng.Intn(len(segs))], first + uint32(i)})
						}
					}
				}
				x.set(g, refs)
				if len(refs) == 0 {
					delete(want, g)
				} else {
					want[g] = refs
				}
				overflowed = max(overflowed, len(x.overflow))
				for _, gd := range x.byHash {
					if gd.scattered != nil {
						scattered++
					}
				}
				if step%97 == 0 || step == 19999 {
					for _, g := range names {
						if got := x.docs(g, nil); !slices.Equal(got, want[g]) {
							t.Fatalf("step %d: docs(%q) = %v, want %v", step, g, got, want[g])
						}
					}
					if x.len() != len(want) {
						t.Fatalf("step %d: %d groups, want %d", step, x.len(), len(want))
					}
				}
			}
			if tc.hash != nil && overflowed == 0 {
				t.Fatal("colliding hashes never used the overflow: the test checks too little")
			}
			if scattered == 0 {
				t.Fatal("no group was ever scattered: the test checks too little")
			}
		})
	}
}

// testGroupSegment builds an in-memory segment whose docs perGroup*j to
// perGroup*(j+1)-1 belong to group names[j].
func testGroupSegment(t *testing.T, names []string, perGroup int) *segment {
	t.Helper()
	seg := buildTestSegment(t, names, perGroup, func(g string, i int) string { return fmt.Sprintf("%s#%d", g, i) })
	for j, g := range names {
		for i := range perGroup {
			if d := uint32(perGroup*j + i); seg.group(d) != g {
				t.Fatalf("doc %d is in group %q, want %q: the segment does not keep the batch's order", d, seg.group(d), g)
			}
		}
	}
	return seg
}
