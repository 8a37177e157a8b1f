package bm25

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A segment is immutable: a set of documents with, for every partition
// (field × analyzer), a sorted term dictionary and block-encoded postings.
//
// Layout of format 3 (little endian):
//
//	"SBM25SG3"                      magic and format version
//	postings                        per term, see encodePostings
//	term dictionaries               per partition: block index and
//	                                front-coded blocks (see dict.go)
//	field lengths and norms         per field: u32 exact length and the
//	                                Lucene norm byte of every document
//	doc tables                      ids (u32 offsets + bytes), groups (u32
//	                                group number per doc, u32 offsets +
//	                                bytes), u16 analyzer per doc, attributes
//	                                (u32 offsets + per doc a varint count and
//	                                key/value strings)
//	meta                            varint description of all the above
//	block checksums                 CRC-32C of every 4 KiB block of the
//	                                bytes before it, then the CRC-32C of
//	                                the table itself
//	footer (24 bytes)               block table offset u64, meta offset
//	                                u64, CRC-32C u32 of all bytes before
//	                                it, "BM2F"
//
// Opening reads only the meta, the per-document tables and the block
// table, and verifies the blocks they lie in: its cost grows with the
// number of documents, not with the postings. A term's dictionary probes
// and postings are verified block by block when a search first reads them,
// so damage is reported (ErrCorrupt, naming the file) before damaged bytes
// are used, and a process verifies each block once. Verify checks the
// whole file against the footer's checksum.
//
// Format 2 ("SBM25SG2": the same but for a fixed-size 32-byte entry and the
// whole term per term) and format 1 ("SBM25SG1", footer of 16 bytes without
// the block table, docs as one varint stream) are still read; format 1's
// checksum is verified over the whole file on open and its documents are
// decoded into memory.

