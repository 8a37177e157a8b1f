package examples

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/situate/situate/chunk"
)

// multilingualDir holds the second reference set: fictional documents in
// five languages whose later sections never name their subject.
const multilingualDir = "multilingual"

func readQueryFile(t *testing.T, path string) []query {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []query
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var q query
		if err := dec.Decode(&q); err != nil {
			t.Fatalf("%s: line %d: %v", path, line, err)
		}
		if q.ID == "" || q.Query == "" || q.Doc == "" || q.Answer == "" || q.Lang == "" {
			t.Fatalf("%s: line %d: empty field in %+v", path, line, q)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return qs
}

// TestMultilingualQueries checks the multilingual set the way TestQueries
// checks the example corpus: every answer occurs verbatim in its document,
// lies inside one chunk of the default chunking, and no chunk holding it
// names the entity the query starts with. It also checks the set's shape:
// at least 10 documents of 400 words or more (Chinese: 600 characters),
// every document asked about, at least 50 queries, at least 10 for each of
// es, ru and zh.
func TestMultilingualQueries(t *testing.T) {
	qs := readQueryFile(t, filepath.Join(multilingualDir, "queries.jsonl"))
	ids := map[string]bool{}
	perLang := map[string]int{}
	asked := map[string]bool{}
	for _, q := range qs {
		if ids[q.ID] {
			t.Errorf("%s: duplicate id", q.ID)
		}
		ids[q.ID] = true
		perLang[q.Lang]++
		asked[q.Doc] = true
		if dir, _, _ := strings.Cut(q.Doc, "/"); dir != q.Lang {
			t.Errorf("%s: lang %q but document %s", q.ID, q.Lang, q.Doc)
		}
		data, err := os.ReadFile(filepath.Join(multilingualDir, filepath.FromSlash(q.Doc)))
		if err != nil {
			t.Errorf("%s: doc: %v", q.ID, err)
			continue
		}
		text := string(data)
		at := strings.Index(text, q.Answer)
		if at < 0 {
			t.Errorf("%s: answer %q does not occur verbatim in %s", q.ID, q.Answer, q.Doc)
			continue
		}
		if strings.Count(text, q.Answer) > 1 {
			t.Errorf("%s: answer %q occurs more than once in %s", q.ID, q.Answer, q.Doc)
		}
		spans, err := chunk.Split(text, chunk.Options{Size: chunk.DefaultSize, Overlap: chunk.DefaultOverlap,
			Format: formatOf(q.Doc), Path: q.Doc})
		if err != nil {
			t.Fatal(err)
		}
		if len(spans) < 2 {
			t.Errorf("%s: %s is one chunk; the set needs documents that split", q.ID, q.Doc)
		}
		inside := 0
		name := strings.ToLower(entity(q))
		for _, s := range spans {
			if s.Start <= at && at+len(q.Answer) <= s.End {
				inside++
				if strings.Contains(strings.ToLower(text[s.Start:s.End]), name) {
					t.Errorf("%s: chunk [%d,%d) holding the answer names %q; the query does not need context", q.ID, s.Start, s.End, name)
				}
			}
		}
		if inside == 0 {
			t.Errorf("%s: answer %q is cut across chunks", q.ID, q.Answer)
		}
	}
	if len(qs) < 50 {
		t.Errorf("%d queries, want at least 50", len(qs))
	}
	for _, lang := range []string{"es", "ru", "zh"} {
		if perLang[lang] < 10 {
			t.Errorf("%s: %d queries, want at least 10", lang, perLang[lang])
		}
	}
	docs := 0
	err := filepath.WalkDir(multilingualDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(multilingualDir, path)
		rel = filepath.ToSlash(rel)
		if !strings.Contains(rel, "/") {
			return nil // queries.jsonl, SOURCES.md, .situateignore
		}
		docs++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !asked[rel] {
			t.Errorf("%s: no query asks about it", rel)
		}
		text := string(data)
		if strings.HasPrefix(rel, "zh/") {
			if n := utf8.RuneCountInString(strings.Join(strings.Fields(text), "")); n < 600 {
				t.Errorf("%s: %d characters, want at least 600", rel, n)
			}
		} else if n := len(strings.Fields(text)); n < 400 || n > 900 {
			t.Errorf("%s: %d words, want 400 to 900", rel, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs < 10 {
		t.Errorf("%d documents, want at least 10", docs)
	}
}
