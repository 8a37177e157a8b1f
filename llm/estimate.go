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
	// Local, if set, describes a local inference server (llama.cpp, vLLM):
	// no price and no minimum cacheable length; the server keeps each
	// document's prefix, so the first call of a prefix group computes it
	// (CacheWriteTokens: tokens computed once) and the others read it; and
	// time comes from the server's measured speed instead of Latency.
	Local *LocalServer
	// CountTokens, if set, counts prompts exactly (a local server's
	// tokenizer: llama.cpp or vLLM /tokenize): every prefix and suffix is
	// counted instead of estimated. An error stops the estimate.
	CountTokens func(text string) (int, error)
}

// LocalServer is what Estimate needs to know of a local inference server.
type LocalServer struct {
	// Slots is how many requests the server runs at once (llama.cpp
	// total_slots); the concurrency is capped by it. 0 = unknown.
	Slots int
	// PrefillPerSecond is the prompt tokens the server computes per
	// second; DecodePerSecond the tokens one request generates per second;
	// Overhead the time of a call beyond both (HTTP, sampling setup). All
	// measured on one call; 0 = unknown (time then uses Latency).
	PrefillPerSecond, DecodePerSecond float64
	Overhead                          time.Duration
	// Parallel is how many requests' generation the server really runs
	// side by side (measured: Slots calls at once against one alone); 0 =
	// unknown, taken as the calls in flight. On a CPU or under load it is
	// well below the slots: sampling is serial and the cores are shared.
	Parallel float64
	// Fixed is the time a run spends beside its calls: asking the server
	// for its model and slots, reading and chunking the documents and
	// writing the store (cost measures its own reading and chunking).
	Fixed time.Duration
}

// CostEstimate is what contextualizing a corpus would take, with token
// counts estimated offline (o200k + EstimateMargin).
type CostEstimate struct {
	Model  string
	Docs   int
	Chunks int
	// Calls is the number of model calls: one per chunk, less TooLarge and
	// the chunks of WholeDocuments.
	Calls int
	// WholeDocuments counts the documents that are one chunk: they get no
	// call (see Options.CallWholeDocuments) but the offline context.
	// SavedCalls, SavedCostUSD and SavedDuration are what calling for them
	// would have taken (costs with prompt caching, as CostUSD).
	WholeDocuments int
	SavedCalls     int
	SavedCostUSD   float64
	SavedDuration  time.Duration
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
	// Duration is the expected wall time at Concurrency, Latency (or the
	// local server's speed) and the rate limits.
	Duration time.Duration
	// Concurrency is the calls in flight the estimate assumes (a local
	// server's slots cap it).
	Concurrency int
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
	// saved collects, as an estimate of its own, the calls that documents
	// of one chunk do not make.
	saved := e
	for _, d := range docs {
		e.Chunks += len(d.Chunks)
		at := &e
		if !o.CallWholeDocuments && wholeDocument(d) {
			e.WholeDocuments++
			at = &saved
		}
		if err := estimateDoc(at, c, d, o, opts, outTok); err != nil {
			e.Err = err
			return e
		}
	}
	e.finish(o, opts, lat, rpm, itpm)
	if e.WholeDocuments > 0 {
		// What calling for them too would take, less what the run takes.
		both := e
		both.Calls += saved.Calls
		both.Excerpted += saved.Excerpted
		both.PromptTokens += saved.PromptTokens
		both.InputTokens += saved.InputTokens
		both.CacheWriteTokens += saved.CacheWriteTokens
		both.CacheReadTokens += saved.CacheReadTokens
		both.OutputTokens += saved.OutputTokens
		both.finish(o, opts, lat, rpm, itpm)
		e.SavedCalls = saved.Calls
		e.SavedCostUSD = max(0, both.CostUSD-e.CostUSD)
		e.SavedDuration = max(0, both.Duration-e.Duration)
	}
	return e
}

