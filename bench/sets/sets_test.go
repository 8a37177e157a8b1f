package sets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/chunk"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/ingest"
)

// TestSetsLoadWhole loads every bench/sets/*/queries.jsonl the way situate
// eval --format answers does and checks what the judge relies on: no line is
// skipped, every answer occurs exactly once in its document (so only the
// chunk that holds it can be a hit), and, chunked with the default options
// and the format ingest gives the file, one chunk holds the whole answer (so
// every question can be a hit at all).
func TestSetsLoadWhole(t *testing.T) {
	files, err := filepath.Glob("*/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("found %d sets (%v): want at least qa-es, qa-ru, qa-zh, unnamed-subject and code-werkzeug", len(files), files)
	}
	for _, queries := range files {
		dir := filepath.Dir(queries)
		t.Run(dir, func(t *testing.T) {
			ds, err := eval.LoadAnswers(filepath.Join(dir, "docs"), queries)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range ds.Skipped {
				t.Errorf("skipped %s:%d: %s", s.File, s.Line, s.Reason)
			}
			raw, err := os.ReadFile(queries)
			if err != nil {
				t.Fatal(err)
			}
			if lines := bytes.Count(bytes.TrimSpace(raw), []byte("\n")) + 1; lines != len(ds.Queries) {
				t.Errorf("%s has %d lines, %d queries loaded", queries, lines, len(ds.Queries))
			}
			paths := map[string]string{}
			for _, d := range ds.Docs {
				paths[d.ID] = d.Path
			}
			spans := map[string][]string{} // doc id -> chunk texts
			for _, q := range ds.Queries {
				if q.Lang == "" {
					t.Errorf("query %s: no lang", q.ID)
				}
				chunks, ok := spans[q.AnswerDoc]
				if !ok {
					chunks = chunkTexts(t, paths[q.AnswerDoc])
					spans[q.AnswerDoc] = chunks
				}
				whole, err := os.ReadFile(paths[q.AnswerDoc])
				if err != nil {
					t.Fatal(err)
				}
				if n := strings.Count(string(whole), q.Answer); n != 1 {
					t.Errorf("query %s: answer %q occurs %d times in %s, want once", q.ID, q.Answer, n, q.AnswerDoc)
					continue
				}
				held := false
				for _, c := range chunks {
					if strings.Contains(c, q.Answer) {
						held = true
						break
					}
				}
				if !held {
					t.Errorf("query %s: no chunk of %s holds the whole answer %q", q.ID, q.AnswerDoc, q.Answer)
				}
			}
		})
	}
}

// chunkTexts splits the file at path as ingest would by default.
func chunkTexts(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	opts := chunk.DefaultOptions()
	if f := ingest.FormatOf(filepath.Base(path)); f != "" {
		opts.Format = f
	}
	opts.Path = path
	spans, err := chunk.Split(text, opts)
	if err != nil {
		t.Fatalf("chunk %s: %v", path, err)
	}
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = text[s.Start:s.End]
	}
	return out
}
