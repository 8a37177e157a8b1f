package bm25

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// segEncoder writes a segment (layout in segment.go). Partitions are written
// one after the other, each with its terms in ascending byte order.
type segEncoder struct {
	buf   []byte
	parts []encPart
	cur   *encPart
	tmp   []byte
	last  string
}

type encPart struct {
	field    int
	analyzer string
	docCount int64
	sumTTF   int64
	dict     dictWriter
	numTerms int
}

func newSegEncoder() *segEncoder { return newSegEncoderSize(1 << 16) }

// newSegEncoderSize starts an encoder whose buffer holds size bytes before
// it grows: a merge knows about how large its output is, and growing by
// doubling would leave up to twice that as garbage at the peak.
func newSegEncoderSize(size int) *segEncoder {
	return &segEncoder{buf: append(make([]byte, 0, max(size, 1<<16)), segMagic...)}
}

func (e *segEncoder) beginPart(field int, analyzer string, docCount, sumTTF int64) {
	e.parts = append(e.parts, encPart{field: field, analyzer: analyzer, docCount: docCount, sumTTF: sumTTF})
	e.cur = &e.parts[len(e.parts)-1]
	e.last = ""
}

// addTerm appends one term's postings; docs ascend, tfs[i] >= 1, and norms
// is the field's norm byte per doc of the new segment.
func (e *segEncoder) addTerm(term string, posts []uint64, norms []byte) error {
	p := e.cur
	if p.numTerms > 0 && term <= e.last {
		return fmt.Errorf("encode segment: term %q out of order", term)
	}
	e.last = term
	df := len(posts)
	postOff := len(e.buf)
	nb := 0
	if df > blockSize {
		nb = numBlocks(df)
		e.buf = append(e.buf, make([]byte, nb*8)...)
	}
	dataOff := len(e.buf)
	var prev, maxTf uint32
	minNorm := uint8(255)
	for i, dt := range posts {
		d, tf := uint32(dt>>32), uint32(dt)
		if tf > maxTf {
			maxTf = tf
		}
		if n := norms[d]; n < minNorm {
			minNorm = n
		}
		delta := uint64(d - prev)
		prev = d
		if tf == 1 {
			e.buf = binary.AppendUvarint(e.buf, delta<<1|1)
		} else {
			e.buf = binary.AppendUvarint(e.buf, delta<<1)
			e.buf = binary.AppendUvarint(e.buf, uint64(tf))
		}
		if nb > 0 && (i%blockSize == blockSize-1 || i == df-1) {
			b := i / blockSize
			binary.LittleEndian.PutUint32(e.buf[postOff+b*8:], d)
			end := len(e.buf) - dataOff
			if end > math.MaxUint32 {
				return fmt.Errorf("encode segment: postings of term %q exceed 4 GiB", term)
			}
			binary.LittleEndian.PutUint32(e.buf[postOff+b*8+4:], uint32(end))
		}
	}
	postLen := len(e.buf) - postOff
	if postLen > math.MaxUint32 {
		return fmt.Errorf("encode segment: postings of term %q exceed 4 GiB", term)
	}
	if err := p.dict.add(term, uint32(df), maxTf, minNorm, uint64(postOff), postLen); err != nil {
		return fmt.Errorf("%w (field %d)", err, p.field)
	}
	p.numTerms++
	return nil
}

// docMeta is what a segment stores of each document besides its terms.
type docMeta struct {
	id, group string
	analyzer  int
	attrs     map[string]string
}

