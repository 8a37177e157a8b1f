package llm

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Defaults for EstimateOptions.
const (
	// DefaultEstimateOutputTokens is the expected length of one answer
	// (contexts are 50-100 tokens).
	DefaultEstimateOutputTokens = 100
	// DefaultEstimateLatency is the expected wall time of one call.
	DefaultEstimateLatency = 2 * time.Second
)

// EstimateOptions configure Estimate. Options gives the prompt (Language,
// TemplateFile, Glossary), the window (ContextWindow, MaxTokens), the token
// margin (EstimateMargin: estimates are conservative by that much),
// Concurrency and CacheTTL.
type EstimateOptions struct {
	Options
	// OutputTokens is the expected answer length; 0 means the default.
	OutputTokens int
	// Latency is the expected time of one call; 0 means the default.
	Latency time.Duration
	// RequestsPerMinute and InputTokensPerMinute are the provider's rate
	// limits (0 = those of Options, which these shadow; 0 there too =
	// none). Cache reads do not count against the input-token limit, as
	// with Anthropic's current models.
	RequestsPerMinute    int
	InputTokensPerMinute int
}

// CostEstimate is what contextualizing a corpus would take, with token
// counts estimated offline (o200k + EstimateMargin).
type CostEstimate struct {
	Model  string
	Docs   int
	Chunks int
	// Calls is the number of model calls: one per chunk, less TooLarge.
	Calls int
	// TooLarge counts chunks that do not fit the window even alone (they
	// get the fallback context).
	TooLarge int
	// Excerpted counts calls whose prompt holds a document excerpt.
	Excerpted int
	// PromptTokens is the total input as if nothing were cached; with
	// prompt caching it splits into InputTokens (billed as plain input),
	// CacheWriteTokens and CacheReadTokens. A prefix shorter than the
	// model's minimum cacheable length is plain input every time.
	PromptTokens     int
	InputTokens      int
	CacheWriteTokens int
	CacheReadTokens  int
	OutputTokens     int
	// PriceKnown says whether the model was in the price table; costs are
	// 0 otherwise.
	PriceKnown bool
	Price      Price
	// CostUSD is with prompt caching, CostNoCacheUSD without, and
	// CostBatchUSD through the batch API without relying on caching (batch
	// requests are cache hits only on a best-effort basis).
	CostUSD        float64
	CostNoCacheUSD float64
	CostBatchUSD   float64
	// Duration is the expected wall time at Concurrency, Latency and the
	// rate limits.
	Duration time.Duration
	// Err is set when the estimate could not be made (an unreadable
	// TemplateFile); the other fields are then zero.
	Err error
}

// Estimate projects calls, tokens, cost and time of contextualizing docs
// with model ("provider:model" or "model") — the basis of `situate cost`.
// prices nil uses opts.Prices, and DefaultPrices when that is nil too.
// It calls nothing: the prompts are rendered and counted offline, split
// into prefix groups exactly as a run would (windowing included).
func Estimate(docs []DocChunks, model string, prices PriceTable, opts EstimateOptions) CostEstimate {
	if prices == nil {
		prices = opts.Options.Prices
	}
	if prices == nil {
		prices = DefaultPrices()
	}
	o := opts.Options
	rpm, itpm := opts.RequestsPerMinute, opts.InputTokensPerMinute
	if rpm <= 0 {
		rpm = o.RequestsPerMinute
	}
	if itpm <= 0 {
		itpm = o.InputTokensPerMinute
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.CacheTTL == "" {
		o.CacheTTL = DefaultCacheTTL
	}
	outTok := opts.OutputTokens
	if outTok <= 0 {
		outTok = DefaultEstimateOutputTokens
	}
	lat := opts.Latency
	if lat <= 0 {
		lat = DefaultEstimateLatency
	}
	c := &Contextualizer{name: model, opts: o}
	e := CostEstimate{Model: model, Docs: len(docs)}
	if o.TemplateFile != "" {
		t, err := LoadTemplate(o.TemplateFile)
		if err != nil {
			e.Err = fmt.Errorf("llm: estimate: TemplateFile: %w", err)
			return e
		}
		c.custom = &t
	}
	e.Price, e.PriceKnown = prices.Lookup(model)
	minCache := e.Price.MinCacheTokens
	for _, d := range docs {
		e.Chunks += len(d.Chunks)
		tmpl, lang, _ := c.templateFor(d.Doc)
		gl := ""
		if o.Glossary != nil {
			gl = renderGlossary(lang, o.Glossary(d.Doc))
		}
		p := makePlan(planInput{doc: d.Doc, chunks: d.Chunks, tmpl: tmpl, lang: lang, glossary: gl,
			window: o.ContextWindow, maxTokens: o.MaxTokens, factor: 1 + o.EstimateMargin})
		e.TooLarge += len(p.tooLarge)
		for _, g := range p.groups {
			excerpt := !strings.HasPrefix(g.desc, "full")
			for k, i := range g.chunks {
				e.Calls++
				if excerpt {
					e.Excerpted++
				}
				s := p.suffixTokens[i]
				e.PromptTokens += g.prefixTokens + s
				e.InputTokens += s
				e.OutputTokens += outTok
				switch {
				case g.prefixTokens < minCache || !e.PriceKnown:
					e.InputTokens += g.prefixTokens
				case k == 0:
					e.CacheWriteTokens += g.prefixTokens
				default:
					e.CacheReadTokens += g.prefixTokens
				}
			}
		}
	}
	if e.PriceKnown {
		w := e.Price.CacheWrite5m
		if o.CacheTTL == "1h" {
			w = e.Price.CacheWrite1h
		}
		out := float64(e.OutputTokens) * e.Price.Output
		e.CostUSD = (float64(e.InputTokens)*e.Price.Input + float64(e.CacheWriteTokens)*w +
			float64(e.CacheReadTokens)*e.Price.CacheRead + out) / 1e6
		e.CostNoCacheUSD = (float64(e.PromptTokens)*e.Price.Input + out) / 1e6
		e.CostBatchUSD = e.CostNoCacheUSD * (1 - e.Price.BatchDiscount)
	}
	waves := math.Ceil(float64(e.Calls) / float64(o.Concurrency))
	d := time.Duration(waves * float64(lat))
	if rpm > 0 {
		d = max(d, time.Duration(float64(e.Calls)/float64(rpm)*float64(time.Minute)))
	}
	if itpm > 0 {
		in := e.InputTokens + e.CacheWriteTokens
		d = max(d, time.Duration(float64(in)/float64(itpm)*float64(time.Minute)))
	}
	e.Duration = d
	return e
}
