package tei

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
	"github.com/situate/situate/internal/batch"
)

// Defaults.
const (
	DefaultTimeout      = 2 * time.Minute
	DefaultMaxIdleConns = 16
	// DefaultBatchSize is TEI's default --max-client-batch-size, used when
	// the batch size is neither configured nor learned from /info.
	DefaultBatchSize = 32
	// ProviderName is Usage.Provider and the prefix of Name().
	ProviderName = "tei"
)

// Options configures an Embedder or a Reranker for one TEI server.
type Options struct {
	// BaseURL of the server, e.g. http://localhost:8080. Required.
	BaseURL string
	// APIKey, if the server runs with --api-key, is sent as
	// "Authorization: Bearer". Never printed.
	APIKey string
	// Model is the served model id. Empty reads it from GET /info; if set
	// and /info is read, they must agree.
	Model string
	// MaxInputTokens bounds one text (estimated tokens, see
	// EstimateTokens); 0 reads max_input_length from /info. A longer text
	// is an error wrapping situate.ErrPromptTooLarge, never truncated.
	MaxInputTokens int
	// BatchSize is the most texts per request; 0 reads
	// max_client_batch_size from /info. A 413 naming a smaller limit lowers
	// it for the rest of the client's life.
	BatchSize int
	// NoNormalize sends normalize:false (TEI normalizes by default).
	NoNormalize bool
	// QueryPrefix and DocumentPrefix are prepended to queries and documents
	// (e5: "query: " and "passage: "); they count toward MaxInputTokens.
	QueryPrefix, DocumentPrefix string
	// QueryPromptName and DocumentPromptName, if set, are sent as
	// prompt_name (prompts from the model's sentence-transformers config).
	QueryPromptName, DocumentPromptName string
	// RawScores asks /rerank for raw logits instead of sigmoid scores.
	RawScores bool
	// HTTPClient defaults to a client keeping DefaultMaxIdleConns idle
	// connections.
	HTTPClient *http.Client
	// Timeout bounds one request; defaults to DefaultTimeout.
	Timeout time.Duration
	// Usage, if set, receives one record per request.
	Usage driver.UsageRecorder
}

// String redacts the API key.
func (o Options) String() string {
	key := "<unset>"
	if o.APIKey != "" {
		key = "<redacted>"
	}
	return fmt.Sprintf("tei.Options{APIKey:%s BaseURL:%q Model:%q MaxInputTokens:%d BatchSize:%d NoNormalize:%v Timeout:%s}",
		key, o.BaseURL, o.Model, o.MaxInputTokens, o.BatchSize, o.NoNormalize, o.Timeout)
}

// GoString redacts the API key for %#v.
func (o Options) GoString() string { return o.String() }

// Info is what GET /info reports (the fields situate uses).
type Info struct {
	ModelID    string `json:"model_id"`
	ModelDtype string `json:"model_dtype"`
	// ModelType holds one key: "embedding", "reranker" or "classifier".
	ModelType          map[string]json.RawMessage `json:"model_type"`
	MaxInputLength     int                        `json:"max_input_length"`
	MaxBatchTokens     int                        `json:"max_batch_tokens"`
	MaxClientBatchSize int                        `json:"max_client_batch_size"`
	AutoTruncate       bool                       `json:"auto_truncate"`
	Version            string                     `json:"version"`
}

// Kind is the model type: "embedding", "reranker", "classifier" or "".
func (i Info) Kind() string {
	for k := range i.ModelType {
		return k
	}
	return ""
}

// Client is the HTTP part shared by Embedder and Reranker: the core the
// hosted adapters share (apiclient.Hosted: authenticated requests, errors,
// usage records) with TEI's differences: its key is optional (a local
// server has none), its model and limits come from GET /info when not
// configured, and its batch size adapts to the server's 413s (Embedder).
type Client struct {
	*apiclient.Hosted
	opts Options
}

func newClient(ctx context.Context, opts Options, kind string) (*Client, int, error) {
	bad := func(field, msg string, args ...any) error {
		return fmt.Errorf("tei: options: %s: %s: %w", field, fmt.Sprintf(msg, args...), driver.ErrInvalid)
	}
	h, err := apiclient.Settings{APIKey: opts.APIKey, BaseURL: opts.BaseURL, Model: opts.Model, MaxInputTokens: opts.MaxInputTokens,
		BatchSize: opts.BatchSize, Timeout: opts.Timeout, HTTPClient: opts.HTTPClient, Usage: opts.Usage}.Hosted(apiclient.HostedDefaults{
		Provider: ProviderName, KeyOptional: true, MaxBatch: math.MaxInt, Timeout: DefaultTimeout, MaxIdle: DefaultMaxIdleConns,
		Response: responseError, Auth: func(key string) http.Header {
			if key == "" {
				return nil
			}
			return http.Header{"Authorization": {"Bearer " + key}}
		}})
	if err != nil {
		return nil, 0, err
	}
	c := &Client{Hosted: h, opts: opts}
	batch := opts.BatchSize
	if c.Model == "" || c.MaxInput == 0 || batch == 0 {
		info, err := c.Info(ctx)
		if err != nil {
			return nil, 0, err
		}
		if k := info.Kind(); k != kind {
			return nil, 0, fmt.Errorf("tei: %s serves %s, model_type %q, want %q: %w", c.Base, info.ModelID, k, kind, driver.ErrInvalid)
		}
		if c.Model != "" && c.Model != info.ModelID {
			return nil, 0, bad("Model", "%q, but %s serves %q", c.Model, c.Base, info.ModelID)
		}
		c.Model = info.ModelID
		if c.MaxInput == 0 {
			c.MaxInput = info.MaxInputLength
		}
		if batch == 0 {
			batch = info.MaxClientBatchSize
		}
	}
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	if c.MaxInput <= 0 {
		return nil, 0, bad("MaxInputTokens", "unknown: /info reports max_input_length %d", c.MaxInput)
	}
	return c, batch, nil
}

// Info reads GET /info.
func (c *Client) Info(ctx context.Context) (Info, error) {
	var info Info
	_, err := c.Call(ctx, "info", http.MethodGet, "/info", batch.Ref{}, nil, &info)
	if err == nil && info.ModelID == "" {
		err = c.Errs().BadResponse("info", batch.Ref{}, false, "no model_id")
	}
	return info, err
}

// computeTokens reads TEI's x-compute-tokens header (0 if absent).
func computeTokens(h http.Header) int {
	n, _ := strconv.Atoi(h.Get("x-compute-tokens"))
	return n
}

// EstimateTokens estimates a text's tokens without the model's tokenizer:
// a token per 4 ASCII bytes, per Han/kana/Hangul character, and per 2
// other characters. BERT-style vocabularies split rare words finely, so
// MaxInputTokens leaves a margin below max_input_length when the corpus is
// unusual; the server still refuses (truncate:false) what does not fit.
func EstimateTokens(s string) int { return apiclient.EstimateTokens(s) }
