package eval

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadAnthropicReal(t *testing.T) {
	ds := loadCodebase(t)
	if len(ds.Docs) != 90 || ds.NumChunks() != 737 || len(ds.Queries) != 248 || ds.NumGolden() != 306 {
		t.Fatalf("codebase: %d docs, %d chunks, %d queries, %d golden pairs; want 90/737/248/306",
			len(ds.Docs), ds.NumChunks(), len(ds.Queries), ds.NumGolden())
	}
	if len(ds.Skipped) != 0 {
		t.Errorf("codebase skipped %d records, want 0: %v", len(ds.Skipped), ds.Skipped[:min(5, len(ds.Skipped))])
	}
	for _, d := range ds.Docs {
		for _, c := range d.Chunks {
			if c.Start < 0 || d.Text[c.Start:c.End] != c.Text {
				t.Fatalf("chunk %s is not located in %s (start %d)", c.ID, d.ID, c.Start)
			}
			if n := len(c.Context); n < 52 || n > 560 {
				t.Errorf("chunk %s context length %d outside the README's 52-560", c.ID, n)
			}
		}
	}
	first := ds.Docs[0].Chunks[0]
	if ds.Docs[0].ID != "doc_1" || !strings.HasPrefix(first.Context, "This chunk describes the `DiffExecutor` struct") {
		t.Errorf("doc_1 chunk 0 context = %q", first.Context)
	}
	// Golden text comes from the query's golden_documents; it must equal the
	// corpus chunk, stripped.
	for _, q := range ds.Queries {
		for i, g := range q.Golden {
			text, ok := ds.ChunkText(g)
			if !ok || Strip(text) != q.GoldenText[i] {
				t.Fatalf("query %s golden %s text differs from the corpus chunk", q.ID, g)
			}
		}
	}
	if q := ds.Queries[0]; q.ID != "q1" || q.Text != "What is the purpose of the DiffExecutor struct?" || q.Golden[0] != (ChunkRef{"doc_1", 0}) {
		t.Errorf("first query = %+v", q)
	}
}

