package rank_test

import (
	"testing"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/fusion"
	"github.com/situate/situate/rank"
)

// TestCACMRecipe checks the recipe's arms on a document-level English
// collection: CACM MAP and P@30 (top 1000, trec_eval ordering) for Anserini's
// reference (english, k1=0.9 b=0.4: MAP 0.3123), Lucene's defaults and the
// recipe's arms. Every document is its own group, so DocumentBlend would
// only scale scores and is left out (document evidence acts per document). The recipe must not fall below Lucene's
// defaults, which situate used before.
func TestCACMRecipe(t *testing.T) {
	ds, err := eval.LoadTREC(sharedData(t, "cacm/cacm.tar.gz"), sharedData(t, "cacm/topics.cacm.txt"), sharedData(t, "cacm/qrels.cacm.txt"))
	if err != nil {
		t.Fatal(err)
	}
	maps := map[string]float64{}
	for _, p := range []pipeline{
		{name: "anserini: english k1=0.9 b=0.4", arms: []arm{{analyzer: "english", weight: 1, k1: 0.9, b: 0.4}}},
		{name: "lucene defaults: english k1=1.2 b=0.75", arms: []arm{{analyzer: "english", weight: 1, k1: luceneK1, b: luceneB}}},
		{name: "english + code arms, both k1=1.6 b=0.3", arms: []arm{{analyzer: "english", weight: 1, k1: 1.6, b: 0.3}, {analyzer: "code", weight: 1, k1: 1.6, b: 0.3}}},
		{name: recipeV1.name, arms: recipeV1.arms},
		{name: recipe.name, arms: recipe.arms},
	} {
		var ixs []*bm25.Index
		for _, a := range p.arms {
			opts := bm25.Options{K1: a.k1, B: a.b, Analyzer: a.analyzer}
			if a.pairs {
				opts.Analyzer = rank.DefaultPairAnalyzer
			}
			ix, err := bm25.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ix.Close() })
			var b bm25.Batch
			for _, d := range ds.Docs {
				text := d.Text
				if a.pairs {
					text = pairText(a.analyzer, "en", text)
				}
				b.Replace(d.ID, []bm25.Doc{{ID: d.ID, Fields: map[string]string{bm25.DefaultField: text}}})
			}
			if err := ix.Apply(&b); err != nil {
				t.Fatal(err)
			}
			ixs = append(ixs, ix)
		}
		run := eval.Run{}
		for _, q := range ds.Queries {
			var lists [][]fusion.Hit
			for i, ix := range ixs {
				text := q.Text
				if a := p.arms[i]; a.pairs {
					text = pairText(a.analyzer, "en", text)
				}
				res, err := ix.Search(bm25.Query{Text: text, K: 1000})
				if err != nil {
					t.Fatal(err)
				}
				hits := make([]fusion.Hit, len(res))
				for j, r := range res {
					hits[j] = fusion.Hit{ID: r.ID, Doc: r.Group, Score: r.Score}
				}
				lists = append(lists, hits)
			}
			hits, err := combine(p.arms, lists)
			if err != nil {
				t.Fatal(err)
			}
			scored := make([]eval.Scored, len(hits))
			for i, h := range hits {
				scored[i] = eval.Scored{ID: h.ID, Score: h.Score}
			}
			ids := eval.RankTREC(scored)
			var r []eval.Ranked
			for _, id := range ids[:min(1000, len(ids))] {
				r = append(r, eval.Ranked{DocID: id})
			}
			run[q.ID] = r
		}
		res, _ := eval.Evaluate(ds, run)
		maps[p.name] = res.Metrics[eval.KeyMAP]
		t.Logf("%-66s MAP %.4f P@30 %.4f", p.name, res.Metrics[eval.KeyMAP], res.Metrics[eval.KeyP30])
	}
	if got, base := maps[recipe.name], maps["lucene defaults: english k1=1.2 b=0.75"]; got < base {
		t.Errorf("recipe MAP %.4f below Lucene defaults' %.4f", got, base)
	}
}