// estimateDoc adds the calls and tokens of one document to e.
func estimateDoc(e *CostEstimate, c *Contextualizer, d DocChunks, o Options, opts EstimateOptions, outTok int) error {
	minCache := e.Price.MinCacheTokens
	tmpl, lang, _ := c.templateFor(d.Doc)
	gl := ""
	if o.Glossary != nil {
		gl = renderGlossary(lang, o.Glossary(d.Doc))
	}
	p := makePlan(planInput{doc: d.Doc, chunks: d.Chunks, tmpl: tmpl, lang: lang, glossary: gl,
		window: o.ContextWindow, maxTokens: o.MaxTokens, factor: 1 + o.EstimateMargin})
	e.TooLarge += len(p.tooLarge)
	// A local server keeps a slot's last prompt: the next chunk of the
	// document also reads the instruction before the chunk from it.
	lead := 0
	if opts.Local != nil {
		lead = scaled(rawTokens(tmpl.suffixA), 1+o.EstimateMargin)
	}
	if opts.CountTokens != nil {
		if err := countExactly(&p, tmpl, d, opts.CountTokens); err != nil {
			return fmt.Errorf("llm: estimate: count tokens of %s: %w", d.Doc.ID, err)
		}
		if opts.Local != nil {
			n, err := opts.CountTokens(tmpl.suffixA)
			if err != nil {
				return fmt.Errorf("llm: estimate: count tokens of the template: %w", err)
			}
			lead = n
		}
	}
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
			case opts.Local != nil && k == 0:
				e.CacheWriteTokens += g.prefixTokens
			case opts.Local != nil:
				a := min(lead, s)
				e.CacheReadTokens += g.prefixTokens + a
				e.InputTokens -= a
			case g.prefixTokens < minCache || !e.PriceKnown:
				e.InputTokens += g.prefixTokens
			case k == 0:
				e.CacheWriteTokens += g.prefixTokens
			default:
				e.CacheReadTokens += g.prefixTokens
			}
		}
	}
	return nil
}

// finish computes the costs and the duration of e from its calls and
// tokens.
func (e *CostEstimate) finish(o Options, opts EstimateOptions, lat time.Duration, rpm, itpm int) {
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
	conc := o.Concurrency
	if l := opts.Local; l != nil && l.Slots > 0 {
		conc = min(conc, l.Slots)
	}
	waves := math.Ceil(float64(e.Calls) / float64(conc))
	d := time.Duration(waves * float64(lat))
	if l := opts.Local; l != nil && l.PrefillPerSecond > 0 && l.DecodePerSecond > 0 {
		// Prompt computation is compute-bound: slots share it. Decoding
		// one token per request per step is bound by memory bandwidth:
		// slots decode side by side.
		par := float64(conc)
		if l.Parallel > 0 {
			par = min(par, max(1, l.Parallel))
		}
		prefill := float64(e.InputTokens+e.CacheWriteTokens) / l.PrefillPerSecond
		decode := float64(e.OutputTokens) / l.DecodePerSecond / par
		overhead := l.Overhead.Seconds() * float64(e.Calls) / par
		d = l.Fixed + time.Duration((prefill+decode+overhead)*float64(time.Second))
	}
	e.Concurrency = conc
	if rpm > 0 {
		d = max(d, time.Duration(float64(e.Calls)/float64(rpm)*float64(time.Minute)))
	}
	if itpm > 0 {
		in := e.InputTokens + e.CacheWriteTokens
		d = max(d, time.Duration(float64(in)/float64(itpm)*float64(time.Minute)))
	}
	e.Duration = d
}

// countExactly replaces a plan's estimated prefix and suffix sizes by exact
// counts.
func countExactly(p *plan, tmpl Template, d DocChunks, count func(string) (int, error)) error {
	for gi := range p.groups {
		n, err := count(p.groups[gi].prefix)
		if err != nil {
			return err
		}
		p.groups[gi].prefixTokens = n
	}
	for i := range p.suffixTokens {
		if i >= len(d.Chunks) {
			break
		}
		n, err := count(tmpl.Suffix(d.Chunks[i].Text))
		if err != nil {
			return err
		}
		p.suffixTokens[i] = n
	}
	return nil
}