const (
	segMagic1   = "SBM25SG1"
	segMagic2   = "SBM25SG2"
	segMagic    = "SBM25SG3"
	footMagic1  = "BM2E"
	footMagic   = "BM2F"
	footerSize1 = 16
	footerSize  = 24
	entrySize   = 32
	blockSize   = 128
	// crcBlockSize is the unit of lazy verification: a page, so that a
	// dictionary probe verifies (and maps) no more than it reads. Segments
	// written with 16 KiB blocks (crcBlockSize16) are read too: the table's
	// length says which.
	crcBlockSize   = 4 << 10
	crcBlockSize16 = 16 << 10
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type segField struct {
	name    string
	lengths []byte // u32 per doc
	norms   []byte // one byte per doc
}

func (f *segField) length(doc uint32) uint32 {
	return binary.LittleEndian.Uint32(f.lengths[4*doc:])
}

type segPart struct {
	field    int // index into segment.fields
	analyzer string
	docCount int64
	sumTTF   int64
	numTerms int
	// compact (format 3): entries is the dictionary's block index and blob
	// its blocks (dict.go); otherwise entries are fixed-size entries
	// pointing into blob, the terms.
	compact bool
	entries []byte
	blob    []byte
	// entriesOff and blobOff are the file offsets of entries and blob.
	entriesOff, blobOff int
	// cache holds recent lookups (termcache.go); nil in small partitions.
	cache *termCache
	// filter is a Bloom filter of the partition's terms (termcache.go),
	// built once its lookups have paid for it; nil for a partition too
	// large for one.
	filter *lazyFilter
}

type segment struct {
	name string // file name; "" for in-memory segments
	path string // file path, for errors; "" in memory
	data []byte
	// blockCRC holds the checksum of every crcBlockSize block of
	// data[:covered]; nil when every byte was verified on open (format
	// 1, in-memory segments). verified marks the blocks checked.
	blockCRC []byte
	covered  int
	bsize    int // block size of blockCRC
	verified []atomic.Uint64
	numDocs  int
	// Per-document tables, in the file (format 2) or decoded on the heap
	// (format 1), all little endian: id d is idBytes[idOff[d]:idOff[d+1]]
	// (u32 offsets); its group is group number groupIdx[d] (u32), whose
	// name is groupBytes[groupOff[g]:groupOff[g+1]]; its analyzer index is
	// docAn[d] (u16); its attributes are attrBytes[attrOff[d]:attrOff[d+1]]
	// (nil attrOff: no doc has attributes).
	idOff, idBytes                 []byte
	groupIdx, groupOff, groupBytes []byte
	numGroups                      int
	docAn                          []byte
	attrOff, attrBytes             []byte
	analyzers                      []string
	fields                         []segField
	parts                          []segPart
	// ord[d] is doc d's rank among the segment's ids in string order
	// (deleted docs included): searches break score ties by comparing
	// integers. Computed once the segment has broken ties in ordWarmUses
	// searches (ordinalsIfWarm); ordDone says they are there.
	ordOnce sync.Once
	ord     []uint32
	ordDone atomic.Bool
	ordUses atomic.Int32
	// dense holds the frequencies of the segment's frequent terms that
	// searches ask for often, one byte per doc (dense.go).
	dense denseTable
}

// ordWarmUses is how many searches break ties on a segment by comparing id
// strings before it gets ordinals. Sorting every id of a 140k-chunk store
// cost a command-line search (one search per process) about 30 ms, more
// than its string comparisons; a server pays it once and then compares
// integers.
const ordWarmUses = 8

func u32at(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }

// id is doc d's id; it points into the segment's bytes (clone it to keep it).
func (s *segment) id(d uint32) string {
	return unsafeString(s.idBytes[u32at(s.idOff, int(d)):u32at(s.idOff, int(d)+1)])
}

// ordinals returns the segment's id ordinals (see segment.ord).
func (s *segment) ordinals() []uint32 {
	s.ordOnce.Do(func() {
		n := s.numDocs
		s.ord = make([]uint32, n)
		sorted := true
		for d := 1; d < n && sorted; d++ {
			sorted = s.id(uint32(d-1)) < s.id(uint32(d))
		}
		if sorted {
			for d := range s.ord {
				s.ord[d] = uint32(d)
			}
			s.ordDone.Store(true)
			return
		}
		perm := make([]uint32, n)
		for d := range perm {
			perm[d] = uint32(d)
		}
		slices.SortFunc(perm, func(a, b uint32) int { return strings.Compare(s.id(a), s.id(b)) })
		for i, d := range perm {
			s.ord[d] = uint32(i)
		}
		s.ordDone.Store(true)
	})
	return s.ord
}

// ordinalsIfWarm counts a search that breaks ties on the segment and
// returns its ordinals from the ordWarmUses-th such search on, nil before.
func (s *segment) ordinalsIfWarm() []uint32 {
	if s.ordDone.Load() {
		return s.ord
	}
	if s.ordUses.Add(1) < ordWarmUses {
		return nil
	}
	return s.ordinals()
}

// group is doc d's group; it points into the segment's bytes.
func (s *segment) group(d uint32) string {
	g := int(u32at(s.groupIdx, int(d)))
	return unsafeString(s.groupBytes[u32at(s.groupOff, g):u32at(s.groupOff, g+1)])
}

// docAnalyzer is the index into s.analyzers of doc d's analyzer.
func (s *segment) docAnalyzer(d uint32) int {
	return int(binary.LittleEndian.Uint16(s.docAn[2*d:]))
}

// attr decodes doc d's attributes (nil when it has none). The strings
// point into the segment's bytes.
func (s *segment) attr(d uint32) map[string]string {
	if s.attrOff == nil {
		return nil
	}
	r := &reader{b: s.attrBytes[u32at(s.attrOff, int(d)):u32at(s.attrOff, int(d)+1)]}
	n := r.int(1 << 20)
	if n == 0 || r.err != nil {
		return nil
	}
	m := make(map[string]string, n)
	for j := 0; j < n && r.err == nil; j++ {
		k := r.str()
		m[k] = r.str()
	}
	return m
}

// check verifies the blocks holding data[off:off+n] that no earlier call
// verified. Damage is an error wrapping ErrCorrupt that names the file.
func (s *segment) check(off, n int) error {
	if s.blockCRC == nil || n <= 0 {
		return nil
	}
	if off < 0 || off+n > s.covered {
		return fmt.Errorf("segment %s: range %d+%d outside the checksummed %d bytes: %w", s.where(), off, n, s.covered, ErrCorrupt)
	}
	for b := off / s.bsize; b <= (off+n-1)/s.bsize; b++ {
		w, bit := b>>6, uint64(1)<<(b&63)
		if s.verified[w].Load()&bit != 0 {
			continue
		}
		lo, hi := b*s.bsize, min((b+1)*s.bsize, s.covered)
		if crc32.Checksum(s.data[lo:hi], castagnoli) != u32at(s.blockCRC, b) {
			return fmt.Errorf("segment %s: checksum mismatch in bytes %d-%d: %w", s.where(), lo, hi, ErrCorrupt)
		}
		s.verified[w].Or(bit)
	}
	return nil
}

// checkSlice verifies the blocks holding b, a subslice of s.data.
func (s *segment) checkSlice(b []byte) error {
	if s.blockCRC == nil || len(b) == 0 {
		return nil
	}
	return s.check(int(uintptr(unsafe.Pointer(&b[0]))-uintptr(unsafe.Pointer(&s.data[0]))), len(b))
}

// verifyAll checks the whole segment against its footer's checksum and
// marks every block verified (merges and Verify read everything).
func (s *segment) verifyAll() error {
	if s.blockCRC == nil {
		return nil
	}
	if crc32.Checksum(s.data[:len(s.data)-8], castagnoli) != binary.LittleEndian.Uint32(s.data[len(s.data)-8:]) {
		return fmt.Errorf("segment %s: checksum mismatch: %w", s.where(), ErrCorrupt)
	}
	for i := range s.verified {
		s.verified[i].Store(^uint64(0))
	}
	return nil
}

func (s *segment) where() string {
	if s.path != "" {
		return s.path
	}
	return s.name
}

// termEntry is a decoded term dictionary entry.
type termEntry struct {
	df, maxTf uint32
	limit     uint32 // docs in the segment
	minNorm   uint8
	post      []byte
}

// term is the partition's i-th term ("" when its entry points outside the
// term blob, which only a damaged segment does). Walking terms in order is
// termIter's job: on a compact partition term decodes a block each time.
func (p *segPart) term(i int) string {
	if p.compact {
		c := dictCursor{p: p, s: &segment{}}
		if !c.seek(i / dictBlockTerms) {
			return ""
		}
		for k := 0; k <= i%dictBlockTerms; k++ {
			if _, ok := c.next(); !ok {
				return ""
			}
		}
		return string(c.term)
	}
	e := p.entries[i*entrySize:]
	off := uint64(binary.LittleEndian.Uint32(e))
	n := uint64(binary.LittleEndian.Uint32(e[4:]))
	if off+n > uint64(len(p.blob)) {
		return ""
	}
	return unsafeString(p.blob[off : off+n])
}

// entry decodes the partition's i-th entry. Offsets that point outside the
// segment (a damaged or hostile file) give an entry without postings.
func (s *segment) entry(p *segPart, i int) termEntry {
	if p.compact {
		c := dictCursor{p: p, s: s}
		if !c.seek(i / dictBlockTerms) {
			return termEntry{limit: uint32(s.numDocs)}
		}
		var e termEntry
		for k := 0; k <= i%dictBlockTerms; k++ {
			var ok bool
			if e, ok = c.next(); !ok {
				return termEntry{limit: uint32(s.numDocs)}
			}
		}
		return e
	}
	e := p.entries[i*entrySize:]
	off := binary.LittleEndian.Uint64(e[16:])
	n := uint64(binary.LittleEndian.Uint32(e[24:]))
	ent := termEntry{
		df:      binary.LittleEndian.Uint32(e[8:]),
		maxTf:   binary.LittleEndian.Uint32(e[12:]),
		minNorm: e[28],
		limit:   uint32(s.numDocs),
	}
	body := uint64(s.covered)
	if s.blockCRC == nil {
		body = uint64(len(s.data))
	}
	if off > body || n > body-off || (ent.df > blockSize && uint64(numBlocks(int(ent.df)))*8 > n) {
		ent.df = 0
		return ent
	}
	ent.post = s.data[off : off+n]
	return ent
}

// find returns the index of term in the partition, or -1, verifying the
// dictionary blocks it reads.
func (s *segment) find(p *segPart, term string) (int, error) {
	if p.compact {
		i, _, err := s.findCompact(p, term)
		return i, err
	}
	var err error
	probe := func(i int) string {
		if err != nil {
			return ""
		}
		if err = s.check(p.entriesOff+i*entrySize, entrySize); err != nil {
			return ""
		}
		e := p.entries[i*entrySize:]
		off, n := int(binary.LittleEndian.Uint32(e)), int(binary.LittleEndian.Uint32(e[4:]))
		if off+n <= len(p.blob) {
			if err = s.check(p.blobOff+off, n); err != nil {
				return ""
			}
		}
		return p.term(i)
	}
	lo, hi := 0, p.numTerms
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if probe(m) < term {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if err != nil {
		return -1, err
	}
	if lo < p.numTerms && probe(lo) == term {
		return lo, err
	}
	return -1, err
}

// lookup finds term in the partition and verifies its postings.
func (s *segment) lookup(p *segPart, term string) (termEntry, bool, error) {
	if p.cache == nil && p.filter == nil {
		return s.lookupUncached(p, term)
	}
	h := termHash(term)
	if f := p.filter.get(s, p); f != nil && !f.mayHave(h) {
		return termEntry{}, false, nil
	}
	if p.cache == nil {
		return s.lookupUncached(p, term)
	}
	if e, found, ok := p.cache.get(term, h); ok {
		return e, found, nil
	}
	e, found, err := s.lookupUncached(p, term)
	if err == nil {
		// The key is the caller's string: it may point into a mapping or a
		// buffer the caller reuses.
		p.cache.put(strings.Clone(term), h, e, found)
	}
	return e, found, err
}

// lookupUncached is lookup without the partition's cache.
func (s *segment) lookupUncached(p *segPart, term string) (termEntry, bool, error) {
	if p.compact {
		return s.lookupCompact(p, term)
	}
	i, err := s.find(p, term)
	if err != nil || i < 0 {
		return termEntry{}, false, err
	}
	e := s.entry(p, i)
	if err := s.checkSlice(e.post); err != nil {
		return termEntry{}, false, err
	}
	return e, true, nil
}

// findPart returns the index of the partition (field, analyzer), or -1.
func (s *segment) findPart(field, analyzer string) int {
	for i := range s.parts {
		p := &s.parts[i]
		if p.analyzer == analyzer && s.fields[p.field].name == field {
			return i
		}
	}
	return -1
}

func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// ErrCorrupt is wrapped by every error about a damaged index file: a
// checksum, format or truncation failure, or a segment the manifest names
// that is missing. The error names the file.
var ErrCorrupt = errors.New("bm25: corrupt index file")

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = fmt.Errorf("bad varint at offset %d: %w", r.off, ErrCorrupt)
		return 0
	}
	r.off += n
	return v
}

