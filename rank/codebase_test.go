package rank_test

import (
	"fmt"
	"testing"

	"github.com/situate/situate/analysis"
	"github.com/situate/situate/bm25"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/fusion"
	"github.com/situate/situate/rank"

	"github.com/situate/situate/internal/shareddata"
)

// splitSeed is the eval.Split seed of the tune/report halves in EVAL.md.
const splitSeed = "situate"

// sharedData returns ../shared/data/<rel>, or skips the test when absent.
func sharedData(tb testing.TB, rel string) string {
	tb.Helper()
	return shareddata.Path(tb, rel)
}

// arm is one bm25 index of a pipeline.
type arm struct {
	analyzer string // "" = the document's language
	weight   float64
	k1, b    float64
	// pairs makes a word-pair arm: the text and the query are analysed by
	// analyzer, turned into rank.PairText and indexed with the "standard"
	// analyzer.
	pairs bool
	// evidence uses this arm's list as document evidence
	// (fusion.DocumentEvidence with weight) instead of summing it in Combine.
	evidence bool
}

// pairText analyses text with the named analyzer ("" = lang's) and returns
// its word-pair text.
func pairText(analyzer, lang, text string) string {
	a := analysis.ForLanguage(lang)
	if analyzer != "" {
		var err error
		if a, err = analysis.New(analyzer); err != nil {
			panic(err)
		}
	}
	toks := a.Analyze(text)
	terms := make([]string, len(toks))
	for i, t := range toks {
		terms[i] = t.Term
	}
	return rank.PairText(terms)
}

// pipeline is one configuration of the lexical search.
type pipeline struct {
	name      string
	arms      []arm
	docWeight float64 // DocumentBlend weight; 0 = no blend
}

// chunkText is one indexed chunk.
type chunkText struct {
	doc   string
	index int
	lang  string
	text  string // what is indexed
}

func chunkID(doc string, i int) string { return fmt.Sprintf("%s#%d", doc, i) }

// searcher runs a pipeline over a set of chunks with real bm25 indexes.
type searcher struct {
	p   pipeline
	ixs []*bm25.Index
	ref map[string]eval.Ranked
}

// indexes caches the bm25 index of each (analyzer, k1, b) over one chunk
// set, so pipelines sharing an arm build it once.
type indexes map[string]*bm25.Index

func newSearcher(tb testing.TB, p pipeline, chunks []chunkText, cache indexes) *searcher {
	tb.Helper()
	s := &searcher{p: p, ref: map[string]eval.Ranked{}}
	for _, c := range chunks {
		s.ref[chunkID(c.doc, c.index)] = eval.Ranked{DocID: c.doc, Chunk: c.index}
	}
	for _, a := range p.arms {
		key := fmt.Sprintf("%s/%g/%g/%v", a.analyzer, a.k1, a.b, a.pairs)
		if ix, ok := cache[key]; ok {
			s.ixs = append(s.ixs, ix)
			continue
		}
		opts := bm25.Options{K1: a.k1, B: a.b, Analyzer: a.analyzer}
		if a.pairs {
			opts.Analyzer = rank.DefaultPairAnalyzer
		}
		ix, err := bm25.New(opts)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { ix.Close() })
		var batch bm25.Batch
		groups := map[string][]bm25.Doc{}
		var order []string
		for _, c := range chunks {
			if _, ok := groups[c.doc]; !ok {
				order = append(order, c.doc)
			}
			text := c.text
			if a.pairs {
				text = pairText(a.analyzer, c.lang, c.text)
			}
			groups[c.doc] = append(groups[c.doc], bm25.Doc{ID: chunkID(c.doc, c.index), Lang: c.lang, Fields: map[string]string{bm25.DefaultField: text}})
		}
		for _, g := range order {
			batch.Replace(g, groups[g])
		}
		if err := ix.Apply(&batch); err != nil {
			tb.Fatal(err)
		}
		cache[key] = ix
		s.ixs = append(s.ixs, ix)
	}
	return s
}

