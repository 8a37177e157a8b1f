package bm25

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Format 3 keeps each partition's term dictionary compact: terms sorted and
// front-coded in blocks of dictBlockTerms, with a block index for binary
// search. Formats 1 and 2 spent a fixed 32-byte entry plus the whole term
// on every term, which in indexes of word pairs or identifiers (mostly
// terms of one or two documents) made the dictionary three quarters of the
// file.
//
//	block index   per block: u32 offset of the block in the blocks, u64
//	              file offset of its first term's postings
//	blocks        per term: uvarint bytes shared with the previous term
//	              (0 for a block's first term), uvarint length of the
//	              rest, the rest, uvarint df, uvarint maximum tf, the
//	              minimum norm byte, uvarint length of its postings
//
// A term's postings follow the previous term's, so their offset is the
// block's plus the lengths before it.

const (
	dictBlockTerms = 32
	dictIndexEntry = 12
)

// dictWriter builds one partition's compact dictionary.
type dictWriter struct {
	index, blocks []byte
	n             int
	prev          string
}

func (w *dictWriter) add(term string, df, maxTf uint32, minNorm uint8, postOff uint64, postLen int) error {
	shared := 0
	if w.n%dictBlockTerms == 0 {
		if len(w.blocks) > math.MaxUint32 {
			return fmt.Errorf("encode segment: term dictionary exceeds 4 GiB")
		}
		w.index = binary.LittleEndian.AppendUint32(w.index, uint32(len(w.blocks)))
		w.index = binary.LittleEndian.AppendUint64(w.index, postOff)
	} else {
		for shared < len(term) && shared < len(w.prev) && term[shared] == w.prev[shared] {
			shared++
		}
	}
	w.blocks = binary.AppendUvarint(w.blocks, uint64(shared))
	w.blocks = binary.AppendUvarint(w.blocks, uint64(len(term)-shared))
	w.blocks = append(w.blocks, term[shared:]...)
	w.blocks = binary.AppendUvarint(w.blocks, uint64(df))
	w.blocks = binary.AppendUvarint(w.blocks, uint64(maxTf))
	w.blocks = append(w.blocks, minNorm)
	w.blocks = binary.AppendUvarint(w.blocks, uint64(postLen))
	w.prev = term
	w.n++
	return nil
}

func dictBlocks(numTerms int) int { return (numTerms + dictBlockTerms - 1) / dictBlockTerms }

// dictCursor decodes a compact partition's terms in order. A damaged
// dictionary ends the iteration (ok false) rather than reading past it.
type dictCursor struct {
	s    *segment
	p    *segPart
	i    int    // index of the next term
	off  int    // where it starts in p.blob
	end  int    // end of the current block in p.blob
	post uint64 // file offset of its postings
	term []byte
}

// seek positions the cursor at the first term of block b.
func (c *dictCursor) seek(b int) bool {
	p := c.p
	if b < 0 || b >= dictBlocks(p.numTerms) {
		return false
	}
	e := p.entries[b*dictIndexEntry:]
	c.off = int(binary.LittleEndian.Uint32(e))
	c.post = binary.LittleEndian.Uint64(e[4:])
	c.end = len(p.blob)
	if b+1 < dictBlocks(p.numTerms) {
		c.end = int(binary.LittleEndian.Uint32(p.entries[(b+1)*dictIndexEntry:]))
	}
	c.i = b * dictBlockTerms
	c.term = c.term[:0]
	return c.off <= c.end && c.end <= len(p.blob)
}

// blockRange is the byte range of block b in the file, for verification.
func (c *dictCursor) blockRange(b int) (off, n int) {
	p := c.p
	lo := int(binary.LittleEndian.Uint32(p.entries[b*dictIndexEntry:]))
	hi := len(p.blob)
	if b+1 < dictBlocks(p.numTerms) {
		hi = int(binary.LittleEndian.Uint32(p.entries[(b+1)*dictIndexEntry:]))
	}
	if lo > hi || hi > len(p.blob) {
		return p.blobOff, 0
	}
	return p.blobOff + lo, hi - lo
}

