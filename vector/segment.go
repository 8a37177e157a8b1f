package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Segment file layout (little-endian), immutable once written:
//
//	[0, 64)          header: magic "SITVSEG1", version, dim, rows,
//	                 vecOff, bitsOff, metaOff, metaLen, metaCRC, headerCRC
//	[64, 68)         payload CRC (version 3 on): CRC-32C of [68, metaOff),
//	                 the zero padding, vectors, codes and coefficients
//	[vecOff, ...)    rows*dim float32 vectors, contiguous (vecOff = 4096)
//	[bitsOff, ...)   rows*words uint64 sign codes (bit i set when x[i] > 0)
//	[coefOff, ...)   rows*2 float32 first-pass coefficients (see rowCoef);
//	                 coefOff = bitsOff + rows*words*8 (version 2 on)
//	[metaOff, ...)   group table and per-row (group index, ID), uvarints
//
// The vector, code and coefficient regions are memory-mapped read-only
// and used in place; only the ID table is decoded into memory. Every byte
// is covered by a checksum checked at open (the header's, the ID table's
// and, from version 3, the payload's), so a damaged file is an error
// wrapping ErrCorrupt instead of wrong scores. Version 1 files (no
// coefficient region) and version 2 files (no payload checksum) are still
// read; a writer's Open rewrites them.
const (
	segMagic   = "SITVSEG1"
	segVersion = 3
	headerSize = 64
	payloadOff = 68 // first byte the payload CRC covers
	vecOffset  = 4096
)

// ErrCorrupt is wrapped by every error about a damaged index file: a
// checksum, format or truncation failure, or a segment the manifest names
// that is missing. The error names the file.
var ErrCorrupt = errors.New("vector: corrupt index file")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// segment is an immutable run of vectors with their IDs and groups.
type segment struct {
	name   string // file name inside dir; "" for an in-memory segment
	dir    string
	rows   int
	dim    int
	words  int       // uint64 words per sign code
	vecs   []float32 // rows*dim
	bits   []uint64  // rows*words
	coef   []float32 // rows*2: rowCoef of each row
	ids    []string
	group  []uint32 // per row: index into groups
	groups []string
	mmap   []byte
	// version is the file format the segment was read from (segVersion
	// for in-memory and newly written segments).
	version uint32

	refs     atomic.Int64 // snapshots holding the segment
	obsolete atomic.Bool  // dropped from the manifest: remove the file when unreferenced
}

func (s *segment) vec(row int) []float32 { return s.vecs[row*s.dim : (row+1)*s.dim : (row+1)*s.dim] }
func (s *segment) code(row int) []uint64 {
	return s.bits[row*s.words : (row+1)*s.words : (row+1)*s.words]
}
func (s *segment) coefs(row int) (scale, spread float32) {
	return s.coef[2*row], s.coef[2*row+1]
}
func (s *segment) groupName(row int) string { return s.groups[s.group[row]] }

func (s *segment) acquire() { s.refs.Add(1) }

func (s *segment) release() {
	if s.refs.Add(-1) != 0 {
		return
	}
	if s.mmap != nil {
		_ = syscall.Munmap(s.mmap)
		s.mmap, s.vecs, s.bits, s.coef = nil, nil, nil, nil
	}
	if s.obsolete.Load() && s.name != "" {
		_ = os.Remove(filepath.Join(s.dir, s.name))
	}
}

func wordsFor(dim int) int { return (dim + 63) / 64 }

// signCode writes x's sign bits into dst.
func signCode(dst []uint64, x []float32) {
	clear(dst)
	for i, v := range x {
		if v > 0 {
			dst[i>>6] |= 1 << (uint(i) & 63)
		}
	}
}

