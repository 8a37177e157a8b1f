package llm

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/situate/situate/driver"
)

// Defaults for Options.
const (
	// DefaultMaxTokens is the output budget of one contextualization call.
	DefaultMaxTokens = 256
	// DefaultMaxContextTokens bounds a generated context (estimated tokens);
	// longer answers are cut at a sentence boundary and flagged "truncated".
	DefaultMaxContextTokens = 150
	// DefaultConcurrency is the number of calls in flight per replica.
	DefaultConcurrency = 8
	// DefaultMaxRetries is how often a retryable error is retried.
	DefaultMaxRetries = 6
	// DefaultBaseBackoff is the first retry delay; it doubles per attempt
	// (with full jitter) up to DefaultMaxBackoff.
	DefaultBaseBackoff = 500 * time.Millisecond
	DefaultMaxBackoff  = 60 * time.Second
	// DefaultCallTimeout bounds one provider call; a call that times out is
	// retried.
	DefaultCallTimeout = 2 * time.Minute
	// DefaultEstimateMargin is added to offline o200k token estimates
	// (+25%): Claude's and local models' tokenizers are not o200k, and for
	// German, Russian and Chinese they may need noticeably more tokens.
	DefaultEstimateMargin = 0.25
	// DefaultBreakerFailures is how many failed attempts in a row stop a
	// run with situate.ErrProviderFailing; DefaultBreakerWindow is how long
	// attempts may keep failing (at least 3 of them) before they do.
	DefaultBreakerFailures = 8
	DefaultBreakerWindow   = 20 * time.Second
	// DefaultDegenerateRetries is how often a degenerate answer (see
	// Options.KeepDegenerate) is asked again with another sample.
	DefaultDegenerateRetries = 2
	// DefaultCacheTTL is the provider prompt-cache lifetime priced for
	// cache writes ("5m" or "1h").
	DefaultCacheTTL = "5m"
)

// Term is one glossary entry: a term defined in another document.
type Term struct {
	Term       string
	Definition string
}

// GlossaryFunc returns the glossary shown after a document (terms defined in
// other documents). It must be deterministic: its output is part of the
// cached prompt prefix and of the cache key.
type GlossaryFunc func(doc driver.Document) []Term

// Options configure a Contextualizer. The zero value is not valid; start from
// DefaultOptions.
type Options struct {
	// Language forces the prompt template's language (en, de, es, ru, zh)
	// for every document; empty picks it from Document.Lang (detected from
	// the text when empty).
	Language string
	// TemplateFile, if set, is a custom prompt template holding both
	// {{WHOLE_DOCUMENT}} and {{CHUNK_CONTENT}}, the document first. It is
	// used for every document.
	TemplateFile string
	// Glossary, if set, adds a glossary block after the document.
	Glossary GlossaryFunc
	// GlossaryID names the glossary and its content (say, the file's name
	// and a hash of it): it enters Settings and the Fingerprint, so a
	// changed glossary re-processes the documents, and those whose
	// glossary block changed get a new call.
	GlossaryID string
	// Extra is the extra request fields the model clients send (canonical
	// JSON, as --llm-extra): sampling settings change the answers, so they
	// enter Settings, the Fingerprint and every cache key.
	Extra string

	// MaxTokens is the output budget of one call.
	MaxTokens int
	// MaxContextTokens bounds a context's length (estimated tokens).
	MaxContextTokens int
	// ContextWindow is the model's context window in tokens; 0 asks the
	// model (situate.ContextWindower) and, if it does not know, sends every
	// document whole.
	ContextWindow int
	// EstimateMargin is the safety margin added to offline token estimates.
	EstimateMargin float64

	// Concurrency is the maximum number of calls in flight per replica.
	// It is halved on rate-limit errors and grows back by one per window of
	// successful calls.
	Concurrency int
	// Replicas are more servers of the same model (same Name()). Every
	// document goes to one of model+Replicas, chosen by a stable hash of its
	// ID, so its prefix is cached on one server only.
	Replicas []driver.LLM
	// MaxRetries, BaseBackoff, MaxBackoff and CallTimeout govern retries of
	// retryable errors (see Retryable) and per-call timeouts.
	MaxRetries  int
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	CallTimeout time.Duration

	// BreakerFailures failed attempts in a row, or attempts failing for
	// BreakerWindow (at least 3 of them, none succeeding), stop every run
	// of the Contextualizer with an error matching
	// situate.ErrProviderFailing instead of degrading each remaining chunk
	// to the fallback; it stays stopped for BreakerWindow. Errors matching
	// situate.ErrUnauthorized or situate.ErrModelNotFound stop it at the
	// first. Prompts too large for the window and cancelled calls do not
	// count. BreakerFailures 0 disables the breaker.
	BreakerFailures int
	BreakerWindow   time.Duration

	// DegenerateRetries is how often a degenerate answer (repetition,
	// character noise, no word of the document, far from the asked length)
	// is asked again with another sample (situate.Prompt.Sample) before the
	// chunk gets the fallback context, flagged "degenerate:<kind>".
	// KeepDegenerate keeps such an answer instead, flagged the same way.
	DegenerateRetries int
	KeepDegenerate    bool

	// RequestsPerMinute and InputTokensPerMinute are the provider's rate
	// limits (0 = none), enforced before every call (retries included)
	// over all documents of the Contextualizer with token buckets that
	// hold one minute's worth and refill continuously, as Anthropic
	// describes its limits. A call's input tokens are the prompt's
	// estimate (EstimateMargin included) less the prefix it is expected to
	// read from the provider's cache: as with Anthropic's current models,
	// cache reads do not count against the input-token limit (OpenAI
	// counts them; set a lower limit there). Once the provider reports the
	// call's usage, the bucket is corrected to input plus cache-write
	// tokens.
	RequestsPerMinute    int
	InputTokensPerMinute int

	// Cache remembers contexts across runs (may be nil).
	Cache driver.ContextCache
	// Usage receives one record per contextualization call (may be nil).
	Usage driver.UsageRecorder
	// Fallback writes the context of a chunk whose calls keep failing
	// (e.g. the offline contextualizer). Nil leaves such a context empty;
	// it is flagged "fallback" either way. It also writes, unflagged, the
	// context of a document that is one chunk (see CallWholeDocuments).
	Fallback driver.Contextualizer
	// CallWholeDocuments asks the model even for a document that fits in
	// one chunk. By default such a document gets no call: the chunk is the
	// whole document, so a context situating it in the document can add
	// nothing; it gets Fallback's context (empty without one), labelled
	// with Fallback's name and not flagged, since nothing failed.
	CallWholeDocuments bool

	// Prices is the price table (USD per million tokens); nil uses
	// DefaultPrices.
	Prices PriceTable
	// CacheTTL is "5m" or "1h": which cache-write price applies.
	CacheTTL string
	// MaxCostUSD, if > 0, stops a run (error wrapping ErrBudget) before the
	// projected spend would exceed it.
	MaxCostUSD float64
}

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{
		MaxTokens:        DefaultMaxTokens,
		MaxContextTokens: DefaultMaxContextTokens,
		EstimateMargin:   DefaultEstimateMargin,
		Concurrency:      DefaultConcurrency,
		MaxRetries:       DefaultMaxRetries,
		BaseBackoff:      DefaultBaseBackoff,
		MaxBackoff:       DefaultMaxBackoff,
		CallTimeout:      DefaultCallTimeout,
		CacheTTL:         DefaultCacheTTL,

		BreakerFailures:   DefaultBreakerFailures,
		BreakerWindow:     DefaultBreakerWindow,
		DegenerateRetries: DefaultDegenerateRetries,
	}
}