// combine sums the lists of the arms that are not evidence, then adds the
// evidence arms' document evidence.
func combine(arms []arm, lists [][]fusion.Hit) ([]fusion.Hit, error) {
	var sum [][]fusion.Hit
	var weights []float64
	for i, a := range arms {
		if !a.evidence {
			sum = append(sum, lists[i])
			weights = append(weights, a.weight)
		}
	}
	hits, err := fusion.Combine(sum, weights)
	if err != nil {
		return nil, err
	}
	for i, a := range arms {
		if a.evidence {
			if hits, err = fusion.DocumentEvidence(hits, lists[i], a.weight); err != nil {
				return nil, err
			}
		}
	}
	return hits, nil
}

// search returns the top k of the pipeline for one query of language lang
// (which chooses the analyzer of pair arms analysing by language).
func (s *searcher) search(tb testing.TB, query, lang string, k int) []eval.Ranked {
	tb.Helper()
	var lists [][]fusion.Hit
	for i, ix := range s.ixs {
		text := query
		if a := s.p.arms[i]; a.pairs {
			text = pairText(a.analyzer, lang, query)
		}
		res, err := ix.Search(bm25.Query{Text: text, K: rank.DefaultCandidates})
		if err != nil {
			tb.Fatal(err)
		}
		hits := make([]fusion.Hit, len(res))
		for i, r := range res {
			hits[i] = fusion.Hit{ID: r.ID, Doc: r.Group, Score: r.Score}
		}
		lists = append(lists, hits)
	}
	hits, err := combine(s.p.arms, lists)
	if err != nil {
		tb.Fatal(err)
	}
	if s.p.docWeight > 0 {
		if hits, err = fusion.DocumentBlend(hits, s.p.docWeight); err != nil {
			tb.Fatal(err)
		}
	}
	var out []eval.Ranked
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, s.ref[h.ID])
	}
	return out
}

const (
	luceneK1 = 1.2
	luceneB  = 0.75
)

// Pipelines measured in EVAL.md. "english" is the language arm; on other
// languages it is replaced by the document's own analyzer.
var (
	lucene    = pipeline{name: "english, one field (Lucene BM25 k1=1.2 b=0.75)", arms: []arm{{analyzer: "english", weight: 1, k1: luceneK1, b: luceneB}}}
	pipelines = []pipeline{
		lucene,
		{name: "english, k1=1.6 b=0.3", arms: []arm{{analyzer: "english", weight: 1, k1: 1.6, b: 0.3}}},
		{name: "english, document blend 0.7", arms: []arm{{analyzer: "english", weight: 1, k1: luceneK1, b: luceneB}}, docWeight: 0.7},
		{name: "code analyzer alone", arms: []arm{{analyzer: "code", weight: 1, k1: luceneK1, b: luceneB}}},
		{name: "english + code arms", arms: []arm{{analyzer: "english", weight: 1, k1: luceneK1, b: luceneB}, {analyzer: "code", weight: 1, k1: luceneK1, b: luceneB}}},
		{name: "english + code arms, document blend 0.7", arms: []arm{{analyzer: "english", weight: 1, k1: luceneK1, b: luceneB}, {analyzer: "code", weight: 1, k1: luceneK1, b: luceneB}}, docWeight: 0.7},
		{name: "english + code arms, both k1=1.6 b=0.3", arms: []arm{{analyzer: "english", weight: 1, k1: 1.6, b: 0.3}, {analyzer: "code", weight: 1, k1: 1.6, b: 0.3}}},
		{name: "english + code arms, both k1=1.6 b=0.3, blend 0.7", arms: []arm{{analyzer: "english", weight: 1, k1: 1.6, b: 0.3}, {analyzer: "code", weight: 1, k1: 1.6, b: 0.3}}, docWeight: 0.7},
		recipeV1,
		{name: "v1 + word pairs 0.7 (k1=1.6 b=0.3), chunk level", arms: append(append([]arm(nil), recipeV1.arms...),
			arm{analyzer: "english", weight: rank.DefaultPairWeight, k1: rank.DefaultPairK1, b: rank.DefaultPairB, pairs: true}),
			docWeight: rank.DefaultDocumentWeight},
		{name: "v1 + word pairs 0.5 (k1=1.2 b=0.75), chunk level", arms: append(append([]arm(nil), recipeV1.arms...),
			arm{analyzer: "english", weight: 0.5, k1: luceneK1, b: luceneB, pairs: true}),
			docWeight: rank.DefaultDocumentWeight},
		recipe,
	}
	// recipeV1 is the first recipe (EVAL.md): language and code arms
	// summed, document blend 0.7.
	recipeV1 = pipeline{name: "recipe v1: english (k1=1.2 b=0.75) + code (k1=1.6 b=0.3), blend 0.7",
		arms: []arm{
			{analyzer: "english", weight: 1, k1: bm25.DefaultK1, b: bm25.DefaultB},
			{analyzer: "code", weight: rank.DefaultCodeWeight, k1: rank.DefaultCodeK1, b: rank.DefaultCodeB},
		},
		docWeight: rank.DefaultDocumentWeight}
	// recipe is v1 with a word-pair arm as document evidence.
	recipe = pipeline{name: "recipe v2: v1 + word pairs (k1=1.6 b=0.3) as document evidence 0.7",
		arms: []arm{
			{analyzer: "english", weight: 1, k1: bm25.DefaultK1, b: bm25.DefaultB},
			{analyzer: "code", weight: rank.DefaultCodeWeight, k1: rank.DefaultCodeK1, b: rank.DefaultCodeB},
			{analyzer: "english", weight: rank.DefaultPairWeight, k1: rank.DefaultPairK1, b: rank.DefaultPairB, pairs: true, evidence: true},
		},
		docWeight: rank.DefaultDocumentWeight}
)

