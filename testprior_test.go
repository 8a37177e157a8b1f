package situate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/situate/situate"
)

// TestSearchTestPenalty: with the default recipe a test file that repeats
// the query's words more often than the implementation ranks below it,
// unless the query asks about tests; TestPenalty 0 leaves BM25's order, and
// an out-of-range penalty is refused naming the field.
func TestSearchTestPenalty(t *testing.T) {
	impl := "package chunk\n\n// readChunk decodes one chunk of chunked transfer encoding.\nfunc readChunk(r io.Reader) ([]byte, error) {\n\treturn nil, nil\n}\n"
	test := "package chunk\n\n// chunked transfer encoding: readChunk on chunked input, chunked chunked.\nfunc TestReadChunk(t *testing.T) {\n\treadChunk(chunked(\"chunked transfer encoding\"))\n}\n"
	files := map[string]string{"chunk/read.go": impl, "chunk/read_test.go": test}
	first := func(opts situate.Options, query string) situate.Hit { return firstCodeHit(t, opts, files, query) }
	search := func(opts situate.Options, query string) string { return first(opts, query).DocID }
	off := situate.DefaultOptions()
	off.TestPenalty = 0
	// A query about tests is ranked as without the penalty: the test
	// file's score is the same.
	asks := "tests of chunked transfer encoding"
	if on, without := first(situate.DefaultOptions(), asks), first(off, asks); on.DocID != without.DocID || on.Score != without.Score {
		t.Errorf("a query about tests: first hit %s %g, want %s %g as with TestPenalty 0", on.DocID, on.Score, without.DocID, without.Score)
	}
	if on, without := first(situate.DefaultOptions(), "chunked transfer encoding"), first(off, "chunked transfer encoding"); on.DocID == without.DocID && on.Score == without.Score {
		t.Errorf("a query not about tests: first hit %s %g as with TestPenalty 0, want the penalty applied", on.DocID, on.Score)
	}
	if got := search(off, "chunked transfer encoding"); got != "chunk/read_test.go" {
		t.Fatalf("without the penalty the test file should rank first (the premise of this test), got %s", got)
	}
	if got := search(situate.DefaultOptions(), "chunked transfer encoding"); got != "chunk/read.go" {
		t.Errorf("default recipe: first hit %s, want the implementation chunk/read.go", got)
	}
	if got := search(situate.DefaultOptions(), "tests of chunked transfer encoding"); got != "chunk/read_test.go" {
		t.Errorf("a query about tests: first hit %s, want chunk/read_test.go", got)
	}
	bad := situate.DefaultOptions()
	bad.TestPenalty = 1.5
	if err := bad.Validate(); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("TestPenalty 1.5: Validate = %v, want ErrInvalid", err)
	}
}

// TestSearchPackageDocPenalty: a Go package comment (doc.go) that says in
// the question's words what the package's code does ranks below that code
// with the default recipe; TestPenalty 0 leaves BM25's order.
func TestSearchPackageDocPenalty(t *testing.T) {
	exec := "package template\n\n// walkRange evaluates a range over a slice, map or channel.\nfunc (s *state) walkRange(dot reflect.Value, r *parse.RangeNode) {\n\tval, _ := indirect(s.evalPipeline(dot, r.Pipe))\n}\n"
	doc := "// Package template implements data-driven templates.\n//\n// A range action iterates over a slice, map or channel: {{range pipeline}}\n// T1 {{end}}. The value of the pipeline must be an array, slice, map,\n// iter.Seq, iter.Seq2, integer or channel; range over a slice, a map or\n// a channel sets dot to each element in turn.\npackage template\n"
	files := map[string]string{"text/template/exec.go": exec, "text/template/doc.go": doc}
	search := func(opts situate.Options) string {
		return firstCodeHit(t, opts, files, "range over a slice, map or channel").DocID
	}
	off := situate.DefaultOptions()
	off.TestPenalty = 0
	if got := search(off); got != "text/template/doc.go" {
		t.Fatalf("without the penalty the package comment should rank first (the premise of this test), got %s", got)
	}
	if got := search(situate.DefaultOptions()); got != "text/template/exec.go" {
		t.Errorf("default recipe: first hit %s, want the implementation text/template/exec.go", got)
	}
}

// TestSearchDefsArm: a question about what a function does finds the chunk
// that declares a function named so above a caller whose words match the
// question better; without the declaration arm the caller wins.
func TestSearchDefsArm(t *testing.T) {
	impl := "package internal\n\n// Read returns the next bytes.\nfunc (cr *chunkedReader) Read(b []byte) (int, error) {\n\treturn cr.r.Read(b)\n}\n"
	caller := "package http\n\n// body reads the chunked body through a chunked reader.\nfunc body(r io.Reader) io.Reader {\n\treturn &chunkedReader{r: r}\n}\n"
	files := map[string]string{"internal/chunked.go": impl, "http/body.go": caller}
	first := func(opts situate.Options) string { return firstCodeHit(t, opts, files, "chunked reader read").DocID }
	off := situate.DefaultOptions()
	off.DefsArmWeight = 0
	if got := first(off); got != "http/body.go" {
		t.Fatalf("without the declaration arm the caller should rank first (the premise of this test), got %s", got)
	}
	if got := first(situate.DefaultOptions()); got != "internal/chunked.go" {
		t.Errorf("default recipe: first hit %s, want the declaration internal/chunked.go", got)
	}
	bad := situate.DefaultOptions()
	bad.DefsArmWeight = -1
	if err := bad.Validate(); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("DefsArmWeight -1: Validate = %v, want ErrInvalid", err)
	}
}

// firstCodeHit indexes source files (id -> text) in a new in-memory engine
// with opts and returns the first hit of query.
func firstCodeHit(t *testing.T, opts situate.Options, files map[string]string, query string) situate.Hit {
	t.Helper()
	ctx := context.Background()
	eng := openMemEngine(t, opts)
	for id, text := range files {
		if _, err := eng.Put(ctx, situate.Document{ID: id, Text: text, Lang: "en", Format: situate.FormatCode}); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := eng.Search(ctx, situate.Query{Text: query, K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatalf("%q: no hits", query)
	}
	return hits[0]
}
