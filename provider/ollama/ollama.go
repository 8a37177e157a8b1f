package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
)

// Defaults applied by New.
const (
	DefaultHost      = "127.0.0.1"
	DefaultPort      = "11434"
	DefaultMaxTokens = 512
	DefaultTimeout   = 10 * time.Minute
	DefaultKeepAlive = "30m"
	// DefaultMinNumCtx is the smallest num_ctx sent: Ollama's own default
	// (4096 on small GPUs) would not hold most documents anyway.
	DefaultMinNumCtx = 4096
	// DefaultPromptOverhead is the tokens added for the chat template
	// around the message (role headers, BOS, generation prompt).
	DefaultPromptOverhead = 64
	// DefaultEstimateMargin is added to the estimate (+10%).
	DefaultEstimateMargin = 0.10
	// ProviderName is Usage.Provider and the prefix of Name().
	ProviderName = "ollama"
)

// BaseURL turns an OLLAMA_HOST value into the server's base URL with
// Ollama's own rules: "" is http://127.0.0.1:11434; "host", "host:port",
// ":port" and "[::1]:port" need no scheme (http, port 11434 by default);
// with an explicit "http://" or "https://" the default port is 80 or 443;
// a path is kept (for a reverse proxy). The unspecified addresses 0.0.0.0
// and :: that a server listens on are dialled as loopback. An invalid port
// is an error, not silently replaced.
func BaseURL(ollamaHost string) (string, error) {
	s := strings.TrimSpace(ollamaHost)
	defPort := DefaultPort
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defPort = "80"
	case scheme == "https":
		defPort = "443"
	default:
		return "", fmt.Errorf("ollama: OLLAMA_HOST %q: scheme %q: want http or https: %w", ollamaHost, scheme, driver.ErrInvalid)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, defPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		}
	}
	if host == "" {
		host = DefaultHost
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = DefaultHost
		if ip.To4() == nil {
			host = "::1"
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("ollama: OLLAMA_HOST %q: port %q: want 1-65535: %w", ollamaHost, port, driver.ErrInvalid)
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		u.Path = "/" + path
	}
	return u.String(), nil
}

// Options configures a Client. Reading OLLAMA_HOST is the caller's job
// (see BaseURL).
type Options struct {
	// BaseURL is the server (no /api suffix); defaults to BaseURL("").
	BaseURL string
	// Model is the Ollama model name ("qwen3:8b"). Required.
	Model string
	// MaxTokens is num_predict when Prompt.MaxTokens is 0; defaults to
	// DefaultMaxTokens.
	MaxTokens int
	// NumCtx, if > 0, is sent as num_ctx on every call (and prompts that
	// would not fit are refused). 0 sizes num_ctx to the prompts: see
	// Client.NumCtx.
	NumCtx int
	// MaxNumCtx caps the num_ctx the client sizes (memory grows with it);
	// 0 means the model's context_length from /api/show.
	MaxNumCtx int
	// KeepAlive is sent as keep_alive ("30m", "-1" keeps the model loaded);
	// defaults to DefaultKeepAlive so the model and its prefix cache stay
	// between documents.
	KeepAlive string
	// Think, if set, is sent as "think": false keeps thinking models
	// (qwen3, deepseek-r1, gpt-oss) from spending the answer budget on
	// reasoning; unset lets the model decide. Ollama rejects think:true
	// for models without the capability.
	Think *bool
	// ExtraOptions are merged into "options" ("temperature", "top_k",
	// "seed"...). num_ctx and num_predict are the client's.
	ExtraOptions map[string]any
	// EstimateTokens estimates a text's tokens for sizing num_ctx and
	// refusing prompts that do not fit; nil uses EstimateTokens. Ollama has
	// no tokenizer endpoint.
	EstimateTokens func(string) int
	HTTPClient     *http.Client
	// Timeout bounds one call (default DefaultTimeout: a model load can
	// take minutes).
	Timeout time.Duration
	// Headers are added to every request (a reverse proxy's auth).
	Headers http.Header
}

