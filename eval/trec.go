package eval

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// LoadTREC loads a TREC-style test collection.
//
// docsPath is a directory (every regular file, recursively, is a document
// whose id is its base name without extension), a .tar.gz/.tgz archive of
// such files, or a JSONL file of {"id", "text"} objects (Anserini's
// "contents" is accepted for "text", "title" is optional). In .html/.htm
// files only the literal tags <html>, </html>, <pre> and </pre> are removed:
// CACM abstracts contain "<" and a generic tag stripper would drop text.
//
// topicsPath holds CACM topics (<DOC><DOCNO> n </DOCNO> text </DOC>; the
// whole text is the query), TREC topics (<top><num> Number: n <title> ...;
// the title is the query) or "id<TAB>text" lines. qrelsPath holds
// "topic iteration docid relevance" lines.
//
// Judgments for unknown topics are skipped, as are topics without any
// judgment (trec_eval averages over judged topics only). A judgment naming a
// document that is not in the collection is listed in Skipped but KEPT in
// Query.Qrels: trec_eval counts it as relevant (unretrievable), and the
// published CACM figures include 55 such judgments (qrels say "CACM-756",
// the file is CACM-0756.html).
func LoadTREC(docsPath, topicsPath, qrelsPath string) (*Dataset, error) {
	ds := &Dataset{Name: strings.TrimSuffix(strings.TrimSuffix(filepath.Base(docsPath), ".gz"), ".tar")}
	if err := ds.loadTRECDocs(docsPath); err != nil {
		return nil, err
	}
	topics, err := ds.loadTopics(topicsPath)
	if err != nil {
		return nil, err
	}
	if err := ds.loadQrels(qrelsPath, topicsPath, topics); err != nil {
		return nil, err
	}
	return ds, nil
}

// StripHTMLPre removes the literal tags <html>, </html>, <pre> and </pre>
// (any letter case) and trims the result. Nothing else is touched.
func StripHTMLPre(s string) string {
	return strings.TrimSpace(htmlPreTag.ReplaceAllLiteralString(s, ""))
}

var htmlPreTag = regexp.MustCompile(`(?i)</?(?:html|pre)>`)

func (ds *Dataset) loadTRECDocs(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("load trec documents: %w", err)
	}
	seen := map[string]bool{}
	add := func(where string, line int, id, title, text string) {
		switch {
		case id == "":
			ds.skip(where, line, "document: empty id")
		case seen[id]:
			ds.skip(where, line, "document %s: duplicate id", id)
		default:
			seen[id] = true
			ds.Docs = append(ds.Docs, Doc{ID: id, Title: title, Text: text})
		}
	}
	name := strings.ToLower(path)
	switch {
	case info.IsDir():
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			add(p, 0, fileDocID(d.Name()), "", fileDocText(d.Name(), b))
			return nil
		})
	case strings.HasSuffix(name, ".tar.gz") || strings.HasSuffix(name, ".tgz"):
		err = ds.loadTarGz(path, add)
	default:
		err = ds.loadDocsJSONL(path, add)
	}
	if err != nil {
		return fmt.Errorf("load trec documents: %w", err)
	}
	if len(ds.Docs) == 0 {
		return fmt.Errorf("load trec documents: %s: no documents", path)
	}
	sort.Slice(ds.Docs, func(i, j int) bool { return ds.Docs[i].ID < ds.Docs[j].ID })
	return nil
}

func fileDocID(name string) string {
	base := filepath.Base(name)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func fileDocText(name string, b []byte) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".html", ".htm":
		return StripHTMLPre(string(b))
	}
	return string(b)
}

func (ds *Dataset) loadTarGz(path string, add func(string, int, string, string, string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(zr)
	var buf bytes.Buffer
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if h.Typeflag != tar.TypeReg || strings.HasPrefix(filepath.Base(h.Name), ".") {
			continue
		}
		buf.Reset()
		if _, err := io.Copy(&buf, tr); err != nil {
			return fmt.Errorf("%s: %s: %w", path, h.Name, err)
		}
		add(path+":"+h.Name, 0, fileDocID(h.Name), "", fileDocText(h.Name, buf.Bytes()))
	}
}

func (ds *Dataset) loadDocsJSONL(path string, add func(string, int, string, string, string)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	eachLine(data, func(line int, text []byte) {
		var d struct {
			ID       *string `json:"id"`
			Title    string  `json:"title"`
			Text     *string `json:"text"`
			Contents *string `json:"contents"`
		}
		if err := json.Unmarshal(text, &d); err != nil {
			ds.skip(path, line, "document: %s", describeJSON(err))
			return
		}
		if d.Text == nil {
			d.Text = d.Contents
		}
		if d.ID == nil || d.Text == nil {
			ds.skip(path, line, "document: want {\"id\", \"text\"}")
			return
		}
		add(path, line, *d.ID, d.Title, *d.Text)
	})
	return nil
}

type topic struct {
	line int
	q    Query
}

// loadTopics reads topics in CACM, TREC <top> or TSV form.
func (ds *Dataset) loadTopics(path string) ([]topic, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load topics: %w", err)
	}
	var ts []topic
	switch {
	case bytes.Contains(data, []byte("<top>")):
		ts = ds.parseTRECTopics(path, data)
	case bytes.Contains(data, []byte("<DOC>")):
		ts = ds.parseCACMTopics(path, data)
	default:
		ts = ds.parseTSVTopics(path, data)
	}
	// Drop duplicate ids and empty queries.
	seen := map[string]bool{}
	out := ts[:0]
	for _, t := range ts {
		switch {
		case t.q.ID == "":
			ds.skip(path, t.line, "topic: missing number")
		case t.q.Text == "":
			ds.skip(path, t.line, "topic %s: empty query text", t.q.ID)
		case seen[t.q.ID]:
			ds.skip(path, t.line, "topic %s: duplicate number", t.q.ID)
		default:
			seen[t.q.ID] = true
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("load topics: %s: no topics found", path)
	}
	return out, nil
}

