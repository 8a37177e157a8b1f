package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/situate/situate/driver"
)

// Defaults for RerankOptions.
const (
	// DefaultRerankConcurrency is the number of relevance calls in flight.
	DefaultRerankConcurrency = 8
	// DefaultRerankMaxTokens is the output budget of one relevance call:
	// the answer is a number, a few tokens leave room for "Score: 7".
	DefaultRerankMaxTokens = 16
	// MaxRerankScore is the top of the scale the model answers on; scores
	// are returned divided by it, in [0, 1].
	MaxRerankScore = 10
)

// RerankOptions configure a Reranker. The zero value uses the defaults.
type RerankOptions struct {
	// Concurrency bounds the calls in flight; 0 means
	// DefaultRerankConcurrency.
	Concurrency int
	// Instructions, if set, are added to the prompt after the query (what
	// counts as relevant in this corpus, ...).
	Instructions string
	// MaxTokens is the output budget per call; 0 means
	// DefaultRerankMaxTokens.
	MaxTokens int
	// MaxRetries of a retryable error (see Retryable); 0 means
	// DefaultMaxRetries, a negative value none.
	MaxRetries int
	// BaseBackoff, MaxBackoff and CallTimeout default to DefaultBaseBackoff,
	// DefaultMaxBackoff and DefaultCallTimeout.
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	CallTimeout time.Duration
	// Usage receives one record per call (Operation "rerank"); may be nil.
	Usage driver.UsageRecorder
}

// RerankStats counts a Reranker's work since it was made.
type RerankStats struct {
	// Calls counts model calls, retries included.
	Calls int64
	// Scored counts candidates scored; Unparsed those of them whose answer
	// held no score in [0, MaxRerankScore] (they score 0).
	Scored, Unparsed int64
}

// Reranker implements situate.Reranker with a chat model: each candidate
// is rated on its own (pointwise) by asking for an integer from 0 to 10.
// It lets a user with only a local model rerank. The query and
// instructions form the prompt Prefix, byte-identical for every candidate
// of a query, so a provider prompt cache or a server prefix cache pays for
// them once; the candidate goes into the Suffix. The first candidate is
// sent alone and the others fan out once the model starts answering
// (Prompt.Started), as the contextualizer does.
type Reranker struct {
	model driver.LLM
	opts  RerankOptions
	name  string

	calls, scored, unparsed atomic.Int64
}

var _ driver.Reranker = (*Reranker)(nil)

// NewReranker returns a Reranker over model; zero options take defaults.
func NewReranker(model driver.LLM, opts RerankOptions) *Reranker {
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultRerankConcurrency
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultRerankMaxTokens
	}
	switch {
	case opts.MaxRetries == 0:
		opts.MaxRetries = DefaultMaxRetries
	case opts.MaxRetries < 0:
		opts.MaxRetries = 0
	}
	if opts.BaseBackoff <= 0 {
		opts.BaseBackoff = DefaultBaseBackoff
	}
	if opts.MaxBackoff < opts.BaseBackoff {
		opts.MaxBackoff = max(DefaultMaxBackoff, opts.BaseBackoff)
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	return &Reranker{model: model, opts: opts, name: "llm:" + model.Name()}
}

// Name is "llm:" followed by the model's name.
func (r *Reranker) Name() string { return r.name }

// Stats returns the counters so far.
func (r *Reranker) Stats() RerankStats {
	return RerankStats{Calls: r.calls.Load(), Scored: r.scored.Load(), Unparsed: r.unparsed.Load()}
}

// RerankPrefix renders the cacheable part of a relevance prompt.
func RerankPrefix(query, instructions string) string {
	var b strings.Builder
	b.WriteString("You judge search results. Rate how relevant a passage is to the search query below.\n\n<query>\n")
	b.WriteString(query)
	b.WriteString("\n</query>\n\n")
	if instructions != "" {
		b.WriteString(instructions)
		b.WriteString("\n\n")
	}
	b.WriteString("Use an integer scale from 0 to 10: 0 means unrelated, 5 means related but not answering the query, " +
		"10 means the passage directly and fully answers it. The query and the passage may be in different languages " +
		"(English, German, Spanish, Russian, Chinese); judge the meaning.\n")
	return b.String()
}

// RerankSuffix renders the per-candidate part of a relevance prompt.
func RerankSuffix(text string) string {
	return "<passage>\n" + text + "\n</passage>\n\nAnswer with the score only: one integer from 0 to 10."
}

