package anthropic

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
)

// Defaults applied by New.
const (
	DefaultBaseURL       = "https://api.anthropic.com"
	DefaultModel         = "claude-haiku-4-5"
	DefaultMaxTokens     = 512
	DefaultCacheTTL      = "5m"
	DefaultTimeout       = 5 * time.Minute
	DefaultContextWindow = 200000
	// DefaultMaxIdleConns is the idle connections per host kept by the
	// client New makes when Options.HTTPClient is nil.
	DefaultMaxIdleConns = 64
	// APIVersion is sent as the anthropic-version header.
	APIVersion = "2023-06-01"
	// ProviderName is Usage.Provider and the prefix of Name().
	ProviderName = "anthropic"
)

// Options configures a Client. Reading ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL from the environment is the caller's job.
type Options struct {
	// APIKey is sent as x-api-key. Required. Never logged: Options.String
	// redacts it.
	APIKey string
	// BaseURL defaults to DefaultBaseURL.
	BaseURL string
	// Model defaults to DefaultModel.
	Model string
	// MaxTokens is used when Prompt.MaxTokens is 0; defaults to DefaultMaxTokens.
	MaxTokens int
	// CacheTTL of the document prefix: "5m" (default) or "1h". Batches
	// always use "1h".
	CacheTTL string
	// HTTPClient defaults to a client without its own timeout that keeps
	// DefaultMaxIdleConns idle connections.
	HTTPClient *http.Client
	// Timeout bounds one call from request to the end of the stream;
	// defaults to DefaultTimeout. Its expiry is a retryable error.
	Timeout time.Duration
	// ContextWindow in tokens; 0 means the model's default (ModelContextWindow).
	ContextWindow int
	// ExtraHeaders are added to every request (anthropic-beta, ...).
	ExtraHeaders http.Header
	// Price overrides the built-in price table (DefaultPrice) for CostUSD.
	Price *Price
}

// String redacts the API key so Options can be printed or logged.
func (o Options) String() string {
	key := "<unset>"
	if o.APIKey != "" {
		key = "<redacted>"
	}
	return fmt.Sprintf("anthropic.Options{APIKey:%s BaseURL:%q Model:%q MaxTokens:%d CacheTTL:%q Timeout:%s ContextWindow:%d}",
		key, o.BaseURL, o.Model, o.MaxTokens, o.CacheTTL, o.Timeout, o.ContextWindow)
}

// GoString redacts the API key for %#v.
func (o Options) GoString() string { return o.String() }

// Client calls the Anthropic Messages API. It is safe for concurrent use.
type Client struct {
	apiKey    string
	base      *url.URL
	model     string
	maxTokens int
	ttl       string
	http      *http.Client
	timeout   time.Duration
	window    int
	headers   http.Header
	price     Price
	hasPrice  bool
}

var (
	_ driver.LLM             = (*Client)(nil)
	_ driver.TokenCounter    = (*Client)(nil)
	_ driver.ContextWindower = (*Client)(nil)
)

// New validates opts and returns a Client.
func New(opts Options) (*Client, error) {
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, fmt.Errorf("anthropic: options: APIKey: empty (set ANTHROPIC_API_KEY): %w", driver.ErrInvalid)
	}
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("anthropic: options: BaseURL %q: want http(s)://host[/path]: %w", base, driver.ErrInvalid)
	}
	c := &Client{apiKey: opts.APIKey, base: u, model: opts.Model, maxTokens: opts.MaxTokens,
		ttl: opts.CacheTTL, http: opts.HTTPClient, timeout: opts.Timeout, window: opts.ContextWindow,
		headers: opts.ExtraHeaders.Clone()}
	if c.model == "" {
		c.model = DefaultModel
	}
	switch {
	case c.maxTokens < 0:
		return nil, fmt.Errorf("anthropic: options: MaxTokens %d: must be >= 0: %w", c.maxTokens, driver.ErrInvalid)
	case c.maxTokens == 0:
		c.maxTokens = DefaultMaxTokens
	}
	switch c.ttl {
	case "":
		c.ttl = DefaultCacheTTL
	case "5m", "1h":
	default:
		return nil, fmt.Errorf("anthropic: options: CacheTTL %q: want \"5m\" or \"1h\": %w", c.ttl, driver.ErrInvalid)
	}
	switch {
	case c.timeout < 0:
		return nil, fmt.Errorf("anthropic: options: Timeout %s: must be >= 0: %w", c.timeout, driver.ErrInvalid)
	case c.timeout == 0:
		c.timeout = DefaultTimeout
	}
	switch {
	case c.window < 0:
		return nil, fmt.Errorf("anthropic: options: ContextWindow %d: must be >= 0: %w", c.window, driver.ErrInvalid)
	case c.window == 0:
		c.window = ModelContextWindow(c.model, c.headers)
	}
	if c.http == nil {
		// The default transport keeps 2 idle connections per host; a
		// contextualizer runs dozens of calls at once.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = DefaultMaxIdleConns
		c.http = &http.Client{Transport: tr}
	}
	if opts.Price != nil {
		c.price, c.hasPrice = *opts.Price, true
	} else {
		c.price, c.hasPrice = DefaultPrice(c.model)
	}
	return c, nil
}

// Name is "anthropic:<model>".
func (c *Client) Name() string { return ProviderName + ":" + c.model }

// Model is the configured model id.
func (c *Client) Model() string { return c.model }

// ContextWindow returns the configured or model-default context window.
func (c *Client) ContextWindow(context.Context) (int, error) { return c.window, nil }

// ModelContextWindow is the context window of a Claude model in tokens:
// 200,000 for every current model, 1,000,000 for Sonnet 4/4.5 when the
// context-1m beta header is among extra.
func ModelContextWindow(model string, extra http.Header) int {
	if strings.HasPrefix(model, "claude-sonnet-4") {
		for _, v := range extra.Values("anthropic-beta") {
			if strings.Contains(v, "context-1m") {
				return 1000000
			}
		}
	}
	return DefaultContextWindow
}

// CountTokens counts text as one user message with POST
// /v1/messages/count_tokens. The count includes the few tokens of message
// framing, which is what a prompt of that text would occupy.
func (c *Client) CountTokens(ctx context.Context, text string) (int, error) {
	if text == "" {
		return 0, nil
	}
	body := map[string]any{
		"model":    c.model,
		"messages": []wireMessage{{Role: "user", Content: []wireBlock{{Type: "text", Text: text}}}},
	}
	var out struct {
		InputTokens *int `json:"input_tokens"`
	}
	if err := c.doJSON(ctx, "count_tokens", http.MethodPost, "/v1/messages/count_tokens", body, &out); err != nil {
		return 0, err
	}
	if out.InputTokens == nil {
		return 0, c.streamError("count_tokens", "", "response has no input_tokens")
	}
	return *out.InputTokens, nil
}

// newRequest builds a request to path (relative to BaseURL) with
// Anthropic's headers.
func (c *Client) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	u := c.base.JoinPath(path)
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, err
	}
	c.setHeaders(req)
	if body != nil {
		req.Header.Set("content-type", "application/json")
	}
	return req, nil
}

func (c *Client) setHeaders(req *http.Request) {
	for k, vs := range c.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("x-api-key", c.apiKey)
	req.Header.Set("anthropic-version", APIVersion)
}

// doJSON encodes in and sends it with doRaw.
func (c *Client) doJSON(ctx context.Context, op, method, path string, in, out any) error {
	body, err := apiclient.Marshal(in)
	if err != nil {
		return fmt.Errorf("anthropic: %s: encode request: %w", op, err)
	}
	return c.doRaw(ctx, op, method, path, body, out)
}