// block finds the next open...close block at or after from; it returns the
// offsets of the block's inside, or ok=false.
func block(s, open, close string, from int) (start, end int, ok bool) {
	i := strings.Index(s[from:], open)
	if i < 0 {
		return 0, 0, false
	}
	start = from + i + len(open)
	j := strings.Index(s[start:], close)
	if j < 0 {
		return start, len(s), false
	}
	return start, start + j, true
}

func (ds *Dataset) parseCACMTopics(path string, data []byte) []topic {
	s := string(data)
	ln := newLines(data)
	var ts []topic
	for from := 0; ; {
		i := strings.Index(s[from:], "<DOC>")
		if i < 0 {
			break
		}
		line := ln.at(from + i)
		start, end, ok := block(s, "<DOC>", "</DOC>", from)
		if !ok {
			ds.skip(path, line, "topic: <DOC> without </DOC>")
			break
		}
		from = end + len("</DOC>")
		body := s[start:end]
		ns, ne, ok := block(body, "<DOCNO>", "</DOCNO>", 0)
		if !ok {
			ds.skip(path, line, "topic: missing <DOCNO>...</DOCNO>")
			continue
		}
		id := strings.TrimSpace(body[ns:ne])
		text := strings.Join(strings.Fields(body[ne+len("</DOCNO>"):]), " ")
		ts = append(ts, topic{line, Query{ID: id, Text: text}})
	}
	return ts
}

var topicField = regexp.MustCompile(`(?i)<(num|title|desc|narr|/top)>`)

func (ds *Dataset) parseTRECTopics(path string, data []byte) []topic {
	s := string(data)
	ln := newLines(data)
	var ts []topic
	for from := 0; ; {
		i := strings.Index(s[from:], "<top>")
		if i < 0 {
			break
		}
		line := ln.at(from + i)
		start, end, ok := block(s, "<top>", "</top>", from)
		if !ok {
			ds.skip(path, line, "topic: <top> without </top>")
			break
		}
		from = end + len("</top>")
		body := s[start:end] + "</top>"
		fields := map[string]string{}
		locs := topicField.FindAllStringSubmatchIndex(body, -1)
		for k, loc := range locs {
			name := strings.ToLower(body[loc[2]:loc[3]])
			if name == "/top" {
				break
			}
			val := body[loc[1]:locs[k+1][0]]
			if _, dup := fields[name]; !dup {
				fields[name] = val
			}
		}
		id := strings.TrimSpace(fields["num"])
		id = strings.TrimSpace(strings.TrimPrefix(id, "Number:"))
		title := strings.TrimSpace(fields["title"])
		title = strings.TrimSpace(strings.TrimPrefix(title, "Topic:"))
		ts = append(ts, topic{line, Query{ID: id, Text: strings.Join(strings.Fields(title), " ")}})
	}
	return ts
}

func (ds *Dataset) parseTSVTopics(path string, data []byte) []topic {
	var ts []topic
	eachLine(data, func(line int, text []byte) {
		id, q, ok := strings.Cut(string(text), "\t")
		if !ok {
			ds.skip(path, line, "topic: want \"id<TAB>text\"")
			return
		}
		ts = append(ts, topic{line, Query{ID: strings.TrimSpace(id), Text: strings.TrimSpace(q)}})
	})
	return ts
}

func (ds *Dataset) loadQrels(path, topicsPath string, topics []topic) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load qrels: %w", err)
	}
	docs := make(map[string]bool, len(ds.Docs))
	for _, d := range ds.Docs {
		docs[d.ID] = true
	}
	byID := make(map[string]*topic, len(topics))
	for i := range topics {
		byID[topics[i].q.ID] = &topics[i]
	}
	judged := 0
	eachLine(data, func(line int, text []byte) {
		f := strings.Fields(string(text))
		if len(f) != 4 {
			ds.skip(path, line, "qrels: want \"topic iteration docid relevance\", got %d fields", len(f))
			return
		}
		rel, err := strconv.Atoi(f[3])
		if err != nil {
			ds.skip(path, line, "qrels: relevance %q is not an integer", f[3])
			return
		}
		t := byID[f[0]]
		if t == nil {
			ds.skip(path, line, "qrels: unknown topic %s", f[0])
			return
		}
		if t.q.Qrels == nil {
			t.q.Qrels = map[string]int{}
		}
		if _, dup := t.q.Qrels[f[2]]; dup {
			ds.skip(path, line, "qrels: topic %s: duplicate judgment for %s", f[0], f[2])
			return
		}
		if !docs[f[2]] {
			// trec_eval counts every judged relevant document in the number
			// of relevant documents whether or not it exists in the
			// collection, and Anserini's reference figures include them
			// (CACM's qrels name 55 documents as "CACM-756" where the file is
			// CACM-0756). Keep the judgment so MAP and recall match, but
			// report it.
			ds.skip(path, line, "qrels: topic %s: unknown document %s (kept as a relevant document no run can retrieve, as trec_eval counts it)", f[0], f[2])
		}
		t.q.Qrels[f[2]] = rel
		judged++
	})
	if judged == 0 {
		return fmt.Errorf("load qrels: %s: no usable judgments (%d skipped)", path, len(ds.Skipped))
	}
	for _, t := range topics {
		if len(t.q.Qrels) == 0 {
			ds.skip(topicsPath, t.line, "topic %s: no relevance judgments in %s; not evaluated", t.q.ID, path)
			continue
		}
		ds.Queries = append(ds.Queries, t.q)
	}
	return nil
}