func TestLoadAnthropicWithoutContexts(t *testing.T) {
	d := filepath.Join(dataDir(t), "codebase")
	ds, err := LoadAnthropic(filepath.Join(d, "codebase_chunks.json"), filepath.Join(d, "evaluation_set.jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	if ds.Docs[0].Chunks[0].Context != "" || len(ds.Skipped) != 0 {
		t.Errorf("contexts loaded without a contexts file")
	}
}

func TestLoadTRECCACM(t *testing.T) {
	ds := loadCACM(t)
	if len(ds.Docs) != 3204 || len(ds.Queries) != 52 {
		t.Fatalf("cacm: %d docs, %d judged topics; want 3204/52", len(ds.Docs), len(ds.Queries))
	}
	judgments, unjudged, unknownDoc := 0, 0, 0
	for _, q := range ds.Queries {
		judgments += len(q.Qrels)
	}
	for _, s := range ds.Skipped {
		switch {
		case strings.Contains(s.Reason, "no relevance judgments"):
			unjudged++
			if !strings.HasSuffix(s.File, "topics.cacm.txt") || s.Line == 0 {
				t.Errorf("unjudged topic skip does not name the topic's file and line: %v", s)
			}
		case strings.Contains(s.Reason, "unknown document"):
			unknownDoc++
		default:
			t.Errorf("unexpected skip %v", s)
		}
	}
	// 64 topics, 52 judged; all 796 qrels lines are kept, 55 of them naming
	// unpadded ids ("CACM-756") that are not in the collection.
	if unjudged != 12 || unknownDoc != 55 || judgments != 796 {
		t.Errorf("unjudged=%d unknownDoc=%d judgments=%d; want 12/55/796", unjudged, unknownDoc, judgments)
	}
	d := ds.Docs[0]
	if d.ID != "CACM-0001" || !strings.HasPrefix(d.Text, "Preliminary Report-International Algebraic Language") || strings.Contains(d.Text, "<pre>") {
		t.Errorf("first doc %s text %q", d.ID, d.Text[:60])
	}
	// "<" inside abstracts survives the tag stripping.
	lt := 0
	for _, d := range ds.Docs {
		if strings.Contains(d.Text, "<=") {
			lt++
		}
	}
	if lt == 0 {
		t.Error("no document contains \"<=\": text was dropped by tag stripping")
	}
	q := ds.Queries[0]
	if q.ID != "1" || q.Text != "What articles exist which deal with TSS (Time Sharing System), an operating system for IBM computers?" {
		t.Errorf("topic 1 = %q %q", q.ID, q.Text)
	}
}

func TestLoadSQuADXQuAD(t *testing.T) {
	var en, de *Dataset
	for _, lang := range []string{"en", "de"} {
		ds, err := LoadSQuAD(filepath.Join(dataDir(t), "xquad", "xquad."+lang+".json"), lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds.Docs) != 48 || ds.NumChunks() != 240 || len(ds.Queries) != 1190 || len(ds.Skipped) != 0 {
			t.Fatalf("xquad.%s: %d articles, %d paragraphs, %d questions, %d skipped; want 48/240/1190/0",
				lang, len(ds.Docs), ds.NumChunks(), len(ds.Queries), len(ds.Skipped))
		}
		for _, d := range ds.Docs {
			for _, c := range d.Chunks {
				if d.Text[c.Start:c.End] != c.Text {
					t.Fatalf("%s %s: chunk offsets wrong", lang, c.ID)
				}
			}
		}
		if lang == "en" {
			en = ds
		} else {
			de = ds
		}
	}
	// Parallel: same question ids, same golden article and paragraph.
	for i := range en.Queries {
		a, b := en.Queries[i], de.Queries[i]
		if a.ID != b.ID || a.Golden[0] != b.Golden[0] || a.Lang != "en" || b.Lang != "de" {
			t.Fatalf("question %d differs: %+v vs %+v", i, a.Golden, b.Golden)
		}
	}
	if en.Docs[0].Title != strings.ReplaceAll(en.Docs[0].ID, "_", " ") {
		t.Errorf("title %q from id %q", en.Docs[0].Title, en.Docs[0].ID)
	}
}

// write creates a file under dir and returns its path.
func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hasSkip reports whether ds skipped a record at file:line whose reason
// contains want.
func hasSkip(ds *Dataset, file string, line int, want string) bool {
	for _, s := range ds.Skipped {
		if s.File == file && s.Line == line && strings.Contains(s.Reason, want) {
			return true
		}
	}
	return false
}

func requireSkip(t *testing.T, ds *Dataset, file string, line int, want string) {
	t.Helper()
	if !hasSkip(ds, file, line, want) {
		t.Errorf("no skip at %s:%d containing %q; skipped: %v", filepath.Base(file), line, want, ds.Skipped)
	}
}

const goodChunks = `[
  {"doc_id": "doc_1", "original_uuid": "u1", "content": "aaa bbb ccc",
   "chunks": [{"chunk_id": "doc_1_chunk_0", "original_index": 0, "content": "aaa "},
              {"chunk_id": "doc_1_chunk_1", "original_index": 1, "content": "bbb ccc"}]},
  {"doc_id": 5, "original_uuid": "u5", "content": "x", "chunks": []},
  {"doc_id": "doc_2", "original_uuid": "u2", "content": "ddd",
   "chunks": [{"chunk_id": "doc_2_chunk_0", "original_index": 0, "content": "ddd"},
              {"chunk_id": "doc_2_chunk_1", "content": "no index"}]}
]`

func TestLoadAnthropicMalformed(t *testing.T) {
	dir := t.TempDir()
	chunks := write(t, dir, "chunks.json", goodChunks)
	queries := write(t, dir, "eval.jsonl", strings.Join([]string{
		`{"query": "q one", "golden_chunk_uuids": [["u1", 1]], "golden_documents": [{"uuid": "u1", "chunks": [{"index": 1, "content": " bbb ccc\n"}]}]}`,
		`{"query": "broken", `,
		`{"query": "unknown doc", "golden_chunk_uuids": [["zz", 0]], "golden_documents": []}`,
		``,
		`{"query": "unknown chunk", "golden_chunk_uuids": [["u2", 7]], "golden_documents": []}`,
		`{"query": "not in golden_documents", "golden_chunk_uuids": [["u2", 0]], "golden_documents": []}`,
		`{"query": "bad pair", "golden_chunk_uuids": [["u2"]]}`,
		`{"query": "", "golden_chunk_uuids": [["u1", 0]]}`,
		`{"query": "partial", "golden_chunk_uuids": [["u1", 0], ["zz", 1]], "golden_documents": [{"uuid": "u1", "chunks": [{"index": 0, "content": "aaa"}]}]}`,
	}, "\n"))
	contexts := write(t, dir, "ctx.json", `[
{"doc_id": "doc_1", "original_index": 0, "context": "ctx zero"},
{"doc_id": "doc_9", "original_index": 0, "context": "unknown doc"},
{"doc_id": "doc_1", "original_index": 0, "context": "duplicate"}
]`)
	ds, err := LoadAnthropic(chunks, queries, contexts)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Docs) != 2 || ds.NumChunks() != 3 {
		t.Errorf("docs %d chunks %d, want 2/3", len(ds.Docs), ds.NumChunks())
	}
	requireSkip(t, ds, chunks, 5, `"doc_id"`)
	requireSkip(t, ds, chunks, 6, "missing original_index")
	requireSkip(t, ds, queries, 2, "query:")
	requireSkip(t, ds, queries, 3, "unknown document")
	requireSkip(t, ds, queries, 3, "no golden chunk")
	requireSkip(t, ds, queries, 5, "unknown chunk")
	requireSkip(t, ds, queries, 6, "not in golden_documents")
	requireSkip(t, ds, queries, 7, "want [uuid, index]")
	requireSkip(t, ds, queries, 8, "missing query text")
	requireSkip(t, ds, queries, 9, "zz#1: unknown document")
	requireSkip(t, ds, contexts, 3, "unknown document")
	requireSkip(t, ds, contexts, 4, "duplicate context")
	requireSkip(t, ds, contexts, 0, "doc_1#1 (doc_1_chunk_1) has no context")
	if len(ds.Queries) != 2 || ds.Queries[0].ID != "q1" || ds.Queries[0].GoldenText[0] != "bbb ccc" || ds.Queries[1].ID != "q9" || len(ds.Queries[1].Golden) != 1 {
		t.Errorf("queries = %+v", ds.Queries)
	}
	if ds.Docs[0].Chunks[0].Context != "ctx zero" {
		t.Errorf("context = %q", ds.Docs[0].Chunks[0].Context)
	}

	// A syntax error makes the file unusable: error with file:line.
	bad := write(t, dir, "bad.json", "[\n {\"doc_id\": \"d\",\n  \"content\": \"x\" \"chunks\": []}\n]")
	_, err = LoadAnthropic(bad, queries, "")
	if err == nil || !strings.Contains(err.Error(), "bad.json:3:") {
		t.Errorf("syntax error = %v, want bad.json:3:", err)
	}
	trunc := write(t, dir, "trunc.json", "[\n {\"doc_id\": \"d\", \"content\": \"x\"}")
	if _, err = LoadAnthropic(trunc, queries, ""); err == nil || !strings.Contains(err.Error(), "trunc.json:2:") {
		t.Errorf("truncated file error = %v, want trunc.json:2:", err)
	}
	obj := write(t, dir, "obj.json", `{"doc_id": "d"}`)
	if _, err = LoadAnthropic(obj, queries, ""); err == nil || !strings.Contains(err.Error(), "obj.json:1: expected a JSON array") {
		t.Errorf("object instead of array: %v", err)
	}
	if _, err = LoadAnthropic(filepath.Join(dir, "missing.json"), queries, ""); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	none := write(t, dir, "none.jsonl", "{\"query\": \"x\"}\n")
	if _, err = LoadAnthropic(chunks, none, ""); err == nil || !strings.Contains(err.Error(), "no usable queries") {
		t.Errorf("no usable queries: %v", err)
	}
}