func (r *reader) int(max uint64) int {
	v := r.uvarint()
	if r.err == nil && v > max {
		r.err = fmt.Errorf("value %d out of range at offset %d: %w", v, r.off, ErrCorrupt)
		return 0
	}
	return int(v)
}

func (r *reader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.err = fmt.Errorf("length %d past end at offset %d: %w", n, r.off, ErrCorrupt)
		return nil
	}
	b := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return b
}

func (r *reader) str() string { return unsafeString(r.bytes(r.uvarint())) }

// span reads an (offset, length) pair and returns that range of data.
func (r *reader) span(data []byte, limit int) []byte {
	_, b := r.spanAt(data, limit)
	return b
}

// spanAt is span that also returns the offset.
func (r *reader) spanAt(data []byte, limit int) (int, []byte) {
	off := r.uvarint()
	n := r.uvarint()
	if r.err != nil {
		return 0, nil
	}
	if off > uint64(limit) || n > uint64(limit)-off {
		r.err = fmt.Errorf("span %d+%d past %d: %w", off, n, limit, ErrCorrupt)
		return 0, nil
	}
	return int(off), data[off : off+n]
}

// openSegment checks and decodes a segment's bytes. data must not change
// while the segment is reachable: lookups, postings and the per-document
// tables read it in place, and strings the package hands out are cloned.
func openSegment(name string, data []byte) (*segment, error) {
	if len(data) >= len(segMagic1) && string(data[:len(segMagic1)]) == segMagic1 {
		return openSegmentV1(name, data)
	}
	if len(data) < len(segMagic)+footerSize+4 || (string(data[:len(segMagic)]) != segMagic && string(data[:len(segMagic2)]) != segMagic2) {
		return nil, fmt.Errorf("segment %s: bad header: %w", name, ErrCorrupt)
	}
	compact := string(data[:len(segMagic)]) == segMagic
	foot := data[len(data)-footerSize:]
	if string(foot[20:]) != footMagic {
		return nil, fmt.Errorf("segment %s: bad footer: %w", name, ErrCorrupt)
	}
	tableOff := binary.LittleEndian.Uint64(foot)
	metaOff := binary.LittleEndian.Uint64(foot[8:])
	end := uint64(len(data) - footerSize)
	if tableOff > end || metaOff > tableOff {
		return nil, fmt.Errorf("segment %s: bad footer offsets: %w", name, ErrCorrupt)
	}
	table := data[tableOff:end]
	bsize := uint64(crcBlockSize)
	nb := (tableOff + bsize - 1) / bsize
	if uint64(len(table)) != 4*nb+4 {
		bsize = crcBlockSize16
		nb = (tableOff + bsize - 1) / bsize
	}
	if uint64(len(table)) != 4*nb+4 || crc32.Checksum(table[:4*nb], castagnoli) != binary.LittleEndian.Uint32(table[4*nb:]) {
		return nil, fmt.Errorf("segment %s: block checksum table damaged: %w", name, ErrCorrupt)
	}
	s := &segment{name: name, data: data, covered: int(tableOff), blockCRC: table[:4*nb], bsize: int(bsize),
		verified: make([]atomic.Uint64, (nb+63)/64)}
	if name == "" {
		// In memory: the bytes were just encoded.
		s.blockCRC = nil
	}
	if err := s.check(int(metaOff), int(tableOff-metaOff)); err != nil {
		return nil, err
	}
	if err := s.decodeMeta(data[:tableOff], int(metaOff), compact); err != nil {
		return nil, fmt.Errorf("segment %s: %w", name, err)
	}
	return s, nil
}