// rowCoef returns the two numbers the first pass needs about x beyond its
// sign code s (s_i = +1 where x_i > 0, else -1). With o = x/|x| and
// x̄ = s/√d, RaBitQ's estimator (Gao & Long, SIGMOD 2024) of <q,o> is
// <x̄,q>/<x̄,o>, whose error is below ε·|q|·√(1-<x̄,o>²)/<x̄,o>/√(d-1)
// with a probability that grows quickly with ε. Since <x̄,o> = |x|₁/(|x|√d):
//
//	scale  = |x|²/|x|₁                         so <x,q> ≈ <s,q>·scale
//	spread = |x|·√(1-f²)/f/√(d-1), f = <x̄,o>  so |error| ≲ ε·|q|·spread
//
// Both are 0 for the zero vector, whose score is exactly 0.
func rowCoef(x []float32) (scale, spread float32) {
	var l1, l2 float64
	for _, v := range x {
		l1 += math.Abs(float64(v))
		l2 += float64(v) * float64(v)
	}
	if l1 == 0 {
		return 0, 0
	}
	norm := math.Sqrt(l2)
	d := float64(len(x))
	f := l1 / (norm * math.Sqrt(d))
	if d > 1 {
		spread = float32(norm * math.Sqrt(max(1-f*f, 0)) / f / math.Sqrt(d-1))
	}
	return float32(l2 / l1), spread
}

// rowSource feeds segment building: n rows of dim floats.
type rowSource interface {
	len() int
	row(i int) (vec []float32, id, group string)
}

// newMemSegment builds an in-memory segment, copying the vectors.
func newMemSegment(dim int, src rowSource) *segment {
	n := src.len()
	s := &segment{rows: n, dim: dim, words: wordsFor(dim), version: segVersion}
	s.vecs = make([]float32, n*dim)
	s.bits = make([]uint64, n*s.words)
	s.coef = make([]float32, 2*n)
	s.ids = make([]string, n)
	s.group = make([]uint32, n)
	gi := map[string]uint32{}
	for i := range n {
		v, id, g := src.row(i)
		copy(s.vec(i), v)
		signCode(s.code(i), v)
		s.coef[2*i], s.coef[2*i+1] = rowCoef(v)
		s.ids[i] = id
		idx, ok := gi[g]
		if !ok {
			idx = uint32(len(s.groups))
			gi[g] = idx
			s.groups = append(s.groups, g)
		}
		s.group[i] = idx
	}
	return s
}

func floatBytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4)
}

func wordBytes(v []uint64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8)
}