// Client calls Ollama's native API. It implements situate.LLM and
// situate.ContextWindower and is safe for concurrent use.
type Client struct {
	base      *url.URL
	model     string
	maxTokens int
	numCtx    int
	maxNumCtx int
	keepAlive string
	think     *bool
	extra     map[string]any
	estimate  func(string) int
	http      *http.Client
	timeout   time.Duration
	headers   http.Header

	mu      sync.Mutex
	shown   bool
	ctxLen  int // model's context_length, 0 if unknown
	usedCtx int // largest num_ctx sent so far
}

var (
	_ driver.LLM             = (*Client)(nil)
	_ driver.ContextWindower = (*Client)(nil)
)

// New validates opts and returns a Client.
func New(opts Options) (*Client, error) {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("ollama: options: %s: %s: %w", field, fmt.Sprintf(format, args...), driver.ErrInvalid)
	}
	base := opts.BaseURL
	if base == "" {
		base, _ = BaseURL("")
	}
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, bad("BaseURL", "%q: want http(s)://host:port (use BaseURL(os.Getenv(\"OLLAMA_HOST\")))", base)
	}
	if strings.HasSuffix(u.Path, "/api") || strings.HasSuffix(u.Path, "/v1") {
		return nil, bad("BaseURL", "%q: give the server root, without /api or /v1", base)
	}
	if strings.TrimSpace(opts.Model) == "" {
		return nil, bad("Model", "empty")
	}
	c := &Client{base: u, model: opts.Model, maxTokens: opts.MaxTokens, numCtx: opts.NumCtx, maxNumCtx: opts.MaxNumCtx,
		keepAlive: opts.KeepAlive, think: opts.Think, estimate: opts.EstimateTokens, http: opts.HTTPClient, timeout: opts.Timeout,
		headers: opts.Headers.Clone()}
	switch {
	case c.maxTokens < 0:
		return nil, bad("MaxTokens", "%d: must be >= 0", c.maxTokens)
	case c.maxTokens == 0:
		c.maxTokens = DefaultMaxTokens
	}
	if c.numCtx < 0 || c.maxNumCtx < 0 {
		return nil, bad("NumCtx", "%d / MaxNumCtx %d: must be >= 0", c.numCtx, c.maxNumCtx)
	}
	if c.numCtx > 0 && c.numCtx <= c.maxTokens {
		return nil, bad("NumCtx", "%d leaves no room for the prompt with MaxTokens %d", c.numCtx, c.maxTokens)
	}
	if c.keepAlive == "" {
		c.keepAlive = DefaultKeepAlive
	}
	switch {
	case c.timeout < 0:
		return nil, bad("Timeout", "%s: must be >= 0", c.timeout)
	case c.timeout == 0:
		c.timeout = DefaultTimeout
	}
	if c.estimate == nil {
		c.estimate = EstimateTokens
	}
	if len(opts.ExtraOptions) > 0 {
		c.extra = map[string]any{}
		for k, v := range opts.ExtraOptions {
			if k == "num_ctx" || k == "num_predict" {
				return nil, bad("ExtraOptions", "%q is set by the client (use NumCtx / MaxTokens)", k)
			}
			c.extra[k] = v
		}
	}
	if c.http == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		c.http = &http.Client{Transport: tr}
	}
	return c, nil
}

// Name is "ollama:<model>".
func (c *Client) Name() string { return ProviderName + ":" + c.model }

// EstimateTokens is the default token estimate: UTF-8 bytes / 3, rounded
// up, plus half a token per CJK character. It is above the true count of
// English, German, Spanish and Russian text for the tokenizers of common
// Ollama models (Llama 3, Qwen, Gemma, Mistral: 3.5-4.5 bytes per token in
// English) and allows 1.5 tokens per Chinese character (byte-fallback
// vocabularies such as Llama 2's).
func EstimateTokens(text string) int {
	cjk := 0
	for _, r := range text {
		if r >= 0x2E80 && (r <= 0x9FFF || (r >= 0xF900 && r <= 0xFAFF) || (r >= 0x20000 && r <= 0x3FFFF)) {
			cjk++
		}
	}
	return (len(text)+2)/3 + (cjk+1)/2
}

