package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzTopics feeds arbitrary bytes to the topic and qrels parsers: they must
// not panic, and every topic they return has an id and text.
func FuzzTopics(f *testing.F) {
	f.Add("<DOC>\n<DOCNO> 1 </DOCNO>\ntext\n</DOC>\n", "1 0 D 1\n")
	f.Add("<top>\n<num> Number: 301\n<title> x\n</top>", "301 0 D 2\n")
	f.Add("<top><num><title></top><DOC>", "")
	f.Add("1\tq\n", "1 0 D\n")
	f.Add("<DOC><DOCNO></DOC>", "x x x x")
	f.Fuzz(func(t *testing.T, topics, qrels string) {
		dir := t.TempDir()
		docs := filepath.Join(dir, "d.jsonl")
		tp := filepath.Join(dir, "t.txt")
		qp := filepath.Join(dir, "q.txt")
		os.WriteFile(docs, []byte(`{"id": "D", "text": "x"}`), 0o644)
		os.WriteFile(tp, []byte(topics), 0o644)
		os.WriteFile(qp, []byte(qrels), 0o644)
		ds, err := LoadTREC(docs, tp, qp)
		if err != nil {
			return
		}
		for _, q := range ds.Queries {
			if q.ID == "" || strings.TrimSpace(q.Text) == "" || len(q.Qrels) == 0 {
				t.Fatalf("bad query %+v", q)
			}
		}
	})
}

// FuzzJSONLoaders feeds arbitrary bytes to the JSON loaders: no panic, and
// an error or a dataset whose skips all carry a file.
func FuzzJSONLoaders(f *testing.F) {
	f.Add(goodChunks, `{"query": "q", "golden_chunk_uuids": [["u1", 0]], "golden_documents": [{"uuid": "u1", "chunks": [{"index": 0, "content": "aaa"}]}]}`)
	f.Add(`[{"doc_id": "d", "content": "x", "chunks": [{"original_index": -1, "content": "zz"}]}]`, `{"golden_chunk_uuids": [[1, "x"]]}`)
	f.Add(`{"data": [{"title": "t", "paragraphs": [{"context": "c", "qas": [{"id": "1", "question": "q"}]}]}]}`, "")
	f.Fuzz(func(t *testing.T, a, b string) {
		dir := t.TempDir()
		ap := filepath.Join(dir, "a.json")
		bp := filepath.Join(dir, "b.jsonl")
		os.WriteFile(ap, []byte(a), 0o644)
		os.WriteFile(bp, []byte(b), 0o644)
		check := func(ds *Dataset, err error) {
			if err != nil {
				return
			}
			for _, s := range ds.Skipped {
				if s.File == "" {
					t.Fatalf("skip without file: %v", s)
				}
			}
		}
		check(LoadAnthropic(ap, bp, ap))
		check(LoadSQuAD(ap, "en"))
		check(LoadAnswers(dir, bp))
	})
}
