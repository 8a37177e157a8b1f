package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Contextualizer writes the context of every chunk of one document. It is
// called once per document so that prompt and prefix caches pay for the
// document once. It returns exactly len(chunks) contexts, in order. An
// implementation that cannot produce a context for a chunk returns a fallback
// context flagged "fallback" rather than leaving the chunk out.
type Contextualizer interface {
	Name() string
	Contextualize(ctx context.Context, doc Document, chunks []Chunk) ([]Context, error)
}

// Fingerprinter is implemented by contextualizers whose contexts depend on
// more than their Name (a prompt template's content, the model file behind
// a URL, an output budget, a forced language). The Engine's processing
// fingerprint includes it, so a change re-processes every document; the
// contextualizer's own cache then decides which chunks need a new call.
type Fingerprinter interface {
	Fingerprint() string
}

// InputType tells an Embedder whether it embeds indexed text or a query; many
// models embed the two differently (Voyage input_type, Cohere search_query...).
type InputType int

const (
	InputDocument InputType = iota
	InputQuery
)

// Embedder turns texts into vectors. It returns one vector per text, all of
// the same dimension, or an error naming the provider and batch.
type Embedder interface {
	Name() string
	Embed(ctx context.Context, texts []string, input InputType) ([][]float32, error)
}

// Reranker scores texts against a query; a higher score is more relevant.
// It returns one score per text, in the order given.
type Reranker interface {
	Name() string
	Rerank(ctx context.Context, query string, texts []string) ([]float64, error)
}

// Usage is what one provider call cost, recorded for every call.
type Usage struct {
	Time     time.Time
	Provider string
	Model    string
	// Operation is "context", "embed", "rerank" or "count".
	Operation string
	DocID     string
	// InputTokens counts uncached input tokens; CacheWriteTokens and
	// CacheReadTokens are reported separately as the providers do.
	InputTokens      int
	CacheWriteTokens int
	// CacheWrite1hTokens is the part of CacheWriteTokens written with the
	// 1-hour TTL (priced higher than the 5-minute default).
	CacheWrite1hTokens int
	CacheReadTokens    int
	OutputTokens       int
	// Batch marks calls billed at the batch discount.
	Batch   bool
	Latency time.Duration
	Retries int
	// Error is the final error of a failed call, empty on success.
	Error string
	// CostUSD is the call's cost from the configured price table, 0 if unknown.
	CostUSD float64
}

// UsageRecorder receives a Usage for every provider call.
type UsageRecorder interface {
	RecordUsage(ctx context.Context, u Usage) error
}

// ContextCache remembers generated contexts so that an interrupted run
// resumes without repeating a finished call. Keys are built by the
// contextualizer from provider, model, template hash, document hash, chunk
// hash and window.
type ContextCache interface {
	CachedContext(ctx context.Context, key string) (Context, bool, error)
	CacheContext(ctx context.Context, key string, c Context) error
}

// VectorCache remembers embeddings keyed by model and text hash.
type VectorCache interface {
	CachedVector(ctx context.Context, key string) ([]float32, bool, error)
	CacheVector(ctx context.Context, key string, v []float32) error
}

// BatchContextualizer writes the contexts of many documents through one
// provider batch (Anthropic's Message Batches: half price, may take hours;
// package llm implements it over provider clients that can batch).
type BatchContextualizer interface {
	// ContextualizeBatch writes the contexts of every chunk of docs,
	// resuming a batch an earlier run left pending, and returns the
	// Contextualizer the run then uses: it answers from what the batch
	// wrote and gives a chunk whose request failed a context flagged
	// FlagFallback. Its Name must be the Engine's contextualizer's.
	ContextualizeBatch(ctx context.Context, docs []DocumentChunks) (Contextualizer, error)
}

// DocumentChunks is a document with its chunks.
type DocumentChunks struct {
	Doc    Document
	Chunks []Chunk
}

// ErrorKind names the kind of a provider error for counting: the sentinel
// it matches, its HTTP status, a timeout, or else its message.
func ErrorKind(err error) string {
	var status interface{ HTTPStatus() int }
	var timeout interface{ Timeout() bool }
	var kinded interface{ ErrorKind() string }
	switch {
	case errors.As(err, &kinded) && kinded.ErrorKind() != "":
		// An error that names its own kind (a degenerate answer:
		// "degenerate context (repetition)").
		return kinded.ErrorKind()
	case errors.Is(err, ErrUnauthorized):
		return "unauthorized"
	case errors.Is(err, ErrModelNotFound):
		return "model not found"
	case errors.Is(err, ErrProviderFailing):
		return "provider failing"
	case errors.Is(err, ErrPromptTooLarge):
		return "prompt too large"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &status) && status.HTTPStatus() > 0:
		return fmt.Sprintf("HTTP %d", status.HTTPStatus())
	case errors.As(err, &timeout) && timeout.Timeout():
		return "timeout"
	}
	msg := err.Error()
	if len(msg) > 80 {
		msg = msg[:80]
	}
	return msg
}

// MetaContextualizer is the store meta key (MetaStore) under which an
// Engine records, at its first commit, the contextualizer its documents
// were committed with, as the JSON of a ContextualizerIdentity: every path
// that commits (index, serve's jobs, a worker) records it the same way.
const MetaContextualizer = "contextualizer"

// ContextualizerIdentity is what a store records of the contextualizer its
// documents were last committed with.
type ContextualizerIdentity struct {
	// Name is the contextualizer's Name ("none" without one).
	Name string `json:"name"`
	// Fingerprint is a Fingerprinter's fingerprint.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Settings are a SettingsRecorder's (an LLM contextualizer's model,
	// endpoint, budget and template); the key is "llm" for the stores
	// written before the Engine recorded it.
	Settings json.RawMessage `json:"llm,omitempty"`
}

// SettingsRecorder is implemented by a Contextualizer whose settings beyond
// its name and fingerprint are worth recording with the store, so that a
// later run can say what changed.
type SettingsRecorder interface {
	RecordedSettings() (json.RawMessage, error)
}

// IdentifyContextualizer returns the identity the Engine records of cz
// (nil: "none").
func IdentifyContextualizer(cz Contextualizer) (ContextualizerIdentity, error) {
	id := ContextualizerIdentity{Name: "none"}
	if cz == nil {
		return id, nil
	}
	id.Name = cz.Name()
	if f, ok := cz.(Fingerprinter); ok {
		id.Fingerprint = f.Fingerprint()
	}
	if s, ok := cz.(SettingsRecorder); ok {
		var err error
		if id.Settings, err = s.RecordedSettings(); err != nil {
			return id, fmt.Errorf("contextualizer %s: settings: %w", id.Name, err)
		}
	}
	return id, nil
}

// OperationUnanswered is the usage operation of a call recorded before it
// was sent (AttemptRecorder) whose answer was never recorded: the process
// stopped, or the call was cut short, while the provider may have billed
// it. Its InputTokens are the prompt's estimate.
const OperationUnanswered = "context-unanswered"

// AttemptRecorder is implemented by a UsageRecorder that records a call
// before it is sent and completes that record when the answer comes, so
// that a process killed in between leaves every call a provider may bill
// accounted for (as OperationUnanswered).
type AttemptRecorder interface {
	// BeginUsage records u (OperationUnanswered) and returns its id.
	BeginUsage(ctx context.Context, u Usage) (int64, error)
	// FinishUsage replaces the record id with u.
	FinishUsage(ctx context.Context, id int64, u Usage) error
}