// Validate reports the first invalid field.
func (o Options) Validate() error {
	bad := func(field, msg string, args ...any) error {
		return fmt.Errorf("llm options: %s: %s: %w", field, fmt.Sprintf(msg, args...), driver.ErrInvalid)
	}
	if o.Language != "" && !knownLang(o.Language) {
		return bad("Language", "unknown language %q (want one of en, de, es, ru, zh)", o.Language)
	}
	if o.TemplateFile != "" {
		if _, err := os.Stat(o.TemplateFile); err != nil {
			return bad("TemplateFile", "%v", err)
		}
	}
	switch {
	case o.MaxTokens <= 0:
		return bad("MaxTokens", "must be > 0, got %d", o.MaxTokens)
	case o.MaxContextTokens <= 0:
		return bad("MaxContextTokens", "must be > 0, got %d", o.MaxContextTokens)
	case o.ContextWindow < 0:
		return bad("ContextWindow", "must be >= 0, got %d", o.ContextWindow)
	case o.ContextWindow > 0 && o.ContextWindow <= o.MaxTokens:
		return bad("ContextWindow", "%d leaves no room for the prompt with MaxTokens %d", o.ContextWindow, o.MaxTokens)
	case o.EstimateMargin < 0 || o.EstimateMargin > 4:
		return bad("EstimateMargin", "must be in [0, 4], got %g", o.EstimateMargin)
	case o.Concurrency <= 0:
		return bad("Concurrency", "must be > 0, got %d", o.Concurrency)
	case o.MaxRetries < 0:
		return bad("MaxRetries", "must be >= 0, got %d", o.MaxRetries)
	case o.BaseBackoff <= 0:
		return bad("BaseBackoff", "must be > 0, got %v", o.BaseBackoff)
	case o.MaxBackoff < o.BaseBackoff:
		return bad("MaxBackoff", "must be >= BaseBackoff (%v), got %v", o.BaseBackoff, o.MaxBackoff)
	case o.CallTimeout <= 0:
		return bad("CallTimeout", "must be > 0, got %v", o.CallTimeout)
	case o.BreakerFailures < 0:
		return bad("BreakerFailures", "must be >= 0, got %d", o.BreakerFailures)
	case o.BreakerWindow < 0:
		return bad("BreakerWindow", "must be >= 0, got %v", o.BreakerWindow)
	case o.DegenerateRetries < 0:
		return bad("DegenerateRetries", "must be >= 0, got %d", o.DegenerateRetries)
	case o.RequestsPerMinute < 0:
		return bad("RequestsPerMinute", "must be >= 0, got %d", o.RequestsPerMinute)
	case o.InputTokensPerMinute < 0:
		return bad("InputTokensPerMinute", "must be >= 0, got %d", o.InputTokensPerMinute)
	case o.CacheTTL != "5m" && o.CacheTTL != "1h":
		return bad("CacheTTL", "must be \"5m\" or \"1h\", got %q", o.CacheTTL)
	case o.MaxCostUSD < 0:
		return bad("MaxCostUSD", "must be >= 0, got %g", o.MaxCostUSD)
	}
	for i, r := range o.Replicas {
		if r == nil {
			return bad(fmt.Sprintf("Replicas[%d]", i), "is nil")
		}
	}
	for name, p := range o.Prices {
		if err := p.validate(); err != nil {
			return bad(fmt.Sprintf("Prices[%q]", name), "%v", err)
		}
	}
	return nil
}

// ErrBudget is wrapped by the error a run returns when its projected spend
// would exceed Options.MaxCostUSD.
var ErrBudget = errors.New("llm: cost budget exceeded")
