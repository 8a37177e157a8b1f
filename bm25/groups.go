package bm25

// groupIndex finds a group's live docs, for a batch that replaces or
// deletes the group. Like idIndex it holds no copy of any name (nameMap
// reads a group's name from its first doc); and it holds a group's docs as
// their first doc and a count, since a flush writes a group's docs one
// after another and a merge keeps their order. A map from the group names
// to slices of their docs was two objects per group in every arm, which
// every garbage collection marked: half of a collection's marking in a
// server holding the 100k-chunk load store (gctrace: 54-69 ms of mark phase
// with it, 29-37 ms without).
type groupIndex struct {
	nameMap[groupDocs]
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
	return &groupIndex{newNameMap(groupDocs.name)}
}

// docs returns g's live docs, appended to buf.
func (x *groupIndex) docs(g string, buf []docRef) []docRef {
	gd, ok := x.get(g)
	if !ok {
		return buf
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
	if len(refs) == 0 {
		x.delete(g)
		return
	}
	gd := groupDocs{first: refs[0], n: uint32(len(refs))}
	for i, r := range refs {
		if r.seg != refs[0].seg || r.doc != refs[0].doc+uint32(i) {
			gd = groupDocs{scattered: append([]docRef(nil), refs...)}
			break
		}
	}
	x.nameMap.set(g, gd)
}