var (
	thinkBlock = regexp.MustCompile(`(?s)<think(?:ing)?>.*?</think(?:ing)?>`)
	scaleWords = regexp.MustCompile(`(?i)\b0\s*(?:-|–|—|to|bis|a|al|до|到|至)\s*10\b`)
	outOfTen   = regexp.MustCompile(`(\d+(?:[.,]\d+)?)\s*(?:/|out of|von|de|из|分之)\s*10\b`)
	number     = regexp.MustCompile(`\d+(?:[.,]\d+)?`)
)

// ParseRerankScore reads a relevance score from a model's answer: "7",
// "Score: 7", "**8**/10", "7.5", after dropping <think> blocks and mentions
// of the scale ("0 to 10"). It reports false when no number in
// [0, MaxRerankScore] is found.
func ParseRerankScore(answer string) (float64, bool) {
	s := thinkBlock.ReplaceAllString(answer, " ")
	if i := strings.Index(s, "<think"); i >= 0 { // unterminated: cut off mid-thought
		s = s[:i]
	}
	if m := outOfTen.FindStringSubmatch(s); m != nil {
		return parseScore(m[1])
	}
	s = scaleWords.ReplaceAllString(s, " ")
	m := number.FindString(s)
	if m == "" {
		return 0, false
	}
	return parseScore(m)
}

func parseScore(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", "."), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > MaxRerankScore {
		return 0, false
	}
	return v, true
}

// Rerank scores every text against query and returns the scores (answer
// divided by MaxRerankScore, in [0, 1]) in the order of texts. An answer
// without a score scores 0 and is counted in Stats().Unparsed. A call that
// keeps failing fails the whole rerank with an error naming the text.
func (r *Reranker) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if strings.TrimSpace(query) == "" {
		return nil, fmt.Errorf("llm rerank %s: query is empty: %w", r.model.Name(), driver.ErrInvalid)
	}
	prefix := RerankPrefix(query, r.opts.Instructions)
	h := sha256.Sum256([]byte(prefix))
	docID := "rerank:" + hex.EncodeToString(h[:8])

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	scores := make([]float64, len(texts))
	var (
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	fail := func(err error) {
		errOnce.Do(func() { first = err; cancel(err) })
	}
	sem := make(chan struct{}, r.opts.Concurrency)
	launch := func(i int, started, done func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if done != nil {
				defer done()
			}
			p := driver.Prompt{DocID: docID, Prefix: prefix, Suffix: RerankSuffix(texts[i]),
				MaxTokens: r.opts.MaxTokens, Started: started}
			s, err := r.score(ctx, i, p)
			if err != nil {
				fail(err)
				return
			}
			scores[i] = s
		}()
	}

	// The first candidate goes alone; the rest fan out once the model has
	// the prefix (it started answering) or the call ended.
	startedCh := make(chan struct{})
	var startOnce sync.Once
	markStarted := func() { startOnce.Do(func() { close(startedCh) }) }
	sem <- struct{}{}
	launch(0, markStarted, markStarted) // Started may never be called
	select {
	case <-startedCh:
	case <-ctx.Done():
	}
	for i := 1; i < len(texts); i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		launch(i, nil, nil)
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("llm rerank %s: %w", r.model.Name(), err)
	}
	return scores, nil
}

// score runs one relevance call with retries.
func (r *Reranker) score(ctx context.Context, i int, p driver.Prompt) (float64, error) {
	provider, modelName := splitName(r.model.Name())
	for attempt := 0; ; attempt++ {
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, r.opts.CallTimeout)
		comp, err := r.model.Complete(cctx, p)
		cancel()
		r.calls.Add(1)
		if r.opts.Usage != nil {
			u := comp.Usage
			u.Time, u.Provider, u.Model, u.Operation, u.DocID = start, provider, modelName, "rerank", p.DocID
			u.Latency, u.Retries = time.Since(start), attempt
			if err != nil {
				u.Error = err.Error()
			}
			if rerr := r.opts.Usage.RecordUsage(context.WithoutCancel(ctx), u); rerr != nil {
				return 0, fmt.Errorf("llm rerank %s: record usage: %w", r.model.Name(), rerr)
			}
		}
		if err == nil {
			r.scored.Add(1)
			v, ok := ParseRerankScore(comp.Text)
			if !ok {
				r.unparsed.Add(1)
				return 0, nil
			}
			return v / MaxRerankScore, nil
		}
		retry, after, _ := classify(ctx, err)
		if !retry || attempt >= r.opts.MaxRetries || ctx.Err() != nil {
			return 0, fmt.Errorf("llm rerank %s: text %d: %w", r.model.Name(), i, err)
		}
		if err := sleep(ctx, backoff(attempt, r.opts.BaseBackoff, r.opts.MaxBackoff, after)); err != nil {
			return 0, fmt.Errorf("llm rerank %s: text %d: %w", r.model.Name(), i, err)
		}
	}
}
