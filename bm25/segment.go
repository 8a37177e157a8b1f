package bm25

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sort"
	"strings"
	"unsafe"
)

// A segment is immutable: a set of documents with, for every partition
// (field × analyzer), a sorted term dictionary and block-encoded postings.
//
// Layout (little endian):
//
//	"SBM25SG1"                      magic and format version
//	postings                        per term, see encodePostings
//	term blobs and term entries     per partition; entries are fixed-size
//	field lengths and norms         per field: u32 exact length and the
//	                                Lucene norm byte of every document
//	docs                            id, group, analyzer, attributes (varints)
//	meta                            varint description of all the above
//	footer (16 bytes)               meta offset u64, CRC-32C u32 of all
//	                                bytes before the CRC, "BM2E"
//
// A segment is read whole into memory; lookups binary-search the fixed-size
// term entries in place, so opening costs one read, one checksum and the
// decoding of the documents' ids.

const (
	segMagic   = "SBM25SG1"
	footMagic  = "BM2E"
	footerSize = 16
	entrySize  = 32
	blockSize  = 128
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
	entries  []byte
	blob     []byte
}

type segment struct {
	name      string // file name; "" for in-memory segments
	data      []byte
	numDocs   int
	idBytes   []byte   // doc ids, concatenated
	idOff     []uint32 // id d is idBytes[idOff[d]:idOff[d+1]]
	groupIdx  []uint32 // index into groupTab of every doc
	groupTab  []string
	analyzers []string
	docAn     []uint16            // analyzer index of every doc
	attrs     []map[string]string // nil when no doc has attributes
	fields    []segField
	parts     []segPart
}

func (s *segment) id(d uint32) string {
	return unsafeString(s.idBytes[s.idOff[d]:s.idOff[d+1]])
}

func (s *segment) group(d uint32) string { return s.groupTab[s.groupIdx[d]] }

func (s *segment) attr(d uint32) map[string]string {
	if s.attrs == nil {
		return nil
	}
	return s.attrs[d]
}

// termEntry is a decoded term dictionary entry.
type termEntry struct {
	df, maxTf uint32
	limit     uint32 // docs in the segment
	minNorm   uint8
	post      []byte
}

func (p *segPart) term(i int) string {
	e := p.entries[i*entrySize:]
	off := binary.LittleEndian.Uint32(e)
	n := binary.LittleEndian.Uint32(e[4:])
	return unsafeString(p.blob[off : off+n])
}

func (s *segment) entry(p *segPart, i int) termEntry {
	e := p.entries[i*entrySize:]
	off := binary.LittleEndian.Uint64(e[16:])
	n := binary.LittleEndian.Uint32(e[24:])
	return termEntry{
		df:      binary.LittleEndian.Uint32(e[8:]),
		maxTf:   binary.LittleEndian.Uint32(e[12:]),
		minNorm: e[28],
		limit:   uint32(s.numDocs),
		post:    s.data[off : off+uint64(n)],
	}
}

// find returns the index of term in the partition, or -1.
func (p *segPart) find(term string) int {
	i := sort.Search(p.numTerms, func(i int) bool { return p.term(i) >= term })
	if i < p.numTerms && p.term(i) == term {
		return i
	}
	return -1
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
	off := r.uvarint()
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if off > uint64(limit) || n > uint64(limit)-off {
		r.err = fmt.Errorf("span %d+%d past %d: %w", off, n, limit, ErrCorrupt)
		return nil
	}
	return data[off : off+n]
}