func tarGz(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadTRECMalformed(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.tar.gz")
	tarGz(t, docs, map[string]string{
		"c/D-1.html": "<html>\n<pre>\nA < B and C>D\n</pre>\n</html>\n",
		"c/D-2.html": "<HTML><PRE>second</PRE></HTML>",
		"c/D-3.txt":  "<pre> kept in a .txt",
	})
	topics := write(t, dir, "topics.txt", `<DOC>
<DOCNO> 1 </DOCNO>
 first   topic
 text
</DOC>
<DOC>
no number here
</DOC>
<DOC>
<DOCNO> 2 </DOCNO>
second
</DOC>
<DOC>
<DOCNO> 1 </DOCNO>
duplicate
</DOC>
<DOC>
<DOCNO> 3 </DOCNO>
unjudged
</DOC>
<DOC>
<DOCNO> 4 </DOCNO>
never closed
`)
	qrels := write(t, dir, "qrels.txt", strings.Join([]string{
		"1 0 D-1 1",
		"1 0 D-2",
		"1 0 D-2 x",
		"9 0 D-1 1",
		"2 0 D-9 1",
		"1 0 D-1 0",
		"2 0 D-2 2",
		"1 0 D-3 0",
	}, "\n"))
	ds, err := LoadTREC(docs, topics, qrels)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Docs) != 3 || ds.Docs[0].Text != "A < B and C>D" || ds.Docs[1].Text != "second" || ds.Docs[2].Text != "<pre> kept in a .txt" {
		t.Errorf("docs = %+v", ds.Docs)
	}
	requireSkip(t, ds, topics, 6, "missing <DOCNO>")
	requireSkip(t, ds, topics, 13, "duplicate number")
	requireSkip(t, ds, topics, 17, "topic 3: no relevance judgments")
	requireSkip(t, ds, topics, 21, "without </DOC>")
	requireSkip(t, ds, qrels, 2, "got 3 fields")
	requireSkip(t, ds, qrels, 3, `relevance "x"`)
	requireSkip(t, ds, qrels, 4, "unknown topic 9")
	requireSkip(t, ds, qrels, 5, "unknown document D-9 (kept")
	requireSkip(t, ds, qrels, 6, "duplicate judgment")
	if len(ds.Queries) != 2 {
		t.Fatalf("queries = %+v", ds.Queries)
	}
	if q := ds.Queries[0]; q.ID != "1" || q.Text != "first topic text" || len(q.Qrels) != 2 || q.Qrels["D-1"] != 1 || q.Qrels["D-3"] != 0 {
		t.Errorf("topic 1 = %+v", q)
	}
	if q := ds.Queries[1]; q.Qrels["D-9"] != 1 || q.Qrels["D-2"] != 2 {
		t.Errorf("topic 2 qrels = %v", q.Qrels)
	}

	if _, err := LoadTREC(docs, topics, write(t, dir, "empty.qrels", "junk\n")); err == nil || !strings.Contains(err.Error(), "no usable judgments") {
		t.Errorf("qrels without usable lines: %v", err)
	}
	if _, err := LoadTREC(filepath.Join(dir, "nope"), topics, qrels); err == nil {
		t.Error("missing docs path: no error")
	}
	if _, err := LoadTREC(write(t, dir, "bad.tar.gz", "not gzip"), topics, qrels); err == nil || !strings.Contains(err.Error(), "bad.tar.gz") {
		t.Errorf("corrupt archive: %v", err)
	}
}

