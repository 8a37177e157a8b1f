package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// LoadAnswers loads a question set whose relevance is given by an answer
// string: queriesPath is JSONL of {"id", "query", "doc", "answer", "lang"},
// where doc is the path of the document holding the answer relative to
// docsDir (forward slashes). Documents are recorded by id (the doc value) and
// Path only; the caller ingests the files. At evaluation a result is a hit
// when it is a chunk of doc whose original text contains answer exactly.
//
// A line with a missing field, a duplicate id, a doc path outside docsDir or
// a doc file that does not exist is skipped.
func LoadAnswers(docsDir, queriesPath string) (*Dataset, error) {
	data, err := os.ReadFile(queriesPath)
	if err != nil {
		return nil, fmt.Errorf("load answers: %w", err)
	}
	if info, err := os.Stat(docsDir); err != nil {
		return nil, fmt.Errorf("load answers: %w", err)
	} else if !info.IsDir() {
		return nil, fmt.Errorf("load answers: %s: not a directory", docsDir)
	}
	ds := &Dataset{Name: strings.TrimSuffix(filepath.Base(queriesPath), filepath.Ext(queriesPath))}
	ids := map[string]bool{}
	docs := map[string]bool{}
	eachLine(data, func(line int, text []byte) {
		var r struct {
			ID     string `json:"id"`
			Query  string `json:"query"`
			Doc    string `json:"doc"`
			Answer string `json:"answer"`
			Lang   string `json:"lang"`
		}
		if err := json.Unmarshal(text, &r); err != nil {
			ds.skip(queriesPath, line, "query: %s", describeJSON(err))
			return
		}
		var missing []string
		for _, f := range []struct{ name, v string }{{"id", r.ID}, {"query", r.Query}, {"doc", r.Doc}, {"answer", r.Answer}} {
			if strings.TrimSpace(f.v) == "" {
				missing = append(missing, f.name)
			}
		}
		if len(missing) > 0 {
			ds.skip(queriesPath, line, "query %s: missing %s", r.ID, strings.Join(missing, ", "))
			return
		}
		if ids[r.ID] {
			ds.skip(queriesPath, line, "query %s: duplicate id", r.ID)
			return
		}
		clean := path.Clean(strings.ReplaceAll(r.Doc, "\\", "/"))
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			ds.skip(queriesPath, line, "query %s: doc %q is outside %s", r.ID, r.Doc, docsDir)
			return
		}
		file := filepath.Join(docsDir, filepath.FromSlash(clean))
		if !docs[clean] {
			info, err := os.Stat(file)
			if err != nil || !info.Mode().IsRegular() {
				ds.skip(queriesPath, line, "query %s: doc %q: no such file %s", r.ID, r.Doc, file)
				return
			}
			docs[clean] = true
			ds.Docs = append(ds.Docs, Doc{ID: clean, Path: file})
		}
		ids[r.ID] = true
		ds.Queries = append(ds.Queries, Query{ID: r.ID, Text: r.Query, Lang: r.Lang, Answer: r.Answer, AnswerDoc: clean})
	})
	if len(ds.Queries) == 0 {
		return nil, fmt.Errorf("load answers: %s: no usable queries (%d skipped)", queriesPath, len(ds.Skipped))
	}
	return ds, nil
}
