package bm25

import (
	"hash/maphash"
	"strings"
)

// idIndex finds a live doc by its ID. It keys docs by a hash of the ID and
// reads the ID itself from the doc's segment (a docRef keeps its segment,
// and so its bytes, alive), so it holds no copy of any ID: a map from the
// ID strings, with one entry per chunk in each arm, was the largest part of
// an index run's heap (77 of 198 MB live at the end of a GOROOT index). An
// ID whose hash another ID already holds is kept by its string in
// overflow; every ID is in exactly one of the two maps.
type idIndex struct {
	hash     func(string) uint64
	byHash   map[uint64]docRef
	overflow map[string]docRef
}

func newIDIndex() *idIndex {
	seed := maphash.MakeSeed()
	return &idIndex{
		hash:     func(id string) uint64 { return maphash.String(seed, id) },
		byHash:   map[uint64]docRef{},
		overflow: map[string]docRef{},
	}
}

func (r docRef) id() string { return r.seg.id(r.doc) }

// get returns where id lives.
func (x *idIndex) get(id string) (docRef, bool) {
	if r, ok := x.byHash[x.hash(id)]; ok && r.id() == id {
		return r, true
	}
	r, ok := x.overflow[id]
	return r, ok
}

// set records that id lives at r (whose ID is id), replacing its earlier
// place.
func (x *idIndex) set(id string, r docRef) {
	if _, ok := x.overflow[id]; ok {
		x.overflow[id] = r
		return
	}
	h := x.hash(id)
	if old, ok := x.byHash[h]; ok && old.id() != id {
		x.overflow[strings.Clone(id)] = r
		return
	}
	x.byHash[h] = r
}

// deleteIn forgets id if it lives in seg.
func (x *idIndex) deleteIn(id string, seg *segment) {
	h := x.hash(id)
	if r, ok := x.byHash[h]; ok && r.id() == id {
		if r.seg == seg {
			delete(x.byHash, h)
		}
		return
	}
	if r, ok := x.overflow[id]; ok && r.seg == seg {
		delete(x.overflow, id)
	}
}

func (x *idIndex) len() int { return len(x.byHash) + len(x.overflow) }
