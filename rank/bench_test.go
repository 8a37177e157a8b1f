package rank_test

import (
	"testing"

	"github.com/situate/situate/analysis"
	"github.com/situate/situate/rank"
)

// BenchmarkRecipeQuery measures one codebase query (737 chunks with Claude
// contexts, real bm25 indexes built once) through recipe v1 and v2: every
// arm's search, Combine, DocumentEvidence and DocumentBlend; v2 adds the
// pair arm's query analysis and search.
func BenchmarkRecipeQuery(b *testing.B) {
	ds := loadCodebase(b)
	cache := indexes{}
	var chunks []chunkText
	for _, d := range ds.Docs {
		for _, c := range d.Chunks {
			chunks = append(chunks, chunkText{doc: d.ID, index: c.Index, lang: "en", text: c.Text + "\n\n" + c.Context})
		}
	}
	for _, p := range []pipeline{recipeV1, recipe} {
		s := newSearcher(b, p, chunks, cache)
		name := "v1"
		if p.name == recipe.name {
			name = "v2"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				s.search(b, ds.Queries[i%len(ds.Queries)].Text, "en", 20)
				i++
			}
		})
	}
}

// BenchmarkPairText measures the pair arm's extra indexing work per chunk:
// english analysis of a contextualized codebase chunk and PairText.
func BenchmarkPairText(b *testing.B) {
	ds := loadCodebase(b)
	var texts []string
	for _, d := range ds.Docs {
		for _, c := range d.Chunks {
			texts = append(texts, c.Text+"\n\n"+c.Context)
		}
	}
	en := analysis.ForLanguage("en")
	i := 0
	for b.Loop() {
		toks := en.Analyze(texts[i%len(texts)])
		terms := make([]string, len(toks))
		for j, t := range toks {
			terms[j] = t.Term
		}
		_ = rank.PairText(terms)
		i++
	}
}