// openSegment checks and decodes a segment's bytes. data must not change
// while the segment is reachable: term lookups and postings read it in place.
// Nothing that escapes the package points into data.
func openSegment(name string, data []byte) (*segment, error) {
	if len(data) < len(segMagic)+footerSize || string(data[:len(segMagic)]) != segMagic {
		return nil, fmt.Errorf("segment %s: bad header: %w", name, ErrCorrupt)
	}
	foot := data[len(data)-footerSize:]
	if string(foot[12:]) != footMagic {
		return nil, fmt.Errorf("segment %s: bad footer: %w", name, ErrCorrupt)
	}
	body := len(data) - footerSize
	if crc32.Checksum(data[:len(data)-8], castagnoli) != binary.LittleEndian.Uint32(foot[8:]) {
		return nil, fmt.Errorf("segment %s: checksum mismatch: %w", name, ErrCorrupt)
	}
	metaOff := binary.LittleEndian.Uint64(foot)
	if metaOff > uint64(body) {
		return nil, fmt.Errorf("segment %s: bad meta offset: %w", name, ErrCorrupt)
	}
	s := &segment{name: name, data: data}
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
		p.entries = r.span(data, body)
		p.blob = r.span(data, body)
		if r.err == nil && (p.field >= nf || len(p.entries) != p.numTerms*entrySize) {
			r.err = fmt.Errorf("partition %d: bad term table: %w", i, ErrCorrupt)
		}
		s.parts = append(s.parts, p)
	}
	docs := r.span(data, body)
	if r.err != nil {
		return nil, fmt.Errorf("segment %s: meta: %w", name, r.err)
	}
	// Term entries point into the file; check them once so lookups need not.
	for pi := range s.parts {
		p := &s.parts[pi]
		for i := 0; i < p.numTerms; i++ {
			e := p.entries[i*entrySize:]
			toff, tn := uint64(binary.LittleEndian.Uint32(e)), uint64(binary.LittleEndian.Uint32(e[4:]))
			poff, pn := binary.LittleEndian.Uint64(e[16:]), uint64(binary.LittleEndian.Uint32(e[24:]))
			if toff+tn > uint64(len(p.blob)) || poff > uint64(body) || pn > uint64(body)-poff {
				return nil, fmt.Errorf("segment %s: partition %d term %d: bad offsets: %w", name, pi, i, ErrCorrupt)
			}
			if df := binary.LittleEndian.Uint32(e[8:]); df > blockSize && uint64(numBlocks(int(df)))*8 > pn {
				return nil, fmt.Errorf("segment %s: partition %d term %d: bad skip table: %w", name, pi, i, ErrCorrupt)
			}
		}
	}
	// Doc ids, groups and attributes escape (results, filters, the writer's
	// maps): they live in a heap copy, so data may be an mmap that is
	// unmapped once the segment is unreachable.
	dr := &reader{b: bytes.Clone(docs)}
	s.idOff = make([]uint32, s.numDocs+1)
	s.groupIdx = make([]uint32, s.numDocs)
	s.docAn = make([]uint16, s.numDocs)
	for d := 0; d < s.numDocs && dr.err == nil; d++ {
		s.idBytes = append(s.idBytes, dr.bytes(dr.uvarint())...)
		if len(s.idBytes) > math.MaxUint32 {
			dr.err = fmt.Errorf("doc ids exceed 4 GiB: %w", ErrCorrupt)
		}
		s.idOff[d+1] = uint32(len(s.idBytes))
		if g := dr.str(); g != "" || d == 0 {
			s.groupTab = append(s.groupTab, g) // "" means: same group as the previous doc
		}
		s.groupIdx[d] = uint32(len(s.groupTab) - 1)
		s.docAn[d] = uint16(dr.int(1 << 16))
		if dr.err == nil && int(s.docAn[d]) >= len(s.analyzers) {
			dr.err = fmt.Errorf("doc %d: bad analyzer: %w", d, ErrCorrupt)
		}
		na := dr.int(1 << 20)
		if na > 0 {
			m := make(map[string]string, na)
			for j := 0; j < na && dr.err == nil; j++ {
				k := dr.str()
				m[k] = dr.str()
			}
			if s.attrs == nil {
				s.attrs = make([]map[string]string, s.numDocs)
			}
			s.attrs[d] = m
		}
	}
	if dr.err != nil {
		return nil, fmt.Errorf("segment %s: docs: %w", name, dr.err)
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
	v, n := binary.Uvarint(p.data[p.off:])
	if n <= 0 {
		p.valid = false
		p.i = p.df
		return false
	}
	p.off += n
	p.doc += uint32(v >> 1)
	if p.doc >= p.limit || (p.i > 0 && v>>1 == 0) {
		// Corrupt: a doc out of range or out of order. Stop here rather
		// than index past the segment's arrays.
		p.valid = false
		p.i = p.df
		return false
	}
	if v&1 != 0 {
		p.tf = 1
	} else {
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
	for p.next() {
		if p.doc >= target {
			return true
		}
	}
	return false
}