// ModelContext returns the model's context_length from POST /api/show
// (model_info["<architecture>.context_length"]); 0 when it is not given.
func (c *Client) ModelContext(ctx context.Context) (int, error) {
	c.mu.Lock()
	if c.shown {
		n := c.ctxLen
		c.mu.Unlock()
		return n, nil
	}
	c.mu.Unlock()
	var out struct {
		ModelInfo map[string]any `json:"model_info"`
	}
	if err := c.doJSON(ctx, "show", "/api/show", map[string]any{"model": c.model}, &out); err != nil {
		return 0, err
	}
	n := 0
	arch, _ := out.ModelInfo["general.architecture"].(string)
	for k, v := range out.ModelInfo {
		if !strings.HasSuffix(k, ".context_length") {
			continue
		}
		f, ok := v.(float64)
		if !ok || f <= 0 {
			continue
		}
		if k == arch+".context_length" || n == 0 {
			n = int(f)
		}
	}
	c.mu.Lock()
	c.shown, c.ctxLen = true, n
	c.mu.Unlock()
	return n, nil
}

// ContextWindow is the largest num_ctx the client will send: NumCtx if
// set, else MaxNumCtx capped by the model's context_length; 0 if neither
// is known (then num_ctx grows with the prompts).
func (c *Client) ContextWindow(ctx context.Context) (int, error) {
	if c.numCtx > 0 {
		return c.numCtx, nil
	}
	n, err := c.ModelContext(ctx)
	if err != nil {
		return 0, err
	}
	if c.maxNumCtx > 0 && (n == 0 || c.maxNumCtx < n) {
		n = c.maxNumCtx
	}
	return n, nil
}

