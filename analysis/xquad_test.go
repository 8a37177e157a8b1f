package analysis

import (
	"encoding/json"
	"os"
	"testing"
)

type xquadFile struct {
	Data []struct {
		Title      string `json:"title"`
		Paragraphs []struct {
			Context string `json:"context"`
			QAs     []struct {
				Question string `json:"question"`
			} `json:"qas"`
		} `json:"paragraphs"`
	} `json:"data"`
}

type retrievalScores struct{ hit1, hit5, hit20, mrr10 float64 }

// xquadRetrieval ranks XQuAD paragraphs (the chunks) for every question
// with testIndex over the analyzer's terms.
func xquadRetrieval(tb testing.TB, path string, a Analyzer) retrievalScores {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var f xquadFile
	if err := json.Unmarshal(raw, &f); err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	var texts, questions []string
	var gold []int
	for _, art := range f.Data {
		for _, p := range art.Paragraphs {
			for _, qa := range p.QAs {
				questions = append(questions, qa.Question)
				gold = append(gold, len(texts))
			}
			texts = append(texts, p.Context)
		}
	}
	ix := newTestIndex(a, texts)
	var s retrievalScores
	for i, q := range questions {
		rank := len(texts) + 1
		for r, d := range ix.rank(q) {
			if d == gold[i] {
				rank = r + 1
				break
			}
		}
		if rank == 1 {
			s.hit1++
		}
		if rank <= 5 {
			s.hit5++
		}
		if rank <= 20 {
			s.hit20++
		}
		if rank <= 10 {
			s.mrr10 += 1 / float64(rank)
		}
	}
	nq := float64(len(questions))
	return retrievalScores{100 * s.hit1 / nq, 100 * s.hit5 / nq, 100 * s.hit20 / nq, s.mrr10 / nq}
}

// TestXQuADRetrieval measures the analyzers as paragraph retrieval on
// XQuAD (the README's Lucene 8.8 figures are the reference: en english
// hit@1 92.86, standard 92.02; de german 89.33, standard 85.29). It asserts
// that the language analyzer beats the standard one in its language.
func TestXQuADRetrieval(t *testing.T) {
	for _, c := range []struct{ lang, analyzer string }{
		{"en", English}, {"de", German},
	} {
		path := sharedData(t, "xquad/xquad."+c.lang+".json")
		lang := xquadRetrieval(t, path, mustNew(t, c.analyzer))
		std := xquadRetrieval(t, path, mustNew(t, Standard))
		t.Logf("xquad.%s %-8s hit@1 %.2f hit@5 %.2f hit@20 %.2f MRR@10 %.4f", c.lang, c.analyzer, lang.hit1, lang.hit5, lang.hit20, lang.mrr10)
		t.Logf("xquad.%s %-8s hit@1 %.2f hit@5 %.2f hit@20 %.2f MRR@10 %.4f", c.lang, Standard, std.hit1, std.hit5, std.hit20, std.mrr10)
		if lang.mrr10 <= std.mrr10 {
			t.Errorf("xquad.%s: %s MRR@10 %.4f does not beat standard %.4f", c.lang, c.analyzer, lang.mrr10, std.mrr10)
		}
	}
}