func TestLoadTRECDirJSONLAndTopicFormats(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "docs/a/X1.html", "<html><pre>one</pre></html>")
	write(t, dir, "docs/X2.txt", "two")
	write(t, dir, "docs/.hidden", "ignored")
	trecTopics := write(t, dir, "trec.txt", `<top>
<num> Number: 301
<title> Topic: International Organized
Crime

<desc> Description:
Identify organizations.
<narr> Narrative:
...
</top>
<top>
<num> Number: 302
<title> Poliomyelitis
</top>
`)
	qrels := write(t, dir, "q.txt", "301 0 X1 1\n302 0 X2 1\n")
	ds, err := LoadTREC(filepath.Join(dir, "docs"), trecTopics, qrels)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Docs) != 2 || ds.Docs[0].ID != "X1" || ds.Docs[0].Text != "one" || ds.Docs[1].Text != "two" {
		t.Errorf("dir docs = %+v", ds.Docs)
	}
	if len(ds.Queries) != 2 || ds.Queries[0].Text != "International Organized Crime" || ds.Queries[1].ID != "302" || ds.Queries[1].Text != "Poliomyelitis" {
		t.Errorf("trec topics = %+v", ds.Queries)
	}

	jsonl := write(t, dir, "docs.jsonl", `{"id": "X1", "text": "one"}
{"id": "X2", "contents": "two", "title": "T"}
{"id": "X3"}
not json
{"id": "X1", "text": "dup"}
`)
	tsv := write(t, dir, "topics.tsv", "301\tfirst query\nno tab here\n302\tsecond\n")
	ds, err = LoadTREC(jsonl, tsv, qrels)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Docs) != 2 || ds.Docs[1].Title != "T" || ds.Docs[1].Text != "two" {
		t.Errorf("jsonl docs = %+v", ds.Docs)
	}
	requireSkip(t, ds, jsonl, 3, `want {"id", "text"}`)
	requireSkip(t, ds, jsonl, 4, "document:")
	requireSkip(t, ds, jsonl, 5, "duplicate id")
	requireSkip(t, ds, tsv, 2, "want \"id<TAB>text\"")
	if len(ds.Queries) != 2 || ds.Queries[0].Text != "first query" {
		t.Errorf("tsv topics = %+v", ds.Queries)
	}
}