// decodeMeta reads format 2's or 3's (compact) meta at metaOff of body and
// checks the per-document tables.
func (s *segment) decodeMeta(body []byte, metaOff int, compact bool) error {
	data := s.data
	limit := metaOff
	r := &reader{b: body, off: metaOff}
	s.numDocs = r.int(1 << 31)
	nan := r.int(1 << 16)
	for i := 0; i < nan && r.err == nil; i++ {
		s.analyzers = append(s.analyzers, strings.Clone(r.str()))
	}
	nf := r.int(1 << 16)
	for i := 0; i < nf && r.err == nil; i++ {
		f := segField{name: strings.Clone(r.str())}
		f.lengths = r.span(data, limit)
		f.norms = r.span(data, limit)
		if r.err == nil && (len(f.lengths) != 4*s.numDocs || len(f.norms) != s.numDocs) {
			r.err = fmt.Errorf("field %q: norms of the wrong size: %w", f.name, ErrCorrupt)
		}
		s.fields = append(s.fields, f)
	}
	np := r.int(1 << 20)
	for i := 0; i < np && r.err == nil; i++ {
		p := segPart{field: r.int(uint64(nf)), analyzer: strings.Clone(r.str())}
		p.docCount = int64(r.uvarint())
		p.sumTTF = int64(r.uvarint())
		p.numTerms = r.int(1 << 31)
		p.entriesOff, p.entries = r.spanAt(data, limit)
		p.blobOff, p.blob = r.spanAt(data, limit)
		p.compact = compact
		want := p.numTerms * entrySize
		if compact {
			want = dictBlocks(p.numTerms) * dictIndexEntry
		}
		if r.err == nil && (p.field >= nf || len(p.entries) != want) {
			r.err = fmt.Errorf("partition %d: bad term table: %w", i, ErrCorrupt)
		}
		p.cache = newTermCache(p.numTerms)
		p.filter = newLazyFilter(p.numTerms)
		s.parts = append(s.parts, p)
	}
	s.idOff = r.span(data, limit)
	s.idBytes = r.span(data, limit)
	s.groupIdx = r.span(data, limit)
	s.groupOff = r.span(data, limit)
	s.groupBytes = r.span(data, limit)
	s.docAn = r.span(data, limit)
	s.attrOff = r.span(data, limit)
	s.attrBytes = r.span(data, limit)
	if r.err != nil {
		return fmt.Errorf("meta: %w", r.err)
	}
	if len(s.attrOff) == 0 {
		s.attrOff = nil
	}
	// The per-document tables are read for any hit: verify them now.
	for _, b := range [][]byte{s.idOff, s.idBytes, s.groupIdx, s.groupOff, s.groupBytes, s.docAn, s.attrOff} {
		if err := s.checkSlice(b); err != nil {
			return err
		}
	}
	for _, f := range s.fields {
		if err := s.checkSlice(f.lengths); err != nil {
			return err
		}
		if err := s.checkSlice(f.norms); err != nil {
			return err
		}
	}
	return s.checkDocTables()
}

