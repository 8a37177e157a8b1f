package questions

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/analysis"
	"github.com/situate/situate/driver"
)

// Defaults.
const (
	DefaultMaxOverlap    = 0.6
	DefaultMinChunkTerms = 20
	DefaultMaxTokens     = 300
	DefaultConcurrency   = 4
)

// ErrBudget is returned (wrapped) when the next call would exceed
// Options.MaxCostUSD.
var ErrBudget = errors.New("questions: budget exhausted")

// Options configures a generation.
type Options struct {
	// N is the number of chunks to sample (each gives at most one question).
	N int
	// Seed makes the sample reproducible.
	Seed uint64
	// MaxOverlap is the largest share of a question's terms that may also
	// be in its chunk (default DefaultMaxOverlap).
	MaxOverlap float64
	// MinChunkTerms is the fewest analysed terms a usable chunk has
	// (default DefaultMinChunkTerms).
	MinChunkTerms int
	// MaxTokens is the output budget per call (default DefaultMaxTokens).
	MaxTokens int
	// Concurrency is the number of documents asked about at once; a
	// document's calls run one after another, the first writing the
	// prompt cache the others read (default DefaultConcurrency).
	Concurrency int
	// Usage, if set, receives one record per call (Operation "question").
	Usage driver.UsageRecorder
	// Price, if set, prices a call's usage in USD.
	Price func(driver.Usage) float64
	// MaxCostUSD, if > 0 (needs Price), stops before a call once the spend
	// reached it.
	MaxCostUSD float64
	// Progress, if set, is called after every call with done and total.
	Progress func(done, total int)
}