// writeSegment writes src to dir/name atomically (temporary file, fsync,
// rename, fsync of the directory) and returns it memory-mapped. Vectors
// stream from src, so building a segment costs no more heap than its ID
// table.
func writeSegment(dir, name string, dim int, src rowSource) (_ *segment, err error) {
	if !littleEndian {
		return nil, errors.New("vector: persistent segments need a little-endian machine")
	}
	n := src.len()
	words := wordsFor(dim)
	// Metadata first (small): group table and per-row entries.
	var meta []byte
	gi := map[string]uint64{}
	var groups []string
	rowMeta := make([]byte, 0, n*24)
	for i := range n {
		_, id, g := src.row(i)
		idx, ok := gi[g]
		if !ok {
			idx = uint64(len(groups))
			gi[g] = idx
			groups = append(groups, g)
		}
		rowMeta = binary.AppendUvarint(rowMeta, idx)
		rowMeta = binary.AppendUvarint(rowMeta, uint64(len(id)))
		rowMeta = append(rowMeta, id...)
	}
	meta = binary.AppendUvarint(meta, uint64(len(groups)))
	for _, g := range groups {
		meta = binary.AppendUvarint(meta, uint64(len(g)))
		meta = append(meta, g...)
	}
	meta = append(meta, rowMeta...)

	vecBytes := uint64(n) * uint64(dim) * 4
	bitsOff := uint64(vecOffset) + (vecBytes+7)&^7
	coefOff := bitsOff + uint64(n)*uint64(words)*8
	metaOff := coefOff + uint64(n)*8
	hdr := make([]byte, headerSize)
	copy(hdr, segMagic)
	binary.LittleEndian.PutUint32(hdr[8:], segVersion)
	binary.LittleEndian.PutUint32(hdr[12:], uint32(dim))
	binary.LittleEndian.PutUint64(hdr[16:], uint64(n))
	binary.LittleEndian.PutUint64(hdr[24:], vecOffset)
	binary.LittleEndian.PutUint64(hdr[32:], bitsOff)
	binary.LittleEndian.PutUint64(hdr[40:], metaOff)
	binary.LittleEndian.PutUint64(hdr[48:], uint64(len(meta)))
	binary.LittleEndian.PutUint32(hdr[56:], crc32.Checksum(meta, castagnoli))
	binary.LittleEndian.PutUint32(hdr[60:], crc32.Checksum(hdr[:60], castagnoli))

	path := filepath.Join(dir, name)
	tmp := path + ".tmp"
	// The os package's errors name the file (and a rename both files):
	// the errors below add only what was being done.
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("write segment: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.Write(hdr)
	bw.Write(make([]byte, 4)) // the payload CRC, written once known
	sum := crc32.New(castagnoli)
	w := io.MultiWriter(bw, sum)
	w.Write(make([]byte, vecOffset-payloadOff))
	for i := range n {
		v, _, _ := src.row(i)
		w.Write(floatBytes(v))
	}
	w.Write(make([]byte, bitsOff-vecOffset-vecBytes))
	code := make([]uint64, words)
	for i := range n {
		v, _, _ := src.row(i)
		signCode(code, v)
		w.Write(wordBytes(code))
	}
	coef := make([]float32, 2)
	for i := range n {
		v, _, _ := src.row(i)
		coef[0], coef[1] = rowCoef(v)
		w.Write(floatBytes(coef))
	}
	if err = bw.Flush(); err != nil {
		return nil, fmt.Errorf("write segment: %w", err)
	}
	if _, err = f.Write(meta); err != nil {
		return nil, fmt.Errorf("write segment: %w", err)
	}
	if _, err = f.WriteAt(binary.LittleEndian.AppendUint32(nil, sum.Sum32()), headerSize); err != nil {
		return nil, fmt.Errorf("write segment: %w", err)
	}
	if err = f.Sync(); err != nil {
		return nil, fmt.Errorf("sync segment: %w", err)
	}
	if err = f.Close(); err != nil {
		return nil, fmt.Errorf("close segment: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("rename segment: %w", err)
	}
	if err = syncDir(dir); err != nil {
		return nil, err
	}
	s, err := openSegment(dir, name, dim)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	return s, nil
}

// openSegment memory-maps dir/name and checks it against dim.
func openSegment(dir, name string, dim int) (*segment, error) {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &missingSegmentError{path: path}
	}
	if err != nil {
		return nil, fmt.Errorf("open segment %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open segment %s: %w", path, err)
	}
	size := st.Size()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("open segment %s: corrupt: %s: %w", path, fmt.Sprintf(format, args...), ErrCorrupt)
	}
	if size < headerSize {
		return nil, bad("%d bytes, shorter than the header", size)
	}
	hdr := make([]byte, headerSize)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return nil, fmt.Errorf("open segment %s: %w", path, err)
	}
	if string(hdr[:8]) != segMagic {
		return nil, bad("bad magic %q", hdr[:8])
	}
	if crc32.Checksum(hdr[:60], castagnoli) != binary.LittleEndian.Uint32(hdr[60:]) {
		return nil, bad("header checksum mismatch")
	}
	version := binary.LittleEndian.Uint32(hdr[8:])
	if version < 1 || version > segVersion {
		return nil, bad("version %d, want 1 to %d", version, segVersion)
	}
	if d := int(binary.LittleEndian.Uint32(hdr[12:])); d != dim {
		return nil, fmt.Errorf("open segment %s: dimension %d, index dimension %d", path, d, dim)
	}
	rows := binary.LittleEndian.Uint64(hdr[16:])
	vecOff := binary.LittleEndian.Uint64(hdr[24:])
	bitsOff := binary.LittleEndian.Uint64(hdr[32:])
	metaOff := binary.LittleEndian.Uint64(hdr[40:])
	metaLen := binary.LittleEndian.Uint64(hdr[48:])
	words := uint64(wordsFor(dim))
	coefOff := bitsOff + rows*words*8
	coefLen := rows * 8
	if version == 1 {
		coefLen = 0
	}
	if vecOff != vecOffset || rows > uint64(size) || bitsOff < vecOff+rows*uint64(dim)*4 || bitsOff%8 != 0 ||
		metaOff != coefOff+coefLen || metaOff+metaLen != uint64(size) {
		return nil, bad("layout does not match %d rows in %d bytes", rows, size)
	}
	if version >= 3 && rows == 0 {
		// No mapping below: check the (all zero) padding here.
		pad := make([]byte, metaOff-payloadOff+4)
		if _, err := f.ReadAt(pad, headerSize); err != nil {
			return nil, fmt.Errorf("read segment %s: %w", path, err)
		}
		if crc32.Checksum(pad[4:], castagnoli) != binary.LittleEndian.Uint32(pad) {
			return nil, bad("payload checksum mismatch")
		}
	}
	s := &segment{name: name, dir: dir, rows: int(rows), dim: dim, words: int(words), version: version}
	if rows > 0 {
		data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			return nil, fmt.Errorf("mmap segment %s: %w", path, err)
		}
		s.mmap = data
		if version >= 3 && crc32.Checksum(data[payloadOff:metaOff], castagnoli) != binary.LittleEndian.Uint32(data[headerSize:]) {
			s.unmap()
			return nil, bad("payload checksum mismatch (vectors, codes or coefficients damaged)")
		}
		s.vecs = unsafe.Slice((*float32)(unsafe.Pointer(&data[vecOff])), int(rows)*dim)
		s.bits = unsafe.Slice((*uint64)(unsafe.Pointer(&data[bitsOff])), int(rows*words))
		if version == 1 {
			s.coef = make([]float32, 2*rows)
			for i := range int(rows) {
				s.coef[2*i], s.coef[2*i+1] = rowCoef(s.vec(i))
			}
		} else {
			s.coef = unsafe.Slice((*float32)(unsafe.Pointer(&data[coefOff])), int(2*rows))
		}
	}
	meta := make([]byte, metaLen)
	if _, err := f.ReadAt(meta, int64(metaOff)); err != nil {
		s.unmap()
		if errors.Is(err, io.EOF) {
			return nil, bad("ID table truncated")
		}
		return nil, fmt.Errorf("read segment %s: %w", path, err)
	}
	if crc32.Checksum(meta, castagnoli) != binary.LittleEndian.Uint32(hdr[56:]) {
		s.unmap()
		return nil, bad("ID table checksum mismatch")
	}
	if err := s.decodeMeta(meta); err != nil {
		s.unmap()
		return nil, bad("%v", err)
	}
	return s, nil
}

