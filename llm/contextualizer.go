package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/driver"
)

// Contextualizer writes chunk contexts with a chat model. It is safe for
// concurrent use.
type Contextualizer struct {
	model      driver.LLM
	pool       []driver.LLM
	opts       Options
	configured string // the model's Name() as configured
	custom     *Template
	prices     PriceTable
	price      Price
	hasPrice   bool
	gate       *rateGate // nil: no rate limits
	breaker    *breaker

	idMu     sync.RWMutex
	name     string // configured, or the served model's after Identify
	settings Settings
}

var (
	_ driver.Contextualizer = (*Contextualizer)(nil)
	_ driver.Fingerprinter  = (*Contextualizer)(nil)
)

// DocChunks is one document and its chunks, for Run and Estimate.
type DocChunks struct {
	Doc    driver.Document
	Chunks []driver.Chunk
}

// New returns a Contextualizer on model (and opts.Replicas).
func New(model driver.LLM, opts Options) (*Contextualizer, error) {
	if model == nil {
		return nil, fmt.Errorf("llm: new: model is nil: %w", driver.ErrInvalid)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	c := &Contextualizer{model: model, opts: opts, configured: model.Name(), name: model.Name()}
	c.pool = append([]driver.LLM{model}, opts.Replicas...)
	for i, r := range opts.Replicas {
		if r.Name() != c.name {
			return nil, fmt.Errorf("llm options: Replicas[%d]: name %q differs from the model's %q: %w", i, r.Name(), c.name, driver.ErrInvalid)
		}
	}
	c.breaker = newBreaker(opts.BreakerFailures, opts.BreakerWindow, realClock{})
	if opts.TemplateFile != "" {
		t, err := LoadTemplate(opts.TemplateFile)
		if err != nil {
			return nil, fmt.Errorf("llm options: TemplateFile: %w", err)
		}
		c.custom = &t
	}
	c.prices = opts.Prices
	if c.prices == nil {
		c.prices = DefaultPrices()
	}
	c.price, c.hasPrice = c.prices.Lookup(c.name)
	if opts.MaxCostUSD > 0 && !c.hasPrice {
		return nil, fmt.Errorf("llm options: MaxCostUSD: no price for model %q in the price table: %w", c.name, driver.ErrInvalid)
	}
	c.gate = newRateGate(opts.RequestsPerMinute, opts.InputTokensPerMinute, realClock{})
	c.settings = c.settingsFor(c.name, "")
	return c, nil
}

// Name is the model's name ("provider:model"; after Identify, the model the
// server serves, e.g. "llamacpp:qwen3-8b-q4_k_m.gguf"); it is every
// context's Source.
func (c *Contextualizer) Name() string { return c.modelName() }

// Contextualize writes the context of every chunk of one document: exactly
// len(chunks) contexts, in order. See Run for the scheduling.
func (c *Contextualizer) Contextualize(ctx context.Context, doc driver.Document, chunks []driver.Chunk) ([]driver.Context, error) {
	out := make([]driver.Context, len(chunks))
	done := make([]bool, len(chunks))
	err := c.Run(ctx, []DocChunks{{Doc: doc, Chunks: chunks}}, func(_, i int, x driver.Context) error {
		out[i], done[i] = x, true
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, ok := range done {
		if !ok {
			return nil, fmt.Errorf("llm: contextualize %s: chunk %d got no context", doc.ID, i)
		}
	}
	return out, nil
}

// templateFor picks the template and the languages of a document: the
// template's language, and the language the answer is checked against
// ("" when unknown).
func (c *Contextualizer) templateFor(doc driver.Document) (Template, string, string) {
	lang, want := c.opts.Language, c.opts.Language
	if lang == "" {
		if l := normLang(doc.Lang); knownLang(l) {
			lang, want = l, l
		} else if doc.Lang == "" {
			want = detectLang(doc.Text)
			lang = want
		}
		if lang == "" {
			lang = driver.LangEnglish
		}
	}
	if c.custom != nil {
		return *c.custom, lang, want
	}
	return BuiltinTemplate(lang), lang, want
}

// cacheKey identifies a context: the model and its digest, the output
// budget and context bound, the template and language used for the
// document (so a forced language changes only the keys of documents whose
// prompt it changes), the document, the chunk and the window.
func (c *Contextualizer) cacheKey(tmplHash, lang, docHash, glossary, chunkText, desc string) string {
	h := sha256.New()
	ch := sha256.Sum256([]byte(chunkText))
	st := c.Settings()
	for _, s := range []string{"situate-context-v2", st.Model, st.ModelDigest, fmt.Sprint(st.MaxTokens), fmt.Sprint(st.MaxContextTokens),
		tmplHash, lang, docHash, hex.EncodeToString(ch[:]), desc} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	// The request's extra fields and the document's glossary block, only
	// when set: keys made before they were part of it stay valid.
	for _, f := range [][2]string{{"extra", st.Extra}, {"glossary", glossary}} {
		if f[1] != "" {
			fmt.Fprintf(h, "%s %d:%s\n", f[0], len(f[1]), f[1])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RecordedSettings are the settings the Engine records with the store at
// commit (driver.SettingsRecorder), so a later run can say what changed.
func (c *Contextualizer) RecordedSettings() (json.RawMessage, error) {
	return json.Marshal(c.Settings())
}

// window returns the context window in tokens (0 = unlimited).
func (c *Contextualizer) window(ctx context.Context) (int, error) {
	if c.opts.ContextWindow > 0 {
		return c.opts.ContextWindow, nil
	}
	if w, ok := c.model.(driver.ContextWindower); ok {
		n, err := w.ContextWindow(ctx)
		if err != nil {
			return 0, fmt.Errorf("llm: context window of %s: %w", c.Name(), err)
		}
		if n > 0 && n <= c.opts.MaxTokens {
			return 0, fmt.Errorf("llm: context window of %s is %d tokens, no room for MaxTokens %d: %w", c.Name(), n, c.opts.MaxTokens, driver.ErrInvalid)
		}
		return max(n, 0), nil
	}
	return 0, nil
}

// docPlan is a planned document.
type docPlan struct {
	idx    int
	doc    driver.Document
	chunks []driver.Chunk
	tmpl   Template
	lang   string
	want   string
	// glossary is the rendered glossary block ("" without one).
	glossary string
	plan     plan
	replica  int

	factsOnce sync.Once
	facts     *docFacts
}

func (dp *docPlan) docFacts() *docFacts {
	dp.factsOnce.Do(func() { dp.facts = newDocFacts(dp.doc.Text + "\n" + dp.doc.Title) })
	return dp.facts
}

// planDoc plans one document; with a token-counting model, a document that
// looks too large by the estimate is counted exactly and re-planned.
func (c *Contextualizer) planDoc(ctx context.Context, idx int, d DocChunks, window int) (*docPlan, error) {
	tmpl, lang, want := c.templateFor(d.Doc)
	gl := ""
	if c.opts.Glossary != nil {
		gl = renderGlossary(lang, c.opts.Glossary(d.Doc))
	}
	in := planInput{doc: d.Doc, chunks: d.Chunks, tmpl: tmpl, lang: lang, glossary: gl,
		window: window, maxTokens: c.opts.MaxTokens, factor: 1 + c.opts.EstimateMargin}
	in.rawDoc = rawTokens(d.Doc.Text)
	p := makePlan(in)
	// Count exactly when the estimate says the document does not fit, or
	// when it would not fit with a tokenizer needing twice the estimate.
	if tc, ok := c.model.(driver.TokenCounter); ok && window > 0 && (!allFull(p) || 2*largestPrompt(p) > window-c.opts.MaxTokens) {
		full := in.fullPrefix()
		start := time.Now()
		exact, err := tc.CountTokens(ctx, full)
		u := driver.Usage{Time: start, Operation: "count", DocID: d.Doc.ID, InputTokens: exact, Latency: time.Since(start)}
		if err != nil {
			u.Error = err.Error()
		}
		if rerr := c.record(ctx, u); rerr != nil {
			return nil, rerr
		}
		if err != nil {
			return nil, fmt.Errorf("llm: count tokens of %s: %w", d.Doc.ID, err)
		}
		if raw := rawTokens(full); raw > 0 && exact > 0 {
			in.factor = max(0.5, float64(exact)/float64(raw)) * 1.05
			p = makePlan(in)
		}
	}
	h := fnv.New32a()
	h.Write([]byte(d.Doc.ID))
	return &docPlan{idx: idx, doc: d.Doc, chunks: d.Chunks, tmpl: tmpl, lang: lang, want: want, glossary: gl, plan: p,
		replica: int(h.Sum32() % uint32(len(c.pool)))}, nil
}

// largestPrompt is the estimated size of a plan's largest prompt.
func largestPrompt(p plan) int {
	n := 0
	for _, g := range p.groups {
		for _, i := range g.chunks {
			n = max(n, g.prefixTokens+p.suffixTokens[i])
		}
	}
	return n
}

func allFull(p plan) bool {
	return len(p.tooLarge) == 0 && len(p.groups) == 1 && strings.HasPrefix(p.groups[0].desc, "full")
}

// record sends a usage record, filling provider, model and cost.
func (c *Contextualizer) record(ctx context.Context, u driver.Usage) error {
	if u.Provider == "" && u.Model == "" {
		u.Provider, u.Model = splitName(c.Name())
	}
	if c.hasPrice && strings.HasPrefix(u.Operation, "context") {
		u.CostUSD = c.price.Cost(u, c.opts.CacheTTL)
	}
	if c.opts.Usage == nil {
		return nil
	}
	if err := c.opts.Usage.RecordUsage(context.WithoutCancel(ctx), u); err != nil {
		return fmt.Errorf("llm: record usage of %s: %w", u.DocID, err)
	}
	return nil
}

// finishRecord completes the record beginAttempt made with the call's
// usage, filling provider, model and cost as record does.
func (c *Contextualizer) finishRecord(ctx context.Context, id int64, u driver.Usage) error {
	if u.Provider == "" && u.Model == "" {
		u.Provider, u.Model = splitName(c.Name())
	}
	if c.hasPrice && strings.HasPrefix(u.Operation, "context") {
		u.CostUSD = c.price.Cost(u, c.opts.CacheTTL)
	}
	if err := c.opts.Usage.(driver.AttemptRecorder).FinishUsage(context.WithoutCancel(ctx), id, u); err != nil {
		return fmt.Errorf("llm: record usage of %s: %w", u.DocID, err)
	}
	return nil
}

func splitName(name string) (string, string) {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// wholeDocument reports whether d is one chunk holding the whole document
// (up to surrounding white space): a context cannot situate it further.
func wholeDocument(d DocChunks) bool {
	if len(d.Chunks) != 1 {
		return false
	}
	ch, text := d.Chunks[0], d.Doc.Text
	if ch.Start >= 0 && ch.Start <= ch.End && ch.End <= len(text) && text[ch.Start:ch.End] == ch.Text {
		return strings.TrimSpace(text[:ch.Start]) == "" && strings.TrimSpace(text[ch.End:]) == ""
	}
	return strings.TrimSpace(ch.Text) == strings.TrimSpace(text)
}

// wholeDocumentContext is the context of a document that is one chunk:
// Fallback's (the offline context), labelled with its name, unflagged.
func (c *Contextualizer) wholeDocumentContext(ctx context.Context, doc driver.Document, ch driver.Chunk) (driver.Context, error) {
	if c.opts.Fallback == nil {
		return driver.Context{Source: "none"}, nil
	}
	xs, err := c.opts.Fallback.Contextualize(ctx, doc, []driver.Chunk{ch})
	if err != nil {
		return driver.Context{}, fmt.Errorf("llm: %s context of one-chunk document %s: %w", c.opts.Fallback.Name(), doc.ID, err)
	}
	if len(xs) != 1 {
		return driver.Context{}, fmt.Errorf("llm: %s context of one-chunk document %s: got %d contexts, want 1", c.opts.Fallback.Name(), doc.ID, len(xs))
	}
	x := xs[0]
	if x.Source == "" {
		x.Source = c.opts.Fallback.Name()
	}
	return x, nil
}

// fallback writes the context of a chunk the model could not do.
func (c *Contextualizer) fallback(ctx context.Context, doc driver.Document, ch driver.Chunk, reason string) (driver.Context, error) {
	x := driver.Context{Source: "none"}
	if c.opts.Fallback != nil {
		xs, err := c.opts.Fallback.Contextualize(ctx, doc, []driver.Chunk{ch})
		if err != nil {
			return x, fmt.Errorf("llm: fallback %s for %s chunk %d: %w", c.opts.Fallback.Name(), doc.ID, ch.Index, err)
		}
		if len(xs) != 1 {
			return x, fmt.Errorf("llm: fallback %s for %s chunk %d: got %d contexts, want 1", c.opts.Fallback.Name(), doc.ID, ch.Index, len(xs))
		}
		x = xs[0]
		x.Flags = append([]string(nil), x.Flags...)
		if x.Source == "" {
			x.Source = c.opts.Fallback.Name()
		}
	}
	x.Flags = appendFlag(x.Flags, FlagFallback)
	x.Flags = appendFlag(x.Flags, reason)
	return x, nil
}

func appendFlag(flags []string, f string) []string {
	for _, g := range flags {
		if g == f {
			return flags
		}
	}
	return append(flags, f)
}

// projectedCost is the most a call may cost: prefix as cache write (first
// call of a group) or cache read (the others) when long enough to be
// cached, suffix as input, MaxTokens of output.
func (c *Contextualizer) projectedCost(prefixTok, suffixTok int, first bool) float64 {
	if !c.hasPrice {
		return 0
	}
	u := driver.Usage{InputTokens: suffixTok, OutputTokens: c.opts.MaxTokens}
	switch {
	case prefixTok < c.price.MinCacheTokens:
		u.InputTokens += prefixTok
	case first:
		u.CacheWriteTokens = prefixTok
	default:
		u.CacheReadTokens = prefixTok
	}
	return c.price.Cost(u, c.opts.CacheTTL)
}

// Run contextualizes many documents and emits every chunk's context as soon
// as it is known (from the cache, the model or the fallback). emit is never
// called concurrently; an error from it stops the run.
//
// Scheduling: for each group of chunks sharing a prompt prefix (a whole
// document, or one excerpt window of a large one) the first uncached call
// goes alone; when the provider starts answering (Prompt.Started; or when
// the call returns, for providers that never call it) the prefix is cached
// and the group's other chunks fan out. When the price table knows the
// model and the prefix is shorter than its minimum cacheable length, the
// group fans out at once. Fan-out calls of warm documents come
// first, and up to two documents warm at a time while there is not enough
// fan-out work to fill the slots, so the provider stays saturated. Every
// document goes to one replica (stable hash of its ID), each replica with
// its own adaptive concurrency.
//
// A cancelled run returns ctx.Err(); what was emitted was cached, so the
// next run resumes. A run whose projected spend would exceed MaxCostUSD
// stops dispatching, waits for calls in flight and returns an error
// wrapping ErrBudget.
func (c *Contextualizer) Run(ctx context.Context, docs []DocChunks, emit func(doc int, chunk int, c driver.Context) error) error {
	if emit == nil {
		return fmt.Errorf("llm: run: emit is nil: %w", driver.ErrInvalid)
	}
	for i, d := range docs {
		for j, ch := range d.Chunks {
			if ch.DocID != "" && ch.DocID != d.Doc.ID {
				return fmt.Errorf("llm: run: docs[%d] (%s): chunk %d belongs to %q: %w", i, d.Doc.ID, j, ch.DocID, driver.ErrInvalid)
			}
		}
	}
	tripped, trippedCh := c.breaker.state()
	if tripped != nil {
		return tripped
	}
	window, err := c.window(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &run{c: c, ctx: ctx, cancel: cancel, emitFn: emit, budget: budget{max: c.opts.MaxCostUSD}}
	// A breaker tripped by any run of this Contextualizer stops this one.
	go func() {
		select {
		case <-trippedCh:
			if err, _ := c.breaker.state(); err != nil {
				r.fail(err)
			}
		case <-ctx.Done():
		}
	}()
	r.queues = make([]*queue, len(c.pool))
	r.lims = make([]*limiter, len(c.pool))
	for i := range c.pool {
		r.lims[i] = newLimiter(c.opts.Concurrency)
		r.queues[i] = newQueue(r.lims[i])
	}
	stop := context.AfterFunc(ctx, r.stopAll)
	defer stop()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() {
			for _, q := range r.queues {
				q.setPlanned()
			}
		}()
		for i, d := range docs {
			if ctx.Err() != nil || r.stopped() {
				return
			}
			if err := r.planAndQueue(i, d, window); err != nil {
				r.fail(err)
				return
			}
		}
	}()
	for i := range c.pool {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.dispatch(i)
		}()
	}
	wg.Wait()
	if r.err != nil {
		return r.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
}
