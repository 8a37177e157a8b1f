package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// Dataset is an evaluation set: documents (optionally pre-chunked), queries
// with their relevance information, and the records the loader skipped.
type Dataset struct {
	Name    string
	Docs    []Doc
	Queries []Query
	// Skipped lists every input record that was left out, and why.
	Skipped []Skip
}

// Doc is one document of a dataset.
type Doc struct {
	ID    string
	Title string
	// Text is the full document text. It is empty for answers datasets, whose
	// documents are files (Path) the caller ingests itself.
	Text string
	Lang string
	// Path is the file the document is read from, when the caller must read it.
	Path string
	// Chunks is set for pre-chunked datasets; the caller must index exactly
	// these chunks for golden chunk references to be meaningful.
	Chunks []Chunk
}

// Chunk is one chunk of a pre-chunked document.
type Chunk struct {
	// ID is the dataset's own chunk id ("doc_1_chunk_0"); informational.
	ID string
	// Index is the chunk's 0-based position within its document.
	Index int
	// Start and End are byte offsets of Text within Doc.Text, or -1 when Text
	// does not occur in the document verbatim.
	Start, End int
	Text       string
	// Context is a context provided by the dataset (for example Claude 3 Haiku
	// contexts of the Anthropic set); empty when none is provided.
	Context string
}

// ChunkRef names a chunk by document id and chunk index.
type ChunkRef struct {
	DocID string
	Index int
}

// String returns "docID#index", the id under which chunk-level metrics
// compare results.
func (r ChunkRef) String() string { return r.DocID + "#" + strconv.Itoa(r.Index) }

// Query is one evaluation query. Exactly one kind of relevance information is
// used, in this order of precedence: Golden (chunk level), Qrels (document
// level), Answer with AnswerDoc (answer containment).
type Query struct {
	ID   string
	Text string
	Lang string
	// Golden lists the query's golden chunks.
	Golden []ChunkRef
	// GoldenText holds the golden chunks' contents stripped as Python's
	// str.strip() does, aligned with Golden; Pass@k compares these strings.
	GoldenText []string
	// Qrels maps document ids to graded relevance (> 0 is relevant).
	Qrels map[string]int
	// Answer is the answer string; AnswerDoc the id of the document holding
	// it. For SQuAD sets Answer is informational (Golden takes precedence).
	Answer    string
	AnswerDoc string
}

// Mode returns how q is judged: ModeChunk, ModeDoc, ModeAnswer or "" when the
// query carries no relevance information.
func (q Query) Mode() string {
	switch {
	case len(q.Golden) > 0:
		return ModeChunk
	case len(q.Qrels) > 0:
		return ModeDoc
	case q.Answer != "" && q.AnswerDoc != "":
		return ModeAnswer
	}
	return ""
}

// Judging modes returned by Query.Mode.
const (
	ModeChunk  = "chunk"
	ModeDoc    = "doc"
	ModeAnswer = "answer"
)

// Skip records one input record a loader left out (or, where the reason
// says so, kept with a caveat). Line is 1-based; 0 means
// the record has no line of its own (a tar member, a missing item).
type Skip struct {
	File   string
	Line   int
	Reason string
}

func (s Skip) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", s.File, s.Line, s.Reason)
	}
	return s.File + ": " + s.Reason
}

// NumChunks returns the number of chunks over all documents.
func (d *Dataset) NumChunks() int {
	n := 0
	for i := range d.Docs {
		n += len(d.Docs[i].Chunks)
	}
	return n
}

// NumGolden returns the number of (query, golden chunk) pairs.
func (d *Dataset) NumGolden() int {
	n := 0
	for i := range d.Queries {
		n += len(d.Queries[i].Golden)
	}
	return n
}

// ChunkText returns the text of a pre-chunked dataset's chunk. It scans the
// documents; Evaluate builds an index once per call instead.
func (d *Dataset) ChunkText(ref ChunkRef) (string, bool) {
	for i := range d.Docs {
		if d.Docs[i].ID != ref.DocID {
			continue
		}
		for _, c := range d.Docs[i].Chunks {
			if c.Index == ref.Index {
				return c.Text, true
			}
		}
	}
	return "", false
}

