package bm25

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Dense term frequencies of frequent terms.
//
// A query's frequent words (a word of nearly every chunk of a product
// manual, or a stop word an analyzer keeps) have long postings and low
// scores. Pruning leaves them to the second phase (refine), which only
// looks up the candidates' frequencies; but a candidate's posting sits in a
// block of varint gaps that is decoded from its start, and a thousand
// candidates spread over a segment touch nearly every block: refine decodes
// almost the whole list anyway, for every query that has the word. A
// segment that is asked for such a term again and again keeps its
// frequencies as one byte per document instead, built once from the
// postings, and refine reads one byte per candidate. Segments are
// immutable, so a table never goes stale; it lives as long as its segment.
// Scores are computed from the same frequencies in the same order, so
// results do not change.

const (
	// denseMinDocs is the smallest segment that keeps tables: below it a
	// list is short enough to decode.
	denseMinDocs = 4096
	// denseMinShare: a table is kept for a term of at least one in
	// denseMinShare of the segment's docs, so it takes at most
	// denseMinShare bytes per posting (a posting takes one to three).
	denseMinShare = 16
	// denseWarmUses is how many searches must want a term's table before
	// it is built: a single search (the command line's) decodes the list
	// once, which is cheaper than building the table.
	denseWarmUses = 4
	// denseMaxTracked bounds the terms a segment counts uses of.
	denseMaxTracked = 4096
	// DefaultDenseBytes bounds an Index's tables (Options.DenseBytes).
	DefaultDenseBytes = 16 << 20
)

// denseTable is a segment's dense term frequencies.
type denseTable struct {
	mu sync.Mutex
	// terms is keyed by the address of a term's postings, unique per term
	// and partition within the segment.
	terms map[uintptr]*denseTerm
	bytes int64 // of built tables, charged to the Index's budget
	// retired: the segment has left the Index (merged away); it builds no
	// more tables, and its bytes are no longer charged.
	retired bool
}

type denseTerm struct {
	uses int
	// building: a search is building the table; damaged: the postings
	// could not be decoded, so there is never a table.
	building, damaged bool
	tf                []uint8 // nil until built
}

// denseBudget is what an Index's segments' tables may take together.
type denseBudget struct {
	max  int64
	used atomic.Int64
}

// denseTF returns doc d's frequency of the term of e at tf[d] (0: absent),
// or nil when the term gets no table (yet): then the caller decodes its
// postings.
func (s *segment) denseTF(e termEntry, budget *denseBudget) []uint8 {
	if budget == nil || s.numDocs < denseMinDocs || int(e.df)*denseMinShare < s.numDocs || e.maxTf > 255 || len(e.post) == 0 {
		return nil
	}
	key := uintptr(unsafe.Pointer(unsafe.SliceData(e.post)))
	t := &s.dense
	t.mu.Lock()
	dt := t.terms[key]
	if dt != nil && dt.tf != nil {
		t.mu.Unlock()
		return dt.tf
	}
	if t.retired {
		t.mu.Unlock()
		return nil
	}
	if dt == nil {
		if len(t.terms) >= denseMaxTracked {
			t.mu.Unlock()
			return nil
		}
		if t.terms == nil {
			t.terms = map[uintptr]*denseTerm{}
		}
		dt = &denseTerm{}
		t.terms[key] = dt
	}
	if dt.building || dt.damaged {
		t.mu.Unlock()
		return nil
	}
	dt.uses++
	size := int64(e.limit)
	if dt.uses < denseWarmUses {
		t.mu.Unlock()
		return nil
	}
	// The budget is taken before building, so that concurrent searches of
	// several terms cannot overrun it together.
	if budget.used.Add(size) > budget.max {
		budget.used.Add(-size)
		t.mu.Unlock()
		return nil
	}
	t.bytes += size
	dt.building = true
	t.mu.Unlock()

	tf := make([]uint8, e.limit)
	var p postings
	p.reset(e)
	for p.next() {
		tf[p.doc] = uint8(p.tf)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	dt.building = false
	switch {
	case t.retired:
		// retireDense gave this table's bytes back with the others.
		return nil
	case p.i != p.df:
		// Damaged postings: the caller's decoding reports them as it
		// does without a table.
		dt.damaged = true
		t.bytes -= size
		budget.used.Add(-size)
		return nil
	}
	dt.tf = tf
	return tf
}

// retire gives a segment's tables' bytes back to the budget when the
// segment leaves the Index; searches still running on it keep the tables
// they have.
func (s *segment) retireDense(budget *denseBudget) {
	t := &s.dense
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.retired {
		return
	}
	t.retired = true
	if budget != nil {
		budget.used.Add(-t.bytes)
	}
	t.bytes = 0
}
