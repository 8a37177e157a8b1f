package gemini

import (
	"net/http"
	"strings"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
)

// Defaults and API limits.
const (
	DefaultBaseURL      = "https://generativelanguage.googleapis.com"
	DefaultEmbedModel   = "gemini-embedding-001"
	DefaultTimeout      = 2 * time.Minute
	DefaultMaxIdleConns = 16
	// MaxBatchTexts is the most requests one batchEmbedContents call may
	// carry.
	MaxBatchTexts = 100
	// DefaultMaxInputTokens is gemini-embedding-001's input limit.
	DefaultMaxInputTokens = 2048
	// ProviderName is Usage.Provider and the prefix of Name().
	ProviderName = "gemini"
)

// ModelMaxInputTokens is the input limit of a Gemini embedding model:
// 2048 tokens for gemini-embedding-001 and text-embedding-004.
func ModelMaxInputTokens(model string) int { return DefaultMaxInputTokens }

// Options configures an Embedder. Reading GEMINI_API_KEY from the
// environment is the caller's job.
type Options struct {
	// APIKey is sent as x-goog-api-key. Required; never printed.
	APIKey string
	// BaseURL defaults to DefaultBaseURL.
	BaseURL string
	// Model defaults to DefaultEmbedModel.
	Model string
	// Dimensions is sent as outputDimensionality (128 to 3072 for
	// gemini-embedding-001; Google recommends 768, 1536 or 3072); 0 is the
	// model's default (3072).
	Dimensions int
	// Normalize L2-normalizes every vector. gemini-embedding-001 returns
	// unit vectors only at 3072 dimensions; Google advises normalizing
	// smaller ones.
	Normalize bool
	// MaxInputTokens bounds one text (estimated tokens, see
	// EstimateTokens); 0 is ModelMaxInputTokens. A longer text is an error
	// wrapping situate.ErrPromptTooLarge, never truncated.
	MaxInputTokens int
	// BatchSize is the most texts per request: 0 or more than MaxBatchTexts
	// means MaxBatchTexts.
	BatchSize int
	// BatchTokens is the most estimated tokens per request; 0 is no limit.
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
func (o Options) String() string { return o.settings().Describe("gemini.Options") }

// GoString redacts the API key for %#v.
func (o Options) GoString() string { return o.String() }

// Client is the HTTP part of Embedder: the core the hosted
// adapters share (apiclient.Hosted), with this provider's defaults,
// authentication and error format.
type Client = apiclient.Hosted

func (o Options) settings() apiclient.Settings {
	return apiclient.Settings{APIKey: o.APIKey, BaseURL: o.BaseURL, Model: o.Model, Dimensions: o.Dimensions,
		MaxInputTokens: o.MaxInputTokens, BatchSize: o.BatchSize, BatchTokens: o.BatchTokens, Timeout: o.Timeout,
		HTTPClient: o.HTTPClient, Usage: o.Usage}
}

func newClient(opts Options, defaultModel string) (*Client, error) {
	s := opts.settings()
	s.Model = strings.TrimPrefix(s.Model, "models/")
	return s.Hosted(apiclient.HostedDefaults{Provider: ProviderName,
		KeyEnv: "GEMINI_API_KEY", BaseURL: DefaultBaseURL, Model: defaultModel, MaxInput: ModelMaxInputTokens,
		MaxBatch: MaxBatchTexts, Timeout: DefaultTimeout, MaxIdle: DefaultMaxIdleConns, Response: responseError, TooLarge: batchTooLarge,
		Auth: func(key string) http.Header { return http.Header{"X-Goog-Api-Key": {key}} }})
}

// EstimateTokens estimates a text's tokens without a tokenizer: a token
// per 4 ASCII bytes, per Han/kana/Hangul character, and per 2 other
// characters (Cyrillic, accented Latin...). It errs on the high side for
// the languages situate serves.
func EstimateTokens(s string) int { return apiclient.EstimateTokens(s) }