// checkDocTables checks that the per-document tables are consistent, so
// that id, group, docAnalyzer and attr need no checks.
func (s *segment) checkDocTables() error {
	n := s.numDocs
	if len(s.groupOff)%4 != 0 || len(s.groupOff) < 4 {
		return fmt.Errorf("docs: bad group table: %w", ErrCorrupt)
	}
	s.numGroups = len(s.groupOff)/4 - 1
	if len(s.idOff) != 4*(n+1) || len(s.groupIdx) != 4*n || len(s.docAn) != 2*n ||
		(s.attrOff != nil && len(s.attrOff) != 4*(n+1)) {
		return fmt.Errorf("docs: tables of the wrong size: %w", ErrCorrupt)
	}
	monotone := func(off []byte, count, limit int) bool {
		prev := uint32(0)
		for i := 0; i <= count; i++ {
			v := u32at(off, i)
			if v < prev || int(v) > limit {
				return false
			}
			prev = v
		}
		return true
	}
	if !monotone(s.idOff, n, len(s.idBytes)) || !monotone(s.groupOff, s.numGroups, len(s.groupBytes)) ||
		(s.attrOff != nil && !monotone(s.attrOff, n, len(s.attrBytes))) {
		return fmt.Errorf("docs: offsets out of order: %w", ErrCorrupt)
	}
	for d := 0; d < n; d++ {
		if int(u32at(s.groupIdx, d)) >= s.numGroups {
			return fmt.Errorf("doc %d: bad group: %w", d, ErrCorrupt)
		}
		if s.docAnalyzer(uint32(d)) >= len(s.analyzers) {
			return fmt.Errorf("doc %d: bad analyzer: %w", d, ErrCorrupt)
		}
	}
	return nil
}

