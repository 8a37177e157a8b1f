package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
)

// Flavors of OpenAI-compatible servers. They differ in which request
// fields are understood and which endpoints exist.
const (
	// FlavorOpenAI is api.openai.com: max_completion_tokens,
	// prompt_cache_key, x-ratelimit-* headers.
	FlavorOpenAI = "openai"
	// FlavorVLLM is vLLM: max_tokens, cache_salt, POST /tokenize,
	// max_model_len in /v1/models.
	FlavorVLLM = "vllm"
	// FlavorLlamaCpp is llama.cpp's llama-server: cache_prompt, id_slot,
	// timings, GET /props, POST /tokenize.
	FlavorLlamaCpp = "llamacpp"
	// FlavorGeneric is any other server (LM Studio, TGI, LiteLLM...):
	// only the standard fields.
	FlavorGeneric = "generic"
)

// Defaults applied by New, NewEmbedder and NewReranker.
const (
	DefaultBaseURL   = "https://api.openai.com/v1"
	DefaultMaxTokens = 512
	DefaultTimeout   = 5 * time.Minute
	// DefaultMaxIdleConns is the idle connections per host kept by the
	// HTTP client made when none is given.
	DefaultMaxIdleConns = 64
	// MaxPromptCacheKey is the longest DocID sent as prompt_cache_key as
	// is; longer ones are replaced by a hash.
	MaxPromptCacheKey = 64
)

// core is the HTTP plumbing shared by Client, Embedder and Reranker.
type core struct {
	flavor  string
	model   string
	apiKey  string
	base    *url.URL
	http    *http.Client
	timeout time.Duration
	headers http.Header
}

func newCore(who, flavor, apiKey, baseURL, model string, hc *http.Client, timeout time.Duration, headers http.Header) (*core, error) {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("openai: %s options: %s: %s: %w", who, field, fmt.Sprintf(format, args...), driver.ErrInvalid)
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, bad("BaseURL", "%q: want http(s)://host[:port][/path] (usually ending in /v1)", baseURL)
	}
	if flavor == "" {
		flavor = FlavorGeneric
		if u.Host == "api.openai.com" {
			flavor = FlavorOpenAI
		}
	}
	switch flavor {
	case FlavorOpenAI, FlavorVLLM, FlavorLlamaCpp, FlavorGeneric:
	default:
		return nil, bad("Flavor", "%q: want openai, vllm, llamacpp or generic", flavor)
	}
	if flavor == FlavorOpenAI && strings.TrimSpace(apiKey) == "" {
		return nil, bad("APIKey", "empty (set OPENAI_API_KEY)")
	}
	if model == "" && flavor != FlavorLlamaCpp {
		return nil, bad("Model", "empty (the server needs a model name)")
	}
	switch {
	case timeout < 0:
		return nil, bad("Timeout", "%s: must be >= 0", timeout)
	case timeout == 0:
		timeout = DefaultTimeout
	}
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = DefaultMaxIdleConns
		hc = &http.Client{Transport: tr}
	}
	return &core{flavor: flavor, model: model, apiKey: apiKey, base: u, http: hc, timeout: timeout, headers: headers.Clone()}, nil
}

// serverURL is the server root for llama.cpp's and vLLM's own endpoints
// (/props, /tokenize): BaseURL without a trailing /v1.
func (c *core) serverURL(path string) string {
	u := *c.base
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	return u.JoinPath(path).String()
}

func (c *core) newRequest(ctx context.Context, method, fullURL string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, fullURL, r)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if c.apiKey != "" {
		req.Header.Set("authorization", "Bearer "+c.apiKey)
	}
	// A nil X-Idempotency-Key marks the request replayable without sending
	// the header: net/http then re-sends it once when a reused keep-alive
	// connection turns out to be closed by the server before any answer
	// (llama-server closes idle connections after 5 s). Repeating a
	// completion or embedding request is harmless.
	req.Header["X-Idempotency-Key"] = nil
	if body != nil {
		req.Header.Set("content-type", "application/json")
	}
	return req, nil
}

// doJSON sends in (nil for GET) to fullURL and decodes a 2xx JSON answer
// into out, within the client's timeout.
func (c *core) doJSON(ctx context.Context, op, method, fullURL string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = apiclient.Marshal(in); err != nil {
			return fmt.Errorf("openai: %s: encode request: %w", op, err)
		}
	}
	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var resp *http.Response
	for attempt := 0; ; attempt++ {
		req, err := c.newRequest(tctx, method, fullURL, body)
		if err != nil {
			return fmt.Errorf("openai: %s: %w", op, err)
		}
		resp, err = c.http.Do(req)
		if err == nil {
			break
		}
		e := c.transportError(ctx, op, err)
		// These requests (props, models, tokenize, embeddings, rerank) are
		// safe to repeat: a connection that broke before any answer (an
		// idle keep-alive connection closed by the server as it was
		// reused) is tried once more on a new one.
		if e.Type != TypeConnection || attempt > 0 || tctx.Err() != nil {
			return e
		}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.responseError(op, resp)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return c.transportError(ctx, op, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return c.streamError(op, resp.Header.Get("x-request-id"), "malformed or truncated JSON answer (%d bytes): %v", len(data), err)
	}
	return nil
}
