package wiring

import (
	"github.com/situate/situate"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/questions"
)

// ProjectGeneration estimates, offline and as "situate cost" does, the
// generation (the sampled chunks, prompted on their whole documents, with
// answers of about 60 tokens) and contextualizing the whole corpus.
func ProjectGeneration(s Settings, dcs []llm.DocChunks, srcs []questions.Source, opts questions.Options) (gen, all llm.CostEstimate, err error) {
	o, err := LLMOptions(s)
	if err != nil {
		return gen, all, err
	}
	picks, _ := questions.Sample(srcs, opts.N, opts.Seed, questions.DefaultMinChunkTerms)
	byDoc := map[int][]situate.Chunk{}
	var order []int
	for _, p := range picks {
		if _, ok := byDoc[p.Source]; !ok {
			order = append(order, p.Source)
		}
		byDoc[p.Source] = append(byDoc[p.Source], srcs[p.Source].Chunks[p.Chunk])
	}
	var sampled []llm.DocChunks
	for _, i := range order {
		sampled = append(sampled, llm.DocChunks{Doc: dcs[i].Doc, Chunks: byDoc[i]})
	}
	gen = llm.Estimate(sampled, s.Value("llm"), nil, llm.EstimateOptions{Options: o, OutputTokens: 60})
	all = llm.Estimate(dcs, s.Value("llm"), nil, llm.EstimateOptions{Options: o})
	for _, e := range []error{gen.Err, all.Err} {
		if e != nil {
			return gen, all, e
		}
	}
	return gen, all, nil
}

// PriceNote says when an estimate knows no price for its model.
func PriceNote(e llm.CostEstimate) string {
	if !e.PriceKnown {
		return " (no price known for the model)"
	}
	return ""
}