// openSegmentV1 opens a format 1 segment: whole-file checksum, every term
// entry checked, documents decoded into the heap tables.
func openSegmentV1(name string, data []byte) (*segment, error) {
	if len(data) < len(segMagic1)+footerSize1 {
		return nil, fmt.Errorf("segment %s: bad header: %w", name, ErrCorrupt)
	}
	foot := data[len(data)-footerSize1:]
	if string(foot[12:]) != footMagic1 {
		return nil, fmt.Errorf("segment %s: bad footer: %w", name, ErrCorrupt)
	}
	body := len(data) - footerSize1
	if crc32.Checksum(data[:len(data)-8], castagnoli) != binary.LittleEndian.Uint32(foot[8:]) {
		return nil, fmt.Errorf("segment %s: checksum mismatch: %w", name, ErrCorrupt)
	}
	metaOff := binary.LittleEndian.Uint64(foot)
	if metaOff > uint64(body) {
		return nil, fmt.Errorf("segment %s: bad meta offset: %w", name, ErrCorrupt)
	}
	s := &segment{name: name, data: data, covered: body}
	r := &reader{b: data[:body], off: int(metaOff)}
	s.numDocs = r.int(1 << 31)
	nan := r.int(1 << 16)
	for i := 0; i < nan && r.err == nil; i++ {
		s.analyzers = append(s.analyzers, strings.Clone(r.str()))
	}
	nf := r.int(1 << 16)
	for i := 0; i < nf && r.err == nil; i++ {
		f := segField{name: strings.Clone(r.str())}
		f.lengths = r.span(data, body)
		f.norms = r.span(data, body)
		if r.err == nil && (len(f.lengths) != 4*s.numDocs || len(f.norms) != s.numDocs) {
			r.err = fmt.Errorf("field %q: norms of the wrong size: %w", f.name, ErrCorrupt)
		}
		s.fields = append(s.fields, f)
	}
	np := r.int(1 << 20)
	for i := 0; i < np && r.err == nil; i++ {
		p := segPart{field: r.int(uint64(nf)), analyzer: strings.Clone(r.str())}
		p.docCount = int64(r.uvarint())
		p.sumTTF = int64(r.uvarint())
		p.numTerms = r.int(1 << 31)
		p.entriesOff, p.entries = r.spanAt(data, body)
		p.blobOff, p.blob = r.spanAt(data, body)
		if r.err == nil && (p.field >= nf || len(p.entries) != p.numTerms*entrySize) {
			r.err = fmt.Errorf("partition %d: bad term table: %w", i, ErrCorrupt)
		}
		p.cache = newTermCache(p.numTerms)
		p.filter = newLazyFilter(p.numTerms)
		s.parts = append(s.parts, p)
	}
	docs := r.span(data, body)
	if r.err != nil {
		return nil, fmt.Errorf("segment %s: meta: %w", name, r.err)
	}
	// Doc ids, groups and attributes live in heap tables of format 2's
	// shape, so data may be an mmap that is unmapped once the segment is
	// unreachable.
	dr := &reader{b: bytes.Clone(docs)}
	n := s.numDocs
	s.idOff = make([]byte, 0, 4*(n+1))
	s.idOff = binary.LittleEndian.AppendUint32(s.idOff, 0)
	s.groupIdx = make([]byte, 0, 4*n)
	s.groupOff = binary.LittleEndian.AppendUint32(nil, 0)
	s.docAn = make([]byte, 0, 2*n)
	var attrOff []byte
	for d := 0; d < n && dr.err == nil; d++ {
		s.idBytes = append(s.idBytes, dr.bytes(dr.uvarint())...)
		if len(s.idBytes) > math.MaxUint32 {
			dr.err = fmt.Errorf("doc ids exceed 4 GiB: %w", ErrCorrupt)
		}
		s.idOff = binary.LittleEndian.AppendUint32(s.idOff, uint32(len(s.idBytes)))
		if g := dr.str(); g != "" || d == 0 {
			// "" means: same group as the previous doc.
			s.groupBytes = append(s.groupBytes, g...)
			s.groupOff = binary.LittleEndian.AppendUint32(s.groupOff, uint32(len(s.groupBytes)))
		}
		s.groupIdx = binary.LittleEndian.AppendUint32(s.groupIdx, uint32(len(s.groupOff)/4-2))
		an := dr.int(1 << 16)
		if dr.err == nil && an >= len(s.analyzers) {
			dr.err = fmt.Errorf("doc %d: bad analyzer: %w", d, ErrCorrupt)
		}
		s.docAn = binary.LittleEndian.AppendUint16(s.docAn, uint16(an))
		start := dr.off
		na := dr.int(1 << 20)
		for j := 0; j < na && dr.err == nil; j++ {
			dr.str()
			dr.str()
		}
		if na > 0 && attrOff == nil {
			attrOff = make([]byte, 4*(d+1), 4*(n+1))
		}
		if attrOff != nil {
			s.attrBytes = append(s.attrBytes, dr.b[start:dr.off]...)
			attrOff = binary.LittleEndian.AppendUint32(attrOff, uint32(len(s.attrBytes)))
		}
	}
	if dr.err != nil {
		return nil, fmt.Errorf("segment %s: docs: %w", name, dr.err)
	}
	s.attrOff = attrOff
	if err := s.checkDocTables(); err != nil {
		return nil, fmt.Errorf("segment %s: %w", name, err)
	}
	return s, nil
}

