package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

type squadArticle struct {
	Title      string `json:"title"`
	Paragraphs []struct {
		Context string `json:"context"`
		QAs     []struct {
			ID       string `json:"id"`
			Question string `json:"question"`
			Answers  []struct {
				Text string `json:"text"`
			} `json:"answers"`
		} `json:"qas"`
	} `json:"paragraphs"`
}

// LoadSQuAD loads a SQuAD v1.1 file (such as XQuAD) as a paragraph retrieval
// set: each article is a document (ID = title as written, Title = title with
// underscores as spaces, Text = paragraphs joined by a blank line), each
// paragraph is a chunk, each question a query whose golden chunk is its
// paragraph. lang is recorded on documents and queries. Query ids are the
// question ids; Answer holds the first answer text (informational). Skips
// inside an article (empty paragraph, bad question) name the article's line.
func LoadSQuAD(path, lang string) (*Dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load squad: %w", err)
	}
	ds := &Dataset{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	ln := newLines(data)
	start, err := objectField(path, data, "data")
	if err != nil {
		return nil, fmt.Errorf("load squad: %w", err)
	}
	titles := map[string]bool{}
	qids := map[string]bool{}
	_, err = eachArrayElement(path, data, start, ln, func(line int, raw json.RawMessage) {
		var a squadArticle
		if err := json.Unmarshal(raw, &a); err != nil {
			ds.skip(path, line, "article: %s", describeJSON(err))
			return
		}
		switch {
		case a.Title == "":
			ds.skip(path, line, "article: missing title")
			return
		case titles[a.Title]:
			ds.skip(path, line, "article %q: duplicate title", a.Title)
			return
		}
		titles[a.Title] = true
		doc := Doc{ID: a.Title, Title: strings.ReplaceAll(a.Title, "_", " "), Lang: lang}
		var text strings.Builder
		for pi, p := range a.Paragraphs {
			if strings.TrimSpace(p.Context) == "" {
				ds.skip(path, line, "article %q: paragraph %d: empty context (%d questions dropped)", a.Title, pi, len(p.QAs))
				continue
			}
			if text.Len() > 0 {
				text.WriteString("\n\n")
			}
			c := Chunk{ID: fmt.Sprintf("%s#%d", a.Title, len(doc.Chunks)), Index: len(doc.Chunks), Start: text.Len(), Text: p.Context}
			text.WriteString(p.Context)
			c.End = text.Len()
			doc.Chunks = append(doc.Chunks, c)
			ref := ChunkRef{doc.ID, c.Index}
			for _, qa := range p.QAs {
				switch {
				case qa.ID == "":
					ds.skip(path, line, "article %q: paragraph %d: question without id", a.Title, pi)
					continue
				case strings.TrimSpace(qa.Question) == "":
					ds.skip(path, line, "article %q: question %s: empty question", a.Title, qa.ID)
					continue
				case qids[qa.ID]:
					ds.skip(path, line, "article %q: question %s: duplicate id", a.Title, qa.ID)
					continue
				}
				qids[qa.ID] = true
				q := Query{ID: qa.ID, Text: qa.Question, Lang: lang, Golden: []ChunkRef{ref}, GoldenText: []string{Strip(p.Context)}}
				if len(qa.Answers) > 0 {
					q.Answer = qa.Answers[0].Text
				}
				ds.Queries = append(ds.Queries, q)
			}
		}
		doc.Text = text.String()
		ds.Docs = append(ds.Docs, doc)
	})
	if err != nil {
		return nil, fmt.Errorf("load squad: %w", err)
	}
	if len(ds.Queries) == 0 {
		return nil, fmt.Errorf("load squad: %s: no questions (%d skipped)", path, len(ds.Skipped))
	}
	return ds, nil
}

// objectField returns the offset of the value of the named field of the
// top-level JSON object in data.
func objectField(path string, data []byte, field string) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return 0, jsonError(path, data, 0, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return 0, fmt.Errorf("%s:1: expected a JSON object, found %v", path, tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, jsonError(path, data, 0, err)
		}
		if key, _ := tok.(string); key == field {
			off := int(dec.InputOffset())
			for off < len(data) && (data[off] == ':' || data[off] == ' ' || data[off] == '\t' || data[off] == '\r' || data[off] == '\n') {
				off++
			}
			return off, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0, jsonError(path, data, 0, err)
		}
	}
	return 0, fmt.Errorf("%s: missing field %q", path, field)
}