// next decodes the next term into c.term and returns its entry; ok is
// false at the end of the partition or on damaged bytes.
func (c *dictCursor) next() (termEntry, bool) {
	p := c.p
	if c.i >= p.numTerms {
		return termEntry{}, false
	}
	if c.i%dictBlockTerms == 0 {
		if !c.seek(c.i / dictBlockTerms) {
			c.i = p.numTerms
			return termEntry{}, false
		}
	}
	b := p.blob[:c.end]
	uv := func() (uint64, bool) {
		if c.off >= len(b) {
			return 0, false
		}
		v, n := binary.Uvarint(b[c.off:])
		if n <= 0 {
			return 0, false
		}
		c.off += n
		return v, true
	}
	shared, ok1 := uv()
	rest, ok2 := uv()
	if !ok1 || !ok2 || shared > uint64(len(c.term)) || rest > uint64(len(b)-c.off) {
		c.i = p.numTerms
		return termEntry{}, false
	}
	c.term = append(c.term[:shared], b[c.off:c.off+int(rest)]...)
	c.off += int(rest)
	df, ok1 := uv()
	maxTf, ok2 := uv()
	if !ok1 || !ok2 || c.off >= len(b) || df > math.MaxUint32 || maxTf > math.MaxUint32 {
		c.i = p.numTerms
		return termEntry{}, false
	}
	minNorm := b[c.off]
	c.off++
	n, ok := uv()
	if !ok {
		c.i = p.numTerms
		return termEntry{}, false
	}
	ent := termEntry{df: uint32(df), maxTf: uint32(maxTf), minNorm: minNorm, limit: uint32(c.s.numDocs)}
	body := uint64(c.s.covered)
	if c.s.blockCRC == nil {
		body = uint64(len(c.s.data))
	}
	off := c.post
	c.post += n
	c.i++
	if off > body || n > body-off || (ent.df > blockSize && uint64(numBlocks(int(ent.df)))*8 > n) {
		ent.df = 0
		return ent, true
	}
	ent.post = c.s.data[off : off+n]
	return ent, true
}

// firstTerm returns block b's first term (pointing into the segment's
// bytes), verifying the block; "" on damaged bytes.
func (s *segment) firstTerm(p *segPart, b int) (string, error) {
	c := dictCursor{s: s, p: p}
	off, n := c.blockRange(b)
	if err := s.check(off, n); err != nil {
		return "", err
	}
	if !c.seek(b) {
		return "", nil
	}
	blk := p.blob[c.off:c.end]
	shared, k := binary.Uvarint(blk)
	if k <= 0 || shared != 0 {
		return "", nil
	}
	rest, m := binary.Uvarint(blk[k:])
	if m <= 0 || rest > uint64(len(blk)-k-m) {
		return "", nil
	}
	return unsafeString(blk[k+m : k+m+int(rest)]), nil
}

// lookupCompact finds term in a compact partition and verifies its
// postings.
func (s *segment) lookupCompact(p *segPart, term string) (termEntry, bool, error) {
	i, e, err := s.findCompact(p, term)
	if err != nil || i < 0 {
		return termEntry{}, false, err
	}
	if err := s.checkSlice(e.post); err != nil {
		return termEntry{}, false, err
	}
	return e, true, nil
}

// findCompact returns the index and entry of term in a compact partition,
// or -1: a binary search over the blocks' first terms, then a scan of one
// block.
func (s *segment) findCompact(p *segPart, term string) (int, termEntry, error) {
	if err := s.check(p.entriesOff, len(p.entries)); err != nil {
		return -1, termEntry{}, err
	}
	nb := dictBlocks(p.numTerms)
	lo, hi := 0, nb // find the last block whose first term <= term
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		first, err := s.firstTerm(p, m)
		if err != nil {
			return -1, termEntry{}, err
		}
		if first <= term {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return -1, termEntry{}, nil
	}
	c := dictCursor{s: s, p: p}
	if !c.seek(lo - 1) {
		return -1, termEntry{}, nil
	}
	for k := 0; k < dictBlockTerms; k++ {
		i := c.i
		e, ok := c.next()
		if !ok {
			break
		}
		switch t := unsafeString(c.term); {
		case t == term:
			return i, e, nil
		case t > term:
			return -1, termEntry{}, nil
		}
	}
	return -1, termEntry{}, nil
}

// termIter walks a partition's terms in order, whatever its format.
type termIter struct {
	s   *segment
	p   *segPart
	i   int
	cur dictCursor
	// term and ent are the current term (a string of its own) and entry;
	// ok is false past the end.
	term string
	ent  termEntry
	ok   bool
}

func newTermIter(s *segment, p *segPart) *termIter {
	it := &termIter{s: s, p: p, i: -1, cur: dictCursor{s: s, p: p}}
	it.advance()
	return it
}

// advance moves to the next term.
func (it *termIter) advance() {
	it.i++
	if it.i >= it.p.numTerms {
		it.ok = false
		return
	}
	if !it.p.compact {
		it.term, it.ent, it.ok = it.p.term(it.i), it.s.entry(it.p, it.i), true
		return
	}
	e, ok := it.cur.next()
	it.term, it.ent, it.ok = string(it.cur.term), e, ok
}