// finish writes everything after the postings and returns the segment bytes.
// lengths[f][d] is the token count of doc d in field f (Lucene's
// sumTotalTermFreq contribution); norms[f][d] its norm byte.
func (e *segEncoder) finish(analyzers, fields []string, lengths [][]uint32, norms [][]byte, docs []docMeta) []byte {
	type span struct{ off, n int }
	put := func(b []byte) span {
		s := span{len(e.buf), len(b)}
		e.buf = append(e.buf, b...)
		return s
	}
	partSpans := make([][2]span, len(e.parts))
	for i := range e.parts {
		partSpans[i][0] = put(e.parts[i].dict.index)
		partSpans[i][1] = put(e.parts[i].dict.blocks)
	}
	fieldSpans := make([][2]span, len(fields))
	for f := range fields {
		off := len(e.buf)
		for _, l := range lengths[f] {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, l)
		}
		fieldSpans[f][0] = span{off, len(e.buf) - off}
		fieldSpans[f][1] = put(norms[f])
	}
	// Per-document tables (see segment.go), each aligned to 4 bytes.
	align := func() {
		for len(e.buf)%4 != 0 {
			e.buf = append(e.buf, 0)
		}
	}
	var docSpans [8]span
	u32s := func(n int, at func(i int) uint32) span {
		align()
		off := len(e.buf)
		for i := 0; i < n; i++ {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, at(i))
		}
		return span{off, len(e.buf) - off}
	}
	idEnd := make([]uint32, len(docs)+1)
	for i, d := range docs {
		idEnd[i+1] = idEnd[i] + uint32(len(d.id))
	}
	docSpans[0] = u32s(len(docs)+1, func(i int) uint32 { return idEnd[i] })
	off := len(e.buf)
	for _, d := range docs {
		e.buf = append(e.buf, d.id...)
	}
	docSpans[1] = span{off, len(e.buf) - off}
	groupOf := make([]uint32, len(docs))
	var groupNames []string
	for i, d := range docs {
		if i == 0 || d.group != docs[i-1].group {
			groupNames = append(groupNames, d.group)
		}
		groupOf[i] = uint32(len(groupNames) - 1)
	}
	docSpans[2] = u32s(len(docs), func(i int) uint32 { return groupOf[i] })
	groupEnd := make([]uint32, len(groupNames)+1)
	for i, g := range groupNames {
		groupEnd[i+1] = groupEnd[i] + uint32(len(g))
	}
	docSpans[3] = u32s(len(groupNames)+1, func(i int) uint32 { return groupEnd[i] })
	off = len(e.buf)
	for _, g := range groupNames {
		e.buf = append(e.buf, g...)
	}
	docSpans[4] = span{off, len(e.buf) - off}
	align()
	off = len(e.buf)
	for _, d := range docs {
		e.buf = binary.LittleEndian.AppendUint16(e.buf, uint16(d.analyzer))
	}
	docSpans[5] = span{off, len(e.buf) - off}
	hasAttrs := false
	for _, d := range docs {
		hasAttrs = hasAttrs || len(d.attrs) > 0
	}
	if hasAttrs {
		var attrs []byte
		attrEnd := make([]uint32, len(docs)+1)
		for i, d := range docs {
			attrs = binary.AppendUvarint(attrs, uint64(len(d.attrs)))
			for _, k := range sortedKeys(d.attrs) {
				attrs = appendString(attrs, k)
				attrs = appendString(attrs, d.attrs[k])
			}
			attrEnd[i+1] = uint32(len(attrs))
		}
		docSpans[6] = u32s(len(docs)+1, func(i int) uint32 { return attrEnd[i] })
		docSpans[7] = put(attrs)
	}

	metaOff := len(e.buf)
	u := func(v int) { e.buf = binary.AppendUvarint(e.buf, uint64(v)) }
	sp := func(s span) { u(s.off); u(s.n) }
	u(len(docs))
	u(len(analyzers))
	for _, a := range analyzers {
		e.buf = appendString(e.buf, a)
	}
	u(len(fields))
	for f, name := range fields {
		e.buf = appendString(e.buf, name)
		sp(fieldSpans[f][0])
		sp(fieldSpans[f][1])
	}
	u(len(e.parts))
	for i, p := range e.parts {
		u(p.field)
		e.buf = appendString(e.buf, p.analyzer)
		u(int(p.docCount))
		u(int(p.sumTTF))
		u(p.numTerms)
		sp(partSpans[i][0])
		sp(partSpans[i][1])
	}
	for _, s := range docSpans {
		sp(s)
	}
	// Block checksums of everything so far, then the table's own.
	tableOff := len(e.buf)
	for lo := 0; lo < tableOff; lo += crcBlockSize {
		e.buf = binary.LittleEndian.AppendUint32(e.buf, crc32.Checksum(e.buf[lo:min(lo+crcBlockSize, tableOff)], castagnoli))
	}
	e.buf = binary.LittleEndian.AppendUint32(e.buf, crc32.Checksum(e.buf[tableOff:], castagnoli))
	e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(tableOff))
	e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(metaOff))
	e.buf = binary.LittleEndian.AppendUint32(e.buf, crc32.Checksum(e.buf, castagnoli))
	e.buf = append(e.buf, footMagic...)
	return e.buf
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