func TestLoadSQuADMalformed(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "s.json", `{"version": "1.1", "data": [
  {"title": "A_b", "paragraphs": [
    {"context": "P zero.", "qas": [{"id": "q1", "question": "Q1?", "answers": [{"text": "zero", "answer_start": 2}]},
                                  {"id": "q1", "question": "dup?"},
                                  {"id": "", "question": "no id?"}]},
    {"context": "  ", "qas": [{"id": "q2", "question": "lost?"}]},
    {"context": "P one.", "qas": [{"id": "q3", "question": " "}, {"id": "q4", "question": "Q4?"}]}]},
  {"title": "", "paragraphs": []},
  {"title": "A_b", "paragraphs": []},
  {"title": 7}
]}`)
	ds, err := LoadSQuAD(p, "en")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Docs) != 1 || len(ds.Docs[0].Chunks) != 2 || ds.Docs[0].Text != "P zero.\n\nP one." || ds.Docs[0].Title != "A b" {
		t.Fatalf("docs = %+v", ds.Docs)
	}
	if len(ds.Queries) != 2 || ds.Queries[1].Golden[0] != (ChunkRef{"A_b", 1}) || ds.Queries[0].Answer != "zero" {
		t.Errorf("queries = %+v", ds.Queries)
	}
	requireSkip(t, ds, p, 2, "q1: duplicate id")
	requireSkip(t, ds, p, 2, "question without id")
	requireSkip(t, ds, p, 2, "paragraph 1: empty context (1 questions dropped)")
	requireSkip(t, ds, p, 2, "q3: empty question")
	requireSkip(t, ds, p, 8, "missing title")
	requireSkip(t, ds, p, 9, "duplicate title")
	requireSkip(t, ds, p, 10, `"title"`)

	for name, body := range map[string]string{
		"nodata.json": `{"version": "1.1"}`,
		"array.json":  `[]`,
		"syntax.json": "{\"data\": [\n{\"title\": \"x\",}\n]}",
		"noq.json":    `{"data": []}`,
	} {
		_, err := LoadSQuAD(write(t, dir, name, body), "en")
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v does not name the file", name, err)
		}
	}
	_, err = LoadSQuAD(filepath.Join(dir, "syntax.json"), "en")
	if !strings.Contains(err.Error(), "syntax.json:2:") {
		t.Errorf("syntax error line: %v", err)
	}
}

func TestLoadAnswers(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	write(t, docs, "a.md", "alpha")
	write(t, docs, "sub/b.txt", "beta")
	qs := write(t, dir, "q.jsonl", strings.Join([]string{
		`{"id": "1", "query": "what alpha?", "doc": "a.md", "answer": "alpha", "lang": "en"}`,
		`{"id": "2", "query": "was beta?", "doc": "sub/b.txt", "answer": "beta", "lang": "de"}`,
		`{"id": "3", "query": "again", "doc": "a.md", "answer": "lph"}`,
		`{"id": "1", "query": "dup", "doc": "a.md", "answer": "x"}`,
		`{"id": "4", "query": "", "doc": "a.md"}`,
		`{"id": "5", "query": "escape", "doc": "../q.jsonl", "answer": "x"}`,
		`{"id": "6", "query": "missing", "doc": "c.md", "answer": "x"}`,
		`{"id": 7}`,
	}, "\n"))
	ds, err := LoadAnswers(docs, qs)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Docs) != 2 || ds.Docs[1].ID != "sub/b.txt" || ds.Docs[1].Path != filepath.Join(docs, "sub", "b.txt") || ds.Docs[0].Text != "" {
		t.Errorf("docs = %+v", ds.Docs)
	}
	if len(ds.Queries) != 3 || ds.Queries[1].Lang != "de" || ds.Queries[2].AnswerDoc != "a.md" || ds.Queries[0].Mode() != ModeAnswer {
		t.Errorf("queries = %+v", ds.Queries)
	}
	requireSkip(t, ds, qs, 4, "duplicate id")
	requireSkip(t, ds, qs, 5, "missing query, answer")
	requireSkip(t, ds, qs, 6, "outside")
	requireSkip(t, ds, qs, 7, "no such file")
	requireSkip(t, ds, qs, 8, `"id"`)
	if _, err := LoadAnswers(filepath.Join(dir, "nodir"), qs); err == nil {
		t.Error("missing docs dir: no error")
	}
}