// forLanguage returns p with its "english" arms analysing each document by
// its own language instead.
func forLanguage(p pipeline) pipeline {
	p.arms = append([]arm(nil), p.arms...)
	for i := range p.arms {
		if p.arms[i].analyzer == "english" {
			p.arms[i].analyzer = ""
		}
	}
	return p
}

func loadCodebase(tb testing.TB) *eval.Dataset {
	tb.Helper()
	ds, err := eval.LoadAnthropic(sharedData(tb, "codebase/codebase_chunks.json"), sharedData(tb, "codebase/evaluation_set.jsonl"), sharedData(tb, "codebase/contexts_claude3haiku.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}

func passAt(ds *eval.Dataset, run eval.Run, qs []eval.Query) [3]float64 {
	res, _ := eval.Evaluate(ds.WithQueries(qs), run)
	return [3]float64{res.Metrics[eval.KeyPass5], res.Metrics[eval.KeyPass10], res.Metrics[eval.KeyPass20]}
}

// codebaseRun indexes the codebase set's chunks with their Claude 3 Haiku
// contexts as Anthropic's reference does ("chunk\n\ncontext") and runs every
// query through p.
func codebaseRun(tb testing.TB, ds *eval.Dataset, p pipeline, cache indexes) eval.Run {
	var chunks []chunkText
	for _, d := range ds.Docs {
		for _, c := range d.Chunks {
			chunks = append(chunks, chunkText{doc: d.ID, index: c.Index, lang: "en", text: c.Text + "\n\n" + c.Context})
		}
	}
	s := newSearcher(tb, p, chunks, cache)
	run := eval.Run{}
	for _, q := range ds.Queries {
		run[q.ID] = s.search(tb, q.Text, "en", 20)
	}
	return run
}

// TestCodebaseRecipe reproduces EVAL.md's codebase figures with the real
// bm25 index: every lever alone and the recipe, on the tune half, the report
// half and all 248 queries. It fails if the recipe does not beat Lucene's
// contextual BM25 at every k, or misses the targets it reached when it was
// chosen (Pass@20 >= 95.0 on all queries); targets it misses are logged.
func TestCodebaseRecipe(t *testing.T) {
	ds := loadCodebase(t)
	if len(ds.Queries) != 248 || ds.NumChunks() != 737 {
		t.Fatalf("%d queries, %d chunks; want 248, 737", len(ds.Queries), ds.NumChunks())
	}
	tune, report := eval.Split(ds.Queries, splitSeed)
	results := map[string][3]float64{}
	t.Logf("%-66s | %-20s | %-20s | %-20s", "configuration (Pass@5 @10 @20)", "tune (124)", "report (124)", "all (248)")
	cache := indexes{}
	for _, p := range pipelines {
		run := codebaseRun(t, ds, p, cache)
		tr, rp, all := passAt(ds, run, tune), passAt(ds, run, report), passAt(ds, run, ds.Queries)
		results[p.name] = all
		t.Logf("%-66s | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f", p.name, tr[0], tr[1], tr[2], rp[0], rp[1], rp[2], all[0], all[1], all[2])
	}
	base, got := results[lucene.name], results[recipe.name]
	for i, k := range []int{5, 10, 20} {
		if got[i] <= base[i] {
			t.Errorf("recipe Pass@%d = %.2f, not above Lucene contextual BM25 %.2f", k, got[i], base[i])
		}
	}
	// The targets the recipe reached when it was chosen on the tune half.
	for i, target := range []float64{86.5, 0, 95.0} {
		if got[i] < target {
			t.Errorf("recipe Pass@%d = %.2f, below the %.1f target", []int{5, 10, 20}[i], got[i], target)
		}
	}
	if v1 := results[recipeV1.name]; got[0] < v1[0] || got[1] < v1[1] || got[2] < v1[2] {
		t.Errorf("recipe v2 %.2f/%.2f/%.2f below v1 %.2f/%.2f/%.2f", got[0], got[1], got[2], v1[0], v1[1], v1[2])
	}
	for i, target := range []float64{86.5, 93.3, 95.0} {
		if got[i] < target {
			t.Logf("recipe Pass@%d = %.2f: the %.1f target is NOT reached", []int{5, 10, 20}[i], got[i], target)
		}
	}
}

// TestXQuADRecipe checks that the recipe does not hurt prose: XQuAD
// paragraph retrieval in English and German with each language's analyzer,
// raw paragraphs (no context), against Lucene's figures in the data README.
func TestXQuADRecipe(t *testing.T) {
	for _, tc := range []struct {
		lang, analyzer string
		hit1, mrr      float64 // Lucene 8.8, language analyzer, raw
	}{
		{"en", "english", 92.86, 0.9546},
		{"de", "german", 89.33, 0.9275},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			ds, err := eval.LoadSQuAD(sharedData(t, "xquad/xquad."+tc.lang+".json"), tc.lang)
			if err != nil {
				t.Fatal(err)
			}
			var chunks []chunkText
			for _, d := range ds.Docs {
				for _, c := range d.Chunks {
					chunks = append(chunks, chunkText{doc: d.ID, index: c.Index, lang: tc.lang, text: c.Text})
				}
			}
			// "" analyzes each chunk by its language, as the engine does.
			got := map[string][2]float64{}
			cache := indexes{}
			for _, p := range pipelines {
				p = forLanguage(p)
				s := newSearcher(t, p, chunks, cache)
				run := eval.Run{}
				for _, q := range ds.Queries {
					run[q.ID] = s.search(t, q.Text, tc.lang, 20)
				}
				res, _ := eval.Evaluate(ds, run)
				m := res.Metrics
				got[p.name] = [2]float64{100 * m[eval.KeyHit1], m[eval.KeyMRR10]}
				t.Logf("%-66s hit@1 %.2f hit@5 %.2f hit@20 %.2f MRR@10 %.4f", p.name, 100*m[eval.KeyHit1], 100*m[eval.KeyHit5], 100*m[eval.KeyHit20], m[eval.KeyMRR10])
			}
			r := got[recipe.name]
			if r[0] < tc.hit1-0.005 || r[1] < tc.mrr-0.00005 {
				t.Errorf("recipe hit@1 %.2f MRR@10 %.4f, below Lucene's %s %.2f / %.4f", r[0], r[1], tc.analyzer, tc.hit1, tc.mrr)
			}
		})
	}
}
