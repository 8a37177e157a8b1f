package bm25

import (
	"hash/maphash"
	"strings"
)

// groupIndex finds a group's live docs, for a batch that replaces or
// deletes the group. Like idIndex it keys groups by a hash of the name and
// reads the name itself from a doc of the group, so it holds no copy of any
// name; and it holds a group's docs as their first doc and a count, since a
// flush writes a group's docs one after another and a merge keeps their
// order. A map from the group names to slices of their docs was two
// objects per group in every arm, which every garbage collection marked:
// half of a collection's marking in a server holding the 100k-chunk load
// store (gctrace: 54-69 ms of mark phase with it, 29-37 ms without).
type groupIndex struct {
	hash     func(string) uint64
	byHash   map[uint64]groupDocs
	overflow map[string]groupDocs
}

// groupDocs are a group's live docs: n consecutive docs from first, in
// first's segment, or, if they are not that (a layout no writer makes
// today, kept correct all the same), the docs listed in scattered.
type groupDocs struct {
	first     docRef
	n         uint32
	scattered []docRef
}

func newGroupIndex() *groupIndex {
	seed := maphash.MakeSeed()
	return &groupIndex{
		hash:     func(g string) uint64 { return maphash.String(seed, g) },
		byHash:   map[uint64]groupDocs{},
		overflow: map[string]groupDocs{},
	}
}

// docs returns g's live docs, appended to buf.
func (x *groupIndex) docs(g string, buf []docRef) []docRef {
	gd, ok := x.byHash[x.hash(g)]
	if !ok || gd.name() != g {
		if gd, ok = x.overflow[g]; !ok {
			return buf
		}
	}
	if gd.scattered != nil {
		return append(buf, gd.scattered...)
	}
	for i := range gd.n {
		buf = append(buf, docRef{gd.first.seg, gd.first.doc + i})
	}
	return buf
}

// name is the group's name, read from its first doc.
func (gd groupDocs) name() string {
	if gd.scattered != nil {
		return gd.scattered[0].seg.group(gd.scattered[0].doc)
	}
	return gd.first.seg.group(gd.first.doc)
}

// set records that g's live docs are refs (none: g has no docs left). The
// docs of refs must belong to g.
func (x *groupIndex) set(g string, refs []docRef) {
	h := x.hash(g)
	if len(refs) == 0 {
		if gd, ok := x.byHash[h]; ok && gd.name() == g {
			delete(x.byHash, h)
		}
		delete(x.overflow, g)
		return
	}
	gd := groupDocs{first: refs[0], n: uint32(len(refs))}
	for i, r := range refs {
		if r.seg != refs[0].seg || r.doc != refs[0].doc+uint32(i) {
			gd = groupDocs{scattered: append([]docRef(nil), refs...)}
			break
		}
	}
	if _, ok := x.overflow[g]; ok {
		x.overflow[g] = gd
		return
	}
	if old, ok := x.byHash[h]; ok && old.name() != g {
		x.overflow[strings.Clone(g)] = gd
		return
	}
	x.byHash[h] = gd
}

func (x *groupIndex) len() int { return len(x.byHash) + len(x.overflow) }