// WithQueries returns a shallow copy of d that evaluates only qs (for
// example one half from Split).
func (d *Dataset) WithQueries(qs []Query) *Dataset {
	c := *d
	c.Queries = qs
	return &c
}

// chunkTexts indexes every chunk's text by reference.
func (d *Dataset) chunkTexts() map[ChunkRef]string {
	m := make(map[ChunkRef]string, d.NumChunks())
	for i := range d.Docs {
		for _, c := range d.Docs[i].Chunks {
			m[ChunkRef{d.Docs[i].ID, c.Index}] = c.Text
		}
	}
	return m
}

func (d *Dataset) skip(file string, line int, format string, args ...any) {
	d.Skipped = append(d.Skipped, Skip{File: file, Line: line, Reason: fmt.Sprintf(format, args...)})
}

// lines maps byte offsets of one file to 1-based line numbers. Queries must
// come in non-decreasing offset order.
type lines struct {
	data []byte
	off  int
	line int
}

func newLines(data []byte) *lines { return &lines{data: data, line: 1} }

func (l *lines) at(off int) int {
	if off > len(l.data) {
		off = len(l.data)
	}
	if off < l.off { // out of order: count from the start
		return 1 + bytes.Count(l.data[:off], []byte{'\n'})
	}
	l.line += bytes.Count(l.data[l.off:off], []byte{'\n'})
	l.off = off
	return l.line
}

// skipSpace returns the offset of the first byte at or after off that is not
// JSON whitespace or a comma.
func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// jsonError turns a decoding error into "path:line: ..." using the offset the
// encoding/json error carries.
func jsonError(path string, data []byte, base int, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := -1
	switch {
	case errors.As(err, &se):
		off = base + int(se.Offset)
	case errors.As(err, &te):
		off = base + int(te.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		off = len(data)
	}
	if off >= 0 {
		return fmt.Errorf("%s:%d: %w", path, newLines(data).at(off), err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// eachArrayElement calls fn with the 1-based line and raw bytes of every
// element of the JSON array that starts at data[start:]. It returns the
// offset just past the array. A syntax error is fatal; fn decides what to do
// with elements of the wrong shape.
func eachArrayElement(path string, data []byte, start int, ln *lines, fn func(line int, raw json.RawMessage)) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	tok, err := dec.Token()
	if err != nil {
		return 0, jsonError(path, data, start, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return 0, fmt.Errorf("%s:%d: expected a JSON array, found %v", path, ln.at(start+int(dec.InputOffset())), tok)
	}
	for dec.More() {
		off := skipSpace(data, start+int(dec.InputOffset()))
		line := ln.at(off)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, jsonError(path, data, start, err)
		}
		fn(line, raw)
	}
	if _, err := dec.Token(); err != nil { // closing ']'
		return 0, jsonError(path, data, start, err)
	}
	return start + int(dec.InputOffset()), nil
}

// eachLine calls fn with every non-blank line of data and its 1-based number.
func eachLine(data []byte, fn func(line int, text []byte)) {
	n := 0
	for len(data) > 0 {
		n++
		i := bytes.IndexByte(data, '\n')
		var l []byte
		if i < 0 {
			l, data = data, nil
		} else {
			l, data = data[:i], data[i+1:]
		}
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		fn(n, l)
	}
}

// Strip removes leading and trailing whitespace as Python's str.strip()
// with no argument does: Unicode whitespace plus the ASCII separators
// U+001C..U+001F, which Go's unicode.IsSpace does not include.
func Strip(s string) string {
	return strings.TrimFunc(s, isPySpace)
}

func isPySpace(r rune) bool {
	switch {
	case r >= 0x1c && r <= 0x1f:
		return true
	case r == ' ' || (r >= '\t' && r <= '\r'):
		return true
	case r < 0x80:
		return false
	}
	return unicode.IsSpace(r)
}

// describeJSON shortens a decode error for a skip reason.
func describeJSON(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %q: %v", te.Field, err)
	}
	return err.Error()
}
