package cohere

import (
	"net/http"
	"strings"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
)

// Defaults and API limits.
const (
	DefaultBaseURL      = "https://api.cohere.com"
	DefaultEmbedModel   = "embed-v4.0"
	DefaultRerankModel  = "rerank-v3.5"
	DefaultTimeout      = 2 * time.Minute
	DefaultMaxIdleConns = 16
	// MaxBatchTexts is the most texts one /v2/embed request may carry.
	MaxBatchTexts = 96
	// MaxRerankDocuments is the most documents situate sends in one
	// /v2/rerank request (Cohere's recommended maximum).
	MaxRerankDocuments = 1000
	// ProviderName is Usage.Provider and the prefix of Name().
	ProviderName = "cohere"
)

// ModelMaxInputTokens is the context length of a Cohere model in tokens:
// 128K for embed-v4.0, 512 for the v3 embedding models, 4096 (query plus
// document) for the rerankers.
func ModelMaxInputTokens(model string) int {
	switch {
	case model == "embed-v4.0":
		return 128000
	case strings.HasPrefix(model, "embed-"):
		return 512
	case strings.HasPrefix(model, "rerank-"):
		return 4096
	}
	return 512
}

// Options configures an Embedder or a Reranker. Reading CO_API_KEY from the
// environment is the caller's job.
type Options struct {
	// APIKey is sent as "Authorization: Bearer". Required; never printed.
	APIKey string
	// BaseURL defaults to DefaultBaseURL.
	BaseURL string
	// Model defaults to DefaultEmbedModel (NewEmbedder) or
	// DefaultRerankModel (NewReranker).
	Model string
	// Dimensions is sent as output_dimension (256, 512, 1024 or 1536 for
	// embed-v4.0); 0 is the model's default.
	Dimensions int
	// MaxInputTokens bounds one text (estimated tokens, see
	// EstimateTokens); 0 is ModelMaxInputTokens. A longer text is an error
	// wrapping situate.ErrPromptTooLarge, never truncated.
	MaxInputTokens int
	// BatchSize is the most texts per request: 0 or more than MaxBatchTexts
	// (MaxRerankDocuments for a reranker) means that maximum.
	BatchSize int
	// BatchTokens is the most estimated tokens per request; 0 is no limit
	// (Cohere documents none besides the text count).
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
func (o Options) String() string { return o.settings().Describe("cohere.Options") }

// GoString redacts the API key for %#v.
func (o Options) GoString() string { return o.String() }

// Client is the HTTP part of Embedder and Reranker: the core the hosted
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
		KeyEnv: "CO_API_KEY", BaseURL: DefaultBaseURL, Model: defaultModel, MaxInput: ModelMaxInputTokens,
		MaxBatch: MaxBatchTexts, Timeout: DefaultTimeout, MaxIdle: DefaultMaxIdleConns, Response: responseError, TooLarge: batchTooLarge,
		Auth: func(key string) http.Header {
			return http.Header{"Authorization": {"Bearer " + key}, "X-Client-Name": {"situate"}}
		}})
}

// EstimateTokens estimates a text's tokens without a tokenizer: a token
// per 4 ASCII bytes, per Han/kana/Hangul character, and per 2 other
// characters (Cyrillic, accented Latin...). It errs on the high side for
// the languages situate serves.
func EstimateTokens(s string) int { return apiclient.EstimateTokens(s) }
