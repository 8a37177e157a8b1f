package voyage

import (
	"net/http"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
)

// Defaults and API limits.
const (
	DefaultBaseURL        = "https://api.voyageai.com"
	DefaultEmbedModel     = "voyage-3.5"
	DefaultRerankModel    = "rerank-2.5"
	DefaultContextModel   = "voyage-context-3"
	DefaultTimeout        = 2 * time.Minute
	DefaultMaxIdleConns   = 16
	DefaultMaxInputTokens = 32000
	// MaxBatchTexts is the most texts one /v1/embeddings request may carry
	// (and the most documents one /v1/rerank request may carry).
	MaxBatchTexts = 1000
	// MaxContextChunks is the most chunks, over all documents, one
	// /v1/contextualizedembeddings request may carry.
	MaxContextChunks = 16000
	// ProviderName is Usage.Provider and the prefix of Name().
	ProviderName = "voyage"
)

// ModelBatchTokens is the most tokens one embeddings request may carry for
// the model, as Voyage documents it: 1M for the lite models, 320K for
// voyage-3.5/voyage-4/voyage-2, 120K for the others (and for unknown
// models, the safe choice).
func ModelBatchTokens(model string) int {
	switch model {
	case "voyage-3.5-lite", "voyage-4-lite":
		return 1000000
	case "voyage-3.5", "voyage-4", "voyage-2":
		return 320000
	}
	return 120000
}

// ModelMaxInputTokens is the context length of an embedding or rerank model
// in tokens (for rerankers: query plus one document).
func ModelMaxInputTokens(model string) int {
	switch model {
	case "voyage-2":
		return 4000
	case "voyage-finance-2", "voyage-law-2", "voyage-code-2", "voyage-large-2", "voyage-large-2-instruct":
		return 16000
	case "rerank-2":
		return 16000
	case "rerank-2-lite", "rerank-1":
		return 8000
	case "rerank-lite-1":
		return 4000
	}
	return DefaultMaxInputTokens
}

// Options configures an Embedder, a Reranker or a ContextEmbedder. Reading
// VOYAGE_API_KEY from the environment is the caller's job.
type Options struct {
	// APIKey is sent as "Authorization: Bearer". Required; never printed.
	APIKey string
	// BaseURL defaults to DefaultBaseURL.
	BaseURL string
	// Model defaults to DefaultEmbedModel (NewEmbedder), DefaultRerankModel
	// (NewReranker) or DefaultContextModel (NewContextEmbedder).
	Model string
	// Dimensions is sent as output_dimension (256, 512, 1024 or 2048 for
	// the models that support it); 0 is the model's default.
	Dimensions int
	// MaxInputTokens bounds one text (estimated tokens, see
	// EstimateTokens); 0 is ModelMaxInputTokens. A longer text is an error
	// wrapping situate.ErrPromptTooLarge, never truncated.
	MaxInputTokens int
	// BatchSize is the most texts per request: 0 or more than MaxBatchTexts
	// means MaxBatchTexts.
	BatchSize int
	// BatchTokens is the most estimated tokens per request; 0 is
	// ModelBatchTokens.
	BatchTokens int
	// HTTPClient defaults to a client keeping DefaultMaxIdleConns idle
	// connections.
	HTTPClient *http.Client
	// Timeout bounds one request; defaults to DefaultTimeout.
	Timeout time.Duration
	// Usage, if set, receives one record per request.
	Usage driver.UsageRecorder
}

// String redacts the API key.
func (o Options) String() string { return o.settings().Describe("voyage.Options") }

// GoString redacts the API key for %#v.
func (o Options) GoString() string { return o.String() }

// Client is the HTTP part of Embedder, Reranker and ContextEmbedder: the core the hosted
// adapters share (apiclient.Hosted), with this provider's defaults,
// authentication and error format.
type Client = apiclient.Hosted

func (o Options) settings() apiclient.Settings {
	return apiclient.Settings{APIKey: o.APIKey, BaseURL: o.BaseURL, Model: o.Model, Dimensions: o.Dimensions,
		MaxInputTokens: o.MaxInputTokens, BatchSize: o.BatchSize, BatchTokens: o.BatchTokens, Timeout: o.Timeout,
		HTTPClient: o.HTTPClient, Usage: o.Usage}
}

func newClient(opts Options, defaultModel string) (*Client, error) {
	return opts.settings().Hosted(apiclient.HostedDefaults{Provider: ProviderName,
		KeyEnv: "VOYAGE_API_KEY", BaseURL: DefaultBaseURL, Model: defaultModel, MaxInput: ModelMaxInputTokens,
		BatchTokens: ModelBatchTokens,
		MaxBatch:    MaxBatchTexts, Timeout: DefaultTimeout, MaxIdle: DefaultMaxIdleConns, Response: responseError, TooLarge: batchTooLarge,
		Auth: func(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} }})
}

// EstimateTokens estimates a text's tokens without a tokenizer: a token
// per 4 ASCII bytes, per Han/kana/Hangul character, and per 2 other
// characters (Cyrillic, accented Latin...). It errs on the high side for
// the languages situate serves.
func EstimateTokens(s string) int { return apiclient.EstimateTokens(s) }
