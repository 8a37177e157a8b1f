// Package examples holds the example corpus that the README's first
// command indexes; this test keeps its reference queries honest.
package examples

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/situate/situate/chunk"
)

type query struct {
	ID     string `json:"id"`
	Query  string `json:"query"`
	Doc    string `json:"doc"`
	Answer string `json:"answer"`
	Lang   string `json:"lang"`
}

func readQueries(t *testing.T) []query {
	t.Helper()
	f, err := os.Open("corpus/queries.jsonl")
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
			t.Fatalf("queries.jsonl: line %d: %v", line, err)
		}
		if q.ID == "" || q.Query == "" || q.Doc == "" || q.Answer == "" || q.Lang == "" {
			t.Fatalf("queries.jsonl: line %d: empty field in %+v", line, q)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return qs
}

func formatOf(path string) string {
	switch filepath.Ext(path) {
	case ".md":
		return chunk.FormatMarkdown
	case ".go":
		return chunk.FormatCode
	case ".html":
		return chunk.FormatHTML
	}
	return chunk.FormatText
}

// entity returns the name a query starts with: its leading capitalised
// words ("Puerto Almenara", "Ладожский"), or for Chinese its first two
// characters.
func entity(q query) string {
	if q.Lang == "zh" {
		_, n1 := utf8.DecodeRuneInString(q.Query)
		_, n2 := utf8.DecodeRuneInString(q.Query[n1:])
		return q.Query[:n1+n2]
	}
	var words []string
	for _, w := range strings.Fields(q.Query) {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) && len(words) > 0 {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

func TestQueries(t *testing.T) {
	qs := readQueries(t)
	ids := map[string]bool{}
	perLang := map[string]int{}
	for _, q := range qs {
		if ids[q.ID] {
			t.Errorf("%s: duplicate id", q.ID)
		}
		ids[q.ID] = true
		perLang[q.Lang]++
		data, err := os.ReadFile(filepath.Join("corpus", filepath.FromSlash(q.Doc)))
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
		// With the default chunking, the answer lies inside one chunk, and
		// no chunk holding it names the entity: only a context can connect
		// the two.
		spans, err := chunk.Split(text, chunk.Options{Size: chunk.DefaultSize, Overlap: chunk.DefaultOverlap,
			Format: formatOf(q.Doc), Path: q.Doc})
		if err != nil {
			t.Fatal(err)
		}
		inside := 0
		name := strings.ToLower(entity(q))
		for _, s := range spans {
			if s.Start <= at && at+len(q.Answer) <= s.End {
				inside++
				// Code chunks carry their declaration's name anyway.
				if !strings.HasPrefix(q.Doc, "code/") && strings.Contains(strings.ToLower(text[s.Start:s.End]), name) {
					t.Errorf("%s: chunk [%d,%d) holding the answer names %q; the query does not need context", q.ID, s.Start, s.End, name)
				}
			}
		}
		if inside == 0 {
			t.Errorf("%s: answer %q is cut across chunks", q.ID, q.Answer)
		}
	}
	for _, lang := range []string{"en", "de", "es", "ru", "zh"} {
		if perLang[lang] < 5 {
			t.Errorf("%s: %d queries, want at least 5", lang, perLang[lang])
		}
	}
}
