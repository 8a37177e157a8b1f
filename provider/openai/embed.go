package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Defaults of EmbedOptions.
const (
	DefaultBatchSize = 64
	// MaxBatchSize is OpenAI's limit of inputs per /embeddings request.
	MaxBatchSize = 2048
)

// EmbedOptions configures an Embedder.
type EmbedOptions struct {
	APIKey string
	// BaseURL is the API root including /v1 (default DefaultBaseURL).
	BaseURL string
	// Model is sent as "model". Required except for FlavorLlamaCpp.
	Model string
	// Flavor as in Options; empty is openai for api.openai.com, else generic.
	Flavor string
	// Dimensions, if > 0, is sent as "dimensions" (text-embedding-3-*
	// shorten their vectors) and every vector must have that length.
	Dimensions int
	// BatchSize is the number of texts per request (default
	// DefaultBatchSize, at most MaxBatchSize).
	BatchSize int
	// MaxInputTokens, if > 0, rejects (never truncates) a text whose
	// estimated size exceeds it, before any request: OpenAI's models take
	// 8191 tokens; a llama.cpp server takes its batch size (-b / -ub).
	// The estimate is UTF-8 bytes / 3, rounded up: at least the token count
	// of English, German, Spanish, Russian and Chinese with common BPE
	// vocabularies.
	MaxInputTokens int
	// QueryPrefix and DocumentPrefix are prepended to queries and indexed
	// texts for models trained with them ("query: " / "passage: " for E5,
	// "search_query: " / "search_document: " for nomic-embed).
	QueryPrefix, DocumentPrefix string
	ExtraHeaders                http.Header
	HTTPClient                  *http.Client
	Timeout                     time.Duration
	// Usage receives one record per request (may be nil).
	Usage driver.UsageRecorder
}

// Embedder calls POST /embeddings. It implements situate.Embedder and is
// safe for concurrent use.
type Embedder struct {
	*core
	dims      int
	batch     int
	maxTokens int
	qPrefix   string
	dPrefix   string
	usage     driver.UsageRecorder
}

var _ driver.Embedder = (*Embedder)(nil)

// NewEmbedder validates opts and returns an Embedder.
func NewEmbedder(opts EmbedOptions) (*Embedder, error) {
	c, err := newCore("embed", opts.Flavor, opts.APIKey, opts.BaseURL, opts.Model, opts.HTTPClient, opts.Timeout, opts.ExtraHeaders)
	if err != nil {
		return nil, err
	}
	e := &Embedder{core: c, dims: opts.Dimensions, batch: opts.BatchSize, maxTokens: opts.MaxInputTokens,
		qPrefix: opts.QueryPrefix, dPrefix: opts.DocumentPrefix, usage: opts.Usage}
	bad := func(field string, v int, want string) error {
		return fmt.Errorf("openai: embed options: %s %d: %s: %w", field, v, want, driver.ErrInvalid)
	}
	switch {
	case e.dims < 0:
		return nil, bad("Dimensions", e.dims, "must be >= 0")
	case e.batch < 0 || e.batch > MaxBatchSize:
		return nil, bad("BatchSize", e.batch, fmt.Sprintf("must be in [0, %d]", MaxBatchSize))
	case e.maxTokens < 0:
		return nil, bad("MaxInputTokens", e.maxTokens, "must be >= 0")
	}
	if e.batch == 0 {
		e.batch = DefaultBatchSize
	}
	return e, nil
}

// Name is "<flavor>:<model>".
func (e *Embedder) Name() string {
	m := e.model
	if m == "" {
		m = "local"
	}
	return e.flavor + ":" + m
}

// EstimateTokens is the conservative size estimate MaxInputTokens is
// checked against: UTF-8 bytes / 3, rounded up.
func EstimateTokens(text string) int { return (len(text) + 2) / 3 }

// Embed returns one vector per text, in order, in batches of BatchSize.
// Every answer is checked: one vector per input (matched by index), all of
// one dimension (Dimensions if set), no NaN or infinity. Errors name the
// provider, model and batch.
func (e *Embedder) Embed(ctx context.Context, texts []string, input driver.InputType) ([][]float32, error) {
	prefix := e.dPrefix
	if input == driver.InputQuery {
		prefix = e.qPrefix
	}
	for i, t := range texts {
		if t == "" {
			return nil, fmt.Errorf("openai: embed %s: texts[%d] is empty: %w", e.Name(), i, driver.ErrInvalid)
		}
		if !utf8.ValidString(t) {
			return nil, fmt.Errorf("openai: embed %s: texts[%d] is not valid UTF-8: %w", e.Name(), i, driver.ErrInvalid)
		}
		if e.maxTokens > 0 {
			if n := EstimateTokens(prefix + t); n > e.maxTokens {
				return nil, fmt.Errorf("openai: embed %s: texts[%d] has about %d tokens, more than MaxInputTokens %d (split it; it is never truncated): %w",
					e.Name(), i, n, e.maxTokens, driver.ErrPromptTooLarge)
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
	body := map[string]any{"input": in, "encoding_format": "float"}
	if e.model != "" {
		body["model"] = e.model
	}
	if e.dims > 0 {
		body["dimensions"] = e.dims
	}
	var resp struct {
		Data []struct {
			Index     *int              `json:"index"`
			Embedding []json.RawMessage `json:"embedding"`
		} `json:"data"`
		Usage *struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	start := time.Now()
	err := e.doJSON(ctx, op, http.MethodPost, e.base.JoinPath("/embeddings").String(), body, &resp)
	u := driver.Usage{Time: start, Provider: e.flavor, Model: e.Name()[len(e.flavor)+1:], Operation: "embed", Latency: time.Since(start)}
	if resp.Usage != nil {
		u.InputTokens = resp.Usage.PromptTokens
	}
	if err != nil {
		if oe, ok := err.(*Error); ok {
			oe.Batch, oe.First, oe.Last = ref.N, ref.First, ref.Last
		}
		u.Error = err.Error()
	}
	if e.usage != nil {
		if rerr := e.usage.RecordUsage(context.WithoutCancel(ctx), u); rerr != nil && err == nil {
			err = fmt.Errorf("openai: embed %s batch %d: record usage: %w", e.Name(), ref.N, rerr)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(resp.Data) != len(texts) {
		return nil, e.badResponse(op, ref, "%d vectors for %d texts", len(resp.Data), len(texts))
	}
	raws := make([][]json.RawMessage, len(texts))
	for i, d := range resp.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= len(texts) || raws[idx] != nil {
			return nil, e.badResponse(op, ref, "data[%d]: index %d is out of range or repeated", i, idx)
		}
		raws[idx] = d.Embedding
		if raws[idx] == nil {
			raws[idx] = []json.RawMessage{}
		}
	}
	out, problem := batch.DecodeVectors(raws, dim)
	if problem != "" {
		return nil, e.badResponse(op, ref, "%s", problem)
	}
	return out, nil
}
