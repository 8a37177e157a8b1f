package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// DefaultBatchSize is the number of texts per /api/embed request.
const DefaultBatchSize = 32

// EmbedOptions configures an Embedder.
type EmbedOptions struct {
	// BaseURL is the server (see BaseURL); Model the embedding model
	// ("nomic-embed-text", "bge-m3"). Model is required.
	BaseURL, Model string
	// Dimensions, if > 0, is sent as "dimensions" and every vector must
	// have that length.
	Dimensions int
	// BatchSize defaults to DefaultBatchSize.
	BatchSize int
	// NumCtx, if > 0, is sent as options.num_ctx: the longest input the
	// model takes. Inputs estimated above it are refused before sending,
	// and "truncate": false makes Ollama refuse the rest instead of
	// cutting them silently.
	NumCtx int
	// QueryPrefix and DocumentPrefix are prepended to queries and indexed
	// texts ("search_query: " / "search_document: " for nomic-embed-text).
	QueryPrefix, DocumentPrefix string
	KeepAlive                   string
	EstimateTokens              func(string) int
	HTTPClient                  *http.Client
	Timeout                     time.Duration
	Headers                     http.Header
	// Usage receives one record per request (may be nil).
	Usage driver.UsageRecorder
}

// Embedder calls POST /api/embed. It implements situate.Embedder.
type Embedder struct {
	c       *Client
	dims    int
	batch   int
	numCtx  int
	qPrefix string
	dPrefix string
	usage   driver.UsageRecorder
}

var _ driver.Embedder = (*Embedder)(nil)

// NewEmbedder validates opts and returns an Embedder.
func NewEmbedder(opts EmbedOptions) (*Embedder, error) {
	c, err := New(Options{BaseURL: opts.BaseURL, Model: opts.Model, KeepAlive: opts.KeepAlive,
		EstimateTokens: opts.EstimateTokens, HTTPClient: opts.HTTPClient, Timeout: opts.Timeout, Headers: opts.Headers})
	if err != nil {
		return nil, fmt.Errorf("ollama: embed %w", err)
	}
	e := &Embedder{c: c, dims: opts.Dimensions, batch: opts.BatchSize, numCtx: opts.NumCtx,
		qPrefix: opts.QueryPrefix, dPrefix: opts.DocumentPrefix, usage: opts.Usage}
	if e.dims < 0 || e.batch < 0 || e.numCtx < 0 {
		return nil, fmt.Errorf("ollama: embed options: Dimensions %d, BatchSize %d, NumCtx %d: must be >= 0: %w", e.dims, e.batch, e.numCtx, driver.ErrInvalid)
	}
	if e.batch == 0 {
		e.batch = DefaultBatchSize
	}
	return e, nil
}

// Name is "ollama:<model>".
func (e *Embedder) Name() string { return e.c.Name() }

// Embed returns one vector per text, in order, checking count, dimension
// and finiteness. Errors name the model and batch.
func (e *Embedder) Embed(ctx context.Context, texts []string, input driver.InputType) ([][]float32, error) {
	prefix := e.dPrefix
	if input == driver.InputQuery {
		prefix = e.qPrefix
	}
	for i, t := range texts {
		if t == "" {
			return nil, fmt.Errorf("ollama: embed %s: texts[%d] is empty: %w", e.c.model, i, driver.ErrInvalid)
		}
		if e.numCtx > 0 {
			if n := e.c.estimate(prefix + t); n > e.numCtx {
				return nil, fmt.Errorf("ollama: embed %s: texts[%d] has about %d tokens, more than NumCtx %d (split it; it is never truncated): %w",
					e.c.model, i, n, e.numCtx, driver.ErrPromptTooLarge)
			}
		}
	}
	dim := e.dims
	return batch.Sequential(ctx, texts, e.batch, func(ctx context.Context, texts []string, b batch.Ref) ([][]float32, error) {
		return e.embedBatch(ctx, texts, prefix, b, &dim)
	})
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string, prefix string, ref batch.Ref, dim *int) ([][]float32, error) {
	const op = "embed"
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = prefix + t
	}
	body := map[string]any{"model": e.c.model, "input": in, "truncate": false, "keep_alive": e.c.keepAlive}
	if e.dims > 0 {
		body["dimensions"] = e.dims
	}
	if e.numCtx > 0 {
		body["options"] = map[string]any{"num_ctx": e.numCtx}
	}
	var resp struct {
		Embeddings      [][]json.RawMessage `json:"embeddings"`
		PromptEvalCount int                 `json:"prompt_eval_count"`
	}
	start := time.Now()
	err := e.c.doJSON(ctx, op, "/api/embed", body, &resp)
	if oe, ok := err.(*Error); ok {
		oe.Batch, oe.First, oe.Last = ref.N, ref.First, ref.Last
	}
	u := driver.Usage{Time: start, Provider: ProviderName, Model: e.c.model, Operation: "embed",
		InputTokens: resp.PromptEvalCount, Latency: time.Since(start)}
	if err != nil {
		u.Error = err.Error()
	}
	if e.usage != nil {
		if rerr := e.usage.RecordUsage(context.WithoutCancel(ctx), u); rerr != nil && err == nil {
			err = fmt.Errorf("ollama: embed %s batch %d: record usage: %w", e.c.model, ref.N, rerr)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, e.c.badResponse(op, ref, "%d vectors for %d texts", len(resp.Embeddings), len(texts))
	}
	out, problem := batch.DecodeVectors(resp.Embeddings, dim)
	if problem != "" {
		return nil, e.c.badResponse(op, ref, "%s", problem)
	}
	return out, nil
}