// missingSegmentError is a segment file that does not exist.
type missingSegmentError struct{ path string }

func (e *missingSegmentError) Error() string {
	return fmt.Sprintf("open segment %s: missing", e.path)
}

func (e *missingSegmentError) Unwrap() error { return ErrCorrupt }

func (s *segment) unmap() {
	if s.mmap != nil {
		_ = syscall.Munmap(s.mmap)
		s.mmap = nil
	}
}

func (s *segment) decodeMeta(meta []byte) error {
	p := 0
	uv := func() (uint64, error) {
		v, n := binary.Uvarint(meta[p:])
		if n <= 0 {
			return 0, fmt.Errorf("ID table: bad varint at byte %d", p)
		}
		p += n
		return v, nil
	}
	str := func() (string, error) {
		l, err := uv()
		if err != nil {
			return "", err
		}
		if l > uint64(len(meta)-p) {
			return "", fmt.Errorf("ID table: string of %d bytes at byte %d overruns", l, p)
		}
		v := string(meta[p : p+int(l)])
		p += int(l)
		return v, nil
	}
	ng, err := uv()
	if err != nil {
		return err
	}
	if ng > uint64(len(meta)) {
		return fmt.Errorf("ID table: %d groups", ng)
	}
	s.groups = make([]string, ng)
	for i := range s.groups {
		if s.groups[i], err = str(); err != nil {
			return err
		}
	}
	s.ids = make([]string, s.rows)
	s.group = make([]uint32, s.rows)
	for i := range s.rows {
		g, err := uv()
		if err != nil {
			return err
		}
		if g >= ng {
			return fmt.Errorf("ID table: row %d: group %d of %d", i, g, ng)
		}
		s.group[i] = uint32(g)
		if s.ids[i], err = str(); err != nil {
			return err
		}
	}
	if p != len(meta) {
		return fmt.Errorf("ID table: %d trailing bytes", len(meta)-p)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}
