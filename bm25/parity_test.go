package bm25

import (
	"math"
	"testing"
)

// trecEval computes MAP and P@30 as trec_eval does on an Anserini run.
// Anserini breaks score ties by docid ascending and then nudges tied scores
// apart (ScoreTiesAdjusterReranker), so trec_eval, which would otherwise
// re-sort ties by docno descending, keeps that order: the order Search
// returns. Averages run over the judged topics.
func trecEval(runs map[string][]Result, qrels map[string]map[string]bool) (mapScore, p30 float64) {
	for topic, rel := range qrels {
		hits, sum := 0, 0.0
		for i, r := range runs[topic] {
			if rel[r.ID] {
				hits++
				sum += float64(hits) / float64(i+1)
				if i < 30 {
					p30++
				}
			}
		}
		mapScore += sum / float64(len(rel))
	}
	n := float64(len(qrels))
	return mapScore / n, p30 / 30 / n
}

func cacmIndex(tb testing.TB) (*Index, []textDoc) {
	tb.Helper()
	docs := readCACM(tb)
	ix, err := New(Options{K1: 0.9, B: 0.4, Analyzer: "english"})
	if err != nil {
		tb.Fatal(err)
	}
	var b Batch
	for _, d := range docs {
		b.Replace(d.id, []Doc{{ID: d.id, Fields: map[string]string{"text": d.text}}})
	}
	if err := ix.Apply(&b); err != nil {
		tb.Fatal(err)
	}
	return ix, docs
}

// TestCACMParity checks BM25 scoring against Anserini/Lucene 8 on CACM:
// MAP 0.3123 and P@30 0.1942 with k1 = 0.9, b = 0.4, the English analyzer,
// top 1000, and the index statistics Lucene reports.
func TestCACMParity(t *testing.T) {
	ix, _ := cacmIndex(t)
	defer ix.Close()
	st := ix.Stats()
	t.Logf("stats: %d docs, %d unique terms, %d tokens", st.Docs, st.Terms, st.Tokens)
	if st.Docs != 3204 || st.Terms != 14363 || st.Tokens != 320968 {
		t.Errorf("stats %d docs / %d terms / %d tokens, Lucene has 3204 / 14363 / 320968", st.Docs, st.Terms, st.Tokens)
	}
	qrels := readQrels(t)
	runs := map[string][]Result{}
	for _, tp := range readTopics(t) {
		res, err := ix.Search(Query{Text: tp.text, K: 1000})
		if err != nil {
			t.Fatal(err)
		}
		runs[tp.id] = res
	}
	if len(qrels) != 52 {
		t.Fatalf("%d judged topics, want 52", len(qrels))
	}
	m, p30 := trecEval(runs, qrels)
	t.Logf("CACM BM25 k1=0.9 b=0.4: MAP %.6f P@30 %.6f (Lucene 0.3123 / 0.1942)", m, p30)
	if math.Abs(m-0.3123) > 0.0005 || math.Abs(p30-0.1942) > 0.0005 {
		t.Errorf("MAP %.4f P@30 %.4f, want 0.3123 / 0.1942 (±0.0005)", m, p30)
	}
}
