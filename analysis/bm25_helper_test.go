package analysis

import (
	"math"
	"sort"
)

// testIndex is a plain in-memory BM25 (k1=1.2, b=0.75, Lucene's idf, one
// clause per unique query term weighted by its count, ties by document
// order, no norm quantization) used to measure analyzers on real data. The
// engine's scorer lives in bm25/; this only compares analyzers.
type testIndex struct {
	a    Analyzer
	docs []map[string]int
	lens []float64
	df   map[string]int
	avg  float64
}

func newTestIndex(a Analyzer, texts []string) *testIndex {
	ix := &testIndex{a: a, df: map[string]int{}}
	total := 0.0
	for _, text := range texts {
		tf := map[string]int{}
		toks := a.Analyze(text)
		for _, t := range toks {
			tf[t.Term]++
		}
		for t := range tf {
			ix.df[t]++
		}
		ix.docs = append(ix.docs, tf)
		ix.lens = append(ix.lens, float64(len(toks)))
		total += float64(len(toks))
	}
	ix.avg = total / float64(len(texts))
	return ix
}

// rank returns the document indexes by descending score.
func (ix *testIndex) rank(query string) []int {
	const k1, b = 1.2, 0.75
	n := float64(len(ix.docs))
	qtf := map[string]int{}
	for _, t := range ix.a.Analyze(query) {
		qtf[t.Term]++
	}
	scores := make([]float64, len(ix.docs))
	for term, boost := range qtf {
		dft := float64(ix.df[term])
		if dft == 0 {
			continue
		}
		idf := math.Log(1 + (n-dft+0.5)/(dft+0.5))
		for d, tf := range ix.docs {
			if c := float64(tf[term]); c > 0 {
				scores[d] += float64(boost) * idf * c / (c + k1*(1-b+b*ix.lens[d]/ix.avg))
			}
		}
	}
	order := make([]int, len(ix.docs))
	for d := range order {
		order[d] = d
	}
	sort.SliceStable(order, func(i, j int) bool { return scores[order[i]] > scores[order[j]] })
	return order
}
