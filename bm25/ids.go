package bm25

import (
	"hash/maphash"
	"strings"
)

// nameMap maps names to values without holding a copy of any name: it keys
// a value by a hash of its name and reads the name back from the value
// (name), which points into a segment. A name whose hash another name
// already holds is kept by its string in overflow; every name is in
// exactly one of the two maps. idIndex and groupIndex are built on it.
type nameMap[V any] struct {
	hash     func(string) uint64
	name     func(V) string
	byHash   map[uint64]V
	overflow map[string]V
}

func newNameMap[V any](name func(V) string) nameMap[V] {
	seed := maphash.MakeSeed()
	return nameMap[V]{
		hash:     func(s string) uint64 { return maphash.String(seed, s) },
		name:     name,
		byHash:   map[uint64]V{},
		overflow: map[string]V{},
	}
}

// get returns k's value.
func (m *nameMap[V]) get(k string) (V, bool) {
	if v, ok := m.byHash[m.hash(k)]; ok && m.name(v) == k {
		return v, true
	}
	v, ok := m.overflow[k]
	return v, ok
}

// set records v (whose name is k) as k's value, replacing its earlier one.
func (m *nameMap[V]) set(k string, v V) {
	if _, ok := m.overflow[k]; ok {
		m.overflow[k] = v
		return
	}
	h := m.hash(k)
	if old, ok := m.byHash[h]; ok && m.name(old) != k {
		m.overflow[strings.Clone(k)] = v
		return
	}
	m.byHash[h] = v
}

// delete forgets k.
func (m *nameMap[V]) delete(k string) {
	h := m.hash(k)
	if v, ok := m.byHash[h]; ok && m.name(v) == k {
		delete(m.byHash, h)
		return
	}
	delete(m.overflow, k)
}

func (m *nameMap[V]) len() int { return len(m.byHash) + len(m.overflow) }

// idIndex finds a live doc by its ID. It reads the ID from the doc's
// segment (a docRef keeps its segment, and so its bytes, alive), so it
// holds no copy of any ID: a map from the ID strings, with one entry per
// chunk in each arm, was the largest part of an index run's heap (77 of
// 198 MB live at the end of a GOROOT index).
type idIndex struct {
	nameMap[docRef]
}

func newIDIndex() *idIndex {
	return &idIndex{newNameMap(docRef.id)}
}

func (r docRef) id() string { return r.seg.id(r.doc) }

// deleteIn forgets id if it lives in seg.
func (x *idIndex) deleteIn(id string, seg *segment) {
	if r, ok := x.get(id); ok && r.seg == seg {
		x.delete(id)
	}
}