func numBlocks(df int) int { return (df + blockSize - 1) / blockSize }

// postings iterates one term's postings in one segment.
//
// Encoding: when df > blockSize, a skip table of one (lastDoc u32, endOffset
// u32) pair per block of blockSize postings comes first. Then every posting
// is uvarint(delta<<1 | tf==1), followed by uvarint(tf) when tf != 1, where
// delta is the gap to the previous doc (the first doc is stored as is).
type postings struct {
	data  []byte // posting bytes after the skip table
	skip  []byte // nil when df <= blockSize
	df    int
	i     int // postings decoded so far
	off   int
	doc   uint32
	tf    uint32
	limit uint32 // the segment's doc count
	valid bool
}

func (p *postings) reset(e termEntry) {
	p.limit = e.limit
	p.df = int(e.df)
	p.skip = nil
	p.data = e.post
	if p.df > blockSize {
		n := numBlocks(p.df) * 8
		p.skip = e.post[:n]
		p.data = e.post[n:]
	}
	p.i, p.off, p.doc, p.tf, p.valid = 0, 0, 0, 0, false
}

// next moves to the next posting; false at the end or on corrupt data.
func (p *postings) next() bool {
	if p.i >= p.df || p.off >= len(p.data) {
		p.valid = false
		return false
	}
	var v uint64
	if b := p.data[p.off]; b < 0x80 {
		v = uint64(b) // one byte: most gaps
		p.off++
	} else {
		var n int
		if v, n = binary.Uvarint(p.data[p.off:]); n <= 0 {
			p.valid = false
			p.i = p.df
			return false
		}
		p.off += n
	}
	p.doc += uint32(v >> 1)
	if p.doc >= p.limit || (p.i > 0 && v>>1 == 0) {
		// Corrupt: a doc out of range or out of order. Stop here rather
		// than index past the segment's arrays.
		p.valid = false
		p.i = p.df
		return false
	}
	switch {
	case v&1 != 0:
		p.tf = 1
	case p.off < len(p.data) && p.data[p.off] < 0x80:
		p.tf = uint32(p.data[p.off])
		p.off++
	default:
		t, m := binary.Uvarint(p.data[p.off:])
		if m <= 0 {
			p.valid = false
			p.i = p.df
			return false
		}
		p.off += m
		p.tf = uint32(t)
	}
	p.i++
	p.valid = true
	return true
}