func (o Options) withDefaults() Options {
	if o.MaxOverlap <= 0 {
		o.MaxOverlap = DefaultMaxOverlap
	}
	if o.MinChunkTerms <= 0 {
		o.MinChunkTerms = DefaultMinChunkTerms
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	return o
}

// Item is one generated question with its golden chunk.
type Item struct {
	ID       string `json:"id"`
	Question string `json:"query"`
	Doc      string `json:"doc"`
	Answer   string `json:"answer"`
	Lang     string `json:"lang"`
	// Start and End are the golden chunk's byte span in the document text;
	// Chunk its index; Heading the heading path above it.
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Chunk   int    `json:"chunk"`
	Heading string `json:"heading,omitempty"`
	// Overlap is the question's term overlap with its chunk.
	Overlap float64 `json:"overlap"`
	// Dropped is the check the item failed, "" when kept; Raw the model's
	// output for dropped items (for the report).
	Dropped string `json:"-"`
	Raw     string `json:"-"`
}

// Result is a generation's outcome.
type Result struct {
	Model string
	// Items are the kept items in sample order; All every generated item,
	// dropped ones with their reason.
	Items []Item
	All   []Item
	// Skipped counts unusable chunks by Skip reason; Dropped items by check.
	Skipped map[string]int
	Dropped map[string]int
	// Chunks is the number of chunks considered; Sampled those sampled.
	Chunks, Sampled int
	Usage           driver.Usage // summed over calls
	Calls           int
	CostUSD         float64
	Elapsed         time.Duration
}

// Generate samples chunks of srcs and asks model for a question on each;
// see the package documentation. It returns the partial result along with
// an error when a budget or the context stops it.
func Generate(ctx context.Context, model driver.LLM, srcs []Source, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	if model == nil {
		return nil, fmt.Errorf("generate questions: no model: %w", driver.ErrInvalid)
	}
	if opts.N <= 0 {
		return nil, fmt.Errorf("generate questions: N must be > 0, got %d: %w", opts.N, driver.ErrInvalid)
	}
	if opts.MaxCostUSD > 0 && opts.Price == nil {
		return nil, fmt.Errorf("generate questions: MaxCostUSD needs a price for %s: %w", model.Name(), driver.ErrInvalid)
	}
	start := time.Now()
	for i := range srcs {
		if srcs[i].Lang == "" {
			srcs[i].Lang = resolve(srcs[i])
		}
	}
	picks, skipped := Sample(srcs, opts.N, opts.Seed, opts.MinChunkTerms)
	res := &Result{Model: model.Name(), Skipped: skipped, Dropped: map[string]int{}, Sampled: len(picks)}
	for _, s := range srcs {
		res.Chunks += len(s.Chunks)
	}
	outs := make([]string, len(picks))
	errs := make([]error, len(picks))
	asked := make([]bool, len(picks)) // false for picks a stopped run never asked about
	// Group picks by document, keeping the first-seen order of documents.
	byDoc := map[int][]int{}
	var docOrder []int
	for i, p := range picks {
		if _, ok := byDoc[p.Source]; !ok {
			docOrder = append(docOrder, p.Source)
		}
		byDoc[p.Source] = append(byDoc[p.Source], i)
	}
	provider, modelName, _ := strings.Cut(model.Name(), ":")
	if modelName == "" {
		provider, modelName = "", provider
	}
	var (
		mu       sync.Mutex
		spent    float64
		done     int
		stopErr  error
		work     = make(chan int)
		wg       sync.WaitGroup
		runCtx   context.Context
		cancelFn context.CancelFunc
	)
	runCtx, cancelFn = context.WithCancel(ctx)
	defer cancelFn()
	call := func(i int) {
		p := picks[i]
		src := srcs[p.Source]
		ch := src.Chunks[p.Chunk]
		mu.Lock()
		if stopErr == nil && opts.MaxCostUSD > 0 && spent >= opts.MaxCostUSD {
			stopErr = fmt.Errorf("generate questions: spent $%.4f of MaxCostUSD $%.4f before %s chunk %d: %w", spent, opts.MaxCostUSD, src.Doc.ID, ch.Index, ErrBudget)
			cancelFn()
		}
		stop := stopErr != nil
		mu.Unlock()
		if stop || runCtx.Err() != nil {
			return
		}
		t0 := time.Now()
		c, err := model.Complete(runCtx, driver.Prompt{DocID: src.Doc.ID, Prefix: Prefix(src.Doc.Text),
			Suffix: Suffix(p.Lang, ch.Text), MaxTokens: opts.MaxTokens})
		u := c.Usage
		u.Time, u.Provider, u.Model, u.Operation, u.DocID = t0, provider, modelName, "question", src.Doc.ID
		if u.Latency == 0 {
			u.Latency = time.Since(t0)
		}
		if err != nil {
			u.Error = err.Error()
		}
		if opts.Price != nil {
			u.CostUSD = opts.Price(u)
		}
		var rerr error
		if opts.Usage != nil {
			rerr = opts.Usage.RecordUsage(context.WithoutCancel(ctx), u)
		}
		mu.Lock()
		spent += u.CostUSD
		res.Calls++
		res.Usage.InputTokens += u.InputTokens
		res.Usage.CacheWriteTokens += u.CacheWriteTokens
		res.Usage.CacheReadTokens += u.CacheReadTokens
		res.Usage.OutputTokens += u.OutputTokens
		res.CostUSD += u.CostUSD
		done++
		if rerr != nil && stopErr == nil {
			stopErr = fmt.Errorf("generate questions: record usage of %s: %w", src.Doc.ID, rerr)
			cancelFn()
		}
		if opts.Progress != nil {
			opts.Progress(done, len(picks))
		}
		mu.Unlock()
		outs[i], errs[i], asked[i] = c.Text, err, true
	}
	for range min(opts.Concurrency, max(len(docOrder), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				for _, i := range byDoc[d] {
					call(i)
				}
			}
		}()
	}
	for _, d := range docOrder {
		select {
		case work <- d:
		case <-runCtx.Done():
		}
	}
	close(work)
	wg.Wait()
	if stopErr == nil && ctx.Err() != nil {
		stopErr = fmt.Errorf("generate questions: %w", ctx.Err())
	}

	// Checks run in sample order, so duplicates are decided the same way
	// on every run.
	df := NewDocFreq(srcs)
	seen := map[string]bool{}
	for i, p := range picks {
		if !asked[i] {
			continue // the run stopped before this pick
		}
		src := srcs[p.Source]
		ch := src.Chunks[p.Chunk]
		it := Item{ID: fmt.Sprintf("gen-%04d", i+1), Doc: src.Doc.ID, Lang: p.Lang,
			Start: ch.Start, End: ch.End, Chunk: ch.Index, Heading: ch.Heading, Raw: outs[i]}
		if errs[i] != nil {
			it.Dropped = ReasonError
			it.Raw = errs[i].Error()
		} else {
			it.Dropped = check(&it, outs[i], ch.Text, p.Lang, opts.MaxOverlap, df, seen)
		}
		res.All = append(res.All, it)
		if it.Dropped != "" {
			res.Dropped[it.Dropped]++
			continue
		}
		res.Items = append(res.Items, it)
	}
	res.Elapsed = time.Since(start)
	return res, stopErr
}

// check runs the checks on one output, fills the item and returns the
// reason it is dropped, or "".
func check(it *Item, out, chunk, lang string, maxOverlap float64, df *DocFreq, seen map[string]bool) string {
	q, a, why := Parse(out)
	if why != "" {
		return why
	}
	it.Question, it.Answer = q, a
	if !strings.Contains(chunk, a) {
		return ReasonAnswerNotInChunk
	}
	if got := analysis.Detect(q); got != "" && lang != "" && got != lang {
		return ReasonWrongLanguage
	}
	ov := Overlap(q, chunk, lang)
	it.Overlap = math.Round(ov*100) / 100 // for the person reading the file
	if ov > maxOverlap {
		return ReasonCopied
	}
	if !Anchored(q, lang, df) {
		return ReasonUnanchored
	}
	sig := signature(q, lang)
	if sig == "" {
		sig = strings.ToLower(strings.Join(strings.Fields(q), " "))
	}
	if seen[sig] {
		return ReasonDuplicate
	}
	seen[sig] = true
	return ""
}

func resolve(s Source) string { return driver.ResolveLanguage(s.Doc) }