// NumCtx is the num_ctx sent for a prompt of promptTokens (estimated) plus
// maxTokens of answer, or an error wrapping situate.ErrPromptTooLarge when
// it exceeds the window. Ollama silently cuts prompts longer than num_ctx,
// so it is always sent. Ollama reloads the model whenever num_ctx changes,
// so the value only grows: the next power of two (at least
// DefaultMinNumCtx) above the largest need seen so far, capped at
// ContextWindow.
func (c *Client) NumCtx(ctx context.Context, promptTokens, maxTokens int) (int, error) {
	need := promptTokens + maxTokens
	if c.numCtx > 0 {
		if need > c.numCtx {
			return 0, c.tooLarge(promptTokens, maxTokens, c.numCtx)
		}
		return c.numCtx, nil
	}
	limit, err := c.ContextWindow(ctx)
	if err != nil {
		return 0, err
	}
	if limit > 0 && need > limit {
		return 0, c.tooLarge(promptTokens, maxTokens, limit)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := max(DefaultMinNumCtx, c.usedCtx)
	if n < need {
		n = 1 << bits.Len(uint(need-1))
	}
	if limit > 0 {
		n = min(n, limit)
	}
	c.usedCtx = max(c.usedCtx, n)
	return n, nil
}

func (c *Client) tooLarge(promptTokens, maxTokens, limit int) *Error {
	return &Error{Index: -1, Provider: ProviderName, Op: "chat", Model: c.model, Type: TypeTooLarge, Err: driver.ErrPromptTooLarge,
		Message: fmt.Sprintf("prompt of about %d tokens + %d for the answer exceeds the context window of %d (refused: Ollama would cut it silently)",
			promptTokens, maxTokens, limit)}
}

// chatChunk is one NDJSON line of /api/chat.
type chatChunk struct {
	Model   string `json:"model"`
	Message *struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"message"`
	Done            bool   `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
	Error           string `json:"error"`
}

// Complete sends p to POST /api/chat as one user message (Prefix+Suffix
// as one string, so Ollama's runner reuses the KV cache of the document
// prefix from the previous prompt), streamed as NDJSON: p.Started fires
// on the first line. options.num_ctx is always sent (see NumCtx).
// Usage: prompt_eval_count is InputTokens (Ollama counts only the tokens
// it evaluated, so a cache hit shows as a small count; CacheReadTokens
// stays 0 because Ollama does not report it), eval_count is OutputTokens.
func (c *Client) Complete(ctx context.Context, p driver.Prompt) (driver.Completion, error) {
	const op = "chat"
	start := time.Now()
	out := driver.Completion{Usage: driver.Usage{Time: start, Provider: ProviderName, Model: c.model, Operation: "context", DocID: p.DocID}}
	fail := func(err error) (driver.Completion, error) {
		out.Usage.Latency = time.Since(start)
		out.Usage.Error = err.Error()
		return out, err
	}
	if p.Prefix == "" && p.Suffix == "" {
		return fail(fmt.Errorf("ollama: chat: prompt for document %q: Prefix and Suffix are empty: %w", p.DocID, driver.ErrInvalid))
	}
	if p.MaxTokens < 0 {
		return fail(fmt.Errorf("ollama: chat: prompt for document %q: MaxTokens %d: must be >= 0: %w", p.DocID, p.MaxTokens, driver.ErrInvalid))
	}
	maxTokens := p.MaxTokens
	if maxTokens == 0 {
		maxTokens = c.maxTokens
	}
	content := p.Prefix + p.Suffix
	est := int(float64(c.estimate(content))*(1+DefaultEstimateMargin)) + DefaultPromptOverhead
	numCtx, err := c.NumCtx(ctx, est, maxTokens)
	if err != nil {
		return fail(err)
	}
	options := map[string]any{}
	for k, v := range c.extra {
		options[k] = v
	}
	options["num_ctx"] = numCtx
	options["num_predict"] = maxTokens
	if p.Sample > 0 {
		// Another sample of a rejected answer.
		options["seed"] = p.Sample
		if t, ok := options["temperature"].(float64); !ok || t < 0.7 {
			options["temperature"] = 0.7 + 0.1*float64(min(p.Sample, 3))
		}
		options["repeat_penalty"] = 1.3
	}
	body := map[string]any{
		"model":      c.model,
		"messages":   []map[string]string{{"role": "user", "content": content}},
		"stream":     true,
		"options":    options,
		"keep_alive": c.keepAlive,
	}
	if c.think != nil {
		body["think"] = *c.think
	}
	resp, err := c.post(ctx, op, "/api/chat", body)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var text strings.Builder
	started := p.Started
	lines := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		lines++
		var ch chatChunk
		if err := json.Unmarshal(line, &ch); err != nil {
			out.Text = text.String()
			return fail(c.streamError(op, "line %d: malformed JSON: %v", lines, err))
		}
		if ch.Error != "" {
			out.Text = text.String()
			return fail(c.serverError(op, 0, ch.Error))
		}
		if started != nil {
			started()
			started = nil
		}
		if ch.Message != nil {
			text.WriteString(ch.Message.Content)
		}
		if ch.Done {
			out.Text = text.String()
			out.Usage.InputTokens, out.Usage.OutputTokens = ch.PromptEvalCount, ch.EvalCount
			out.Usage.Latency = time.Since(start)
			return out, nil
		}
	}
	out.Text = text.String()
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fail(c.streamError(op, "line %d longer than 16 MiB", lines+1))
		}
		return fail(c.transportError(ctx, op, err))
	}
	return fail(c.streamError(op, "stream ended after %d lines without \"done\": true", lines))
}

// post sends body and returns a 2xx response (the caller closes it).
func (c *Client) post(ctx context.Context, op, path string, body any) (*http.Response, error) {
	data, err := apiclient.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("ollama: %s: encode request: %w", op, err)
	}
	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, c.base.JoinPath(path).String(), bytes.NewReader(data))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("ollama: %s: %w", op, err)
	}
	for k, vs := range c.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("content-type", "application/json")
	// Replayable on a keep-alive connection closed before any answer; the
	// header itself is not sent.
	req.Header["X-Idempotency-Key"] = nil
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		return nil, c.transportError(ctx, op, err)
	}
	if resp.StatusCode/100 != 2 {
		defer cancel()
		defer resp.Body.Close()
		return nil, c.responseError(op, resp)
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func (c *Client) doJSON(ctx context.Context, op, path string, in, out any) error {
	resp, err := c.post(ctx, op, path, in)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return c.transportError(ctx, op, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return c.streamError(op, "malformed or truncated JSON answer (%d bytes): %v", len(data), err)
	}
	return nil
}