// advance moves to the first posting with doc >= target; false if none.
func (p *postings) advance(target uint32) bool {
	if p.valid && p.doc >= target {
		return true
	}
	if p.skip != nil {
		// The next posting to read is number p.i, in block p.i/blockSize.
		// Jump over whole blocks whose last doc is below target.
		j0 := p.i / blockSize
		nb := len(p.skip) / 8
		j := j0
		for j < nb && binary.LittleEndian.Uint32(p.skip[j*8:]) < target {
			j++
		}
		if j >= nb {
			p.i, p.valid = p.df, false
			return false
		}
		if j > j0 {
			p.doc = binary.LittleEndian.Uint32(p.skip[(j-1)*8:])
			p.off = int(binary.LittleEndian.Uint32(p.skip[(j-1)*8+4:]))
			p.i = j * blockSize
		}
	}
	// The scan decodes in local variables (next, inlined by hand): in a
	// search's second phase this loop is where the time goes.
	data, off, doc, i := p.data, p.off, p.doc, p.i
	for i < p.df && off < len(data) {
		var v uint64
		if b := data[off]; b < 0x80 {
			v = uint64(b)
			off++
		} else {
			n := 0
			if v, n = binary.Uvarint(data[off:]); n <= 0 {
				break
			}
			off += n
		}
		delta := uint32(v >> 1)
		doc += delta
		if doc >= p.limit || (i > 0 && delta == 0) {
			break // corrupt, as in next
		}
		tf := uint32(1)
		if v&1 == 0 {
			if off < len(data) && data[off] < 0x80 {
				tf = uint32(data[off]) // one byte: nearly every tf
				off++
			} else {
				t, m := binary.Uvarint(data[off:])
				if m <= 0 {
					break
				}
				off += m
				tf = uint32(t)
			}
		}
		i++
		if doc >= target {
			p.off, p.doc, p.tf, p.i, p.valid = off, doc, tf, i, true
			return true
		}
	}
	// The end, or damaged postings: stop here, as next does.
	p.off, p.doc, p.i, p.valid = off, doc, p.df, false
	return false
}
