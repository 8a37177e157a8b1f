package openai

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"sync"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Options configures a Client. Reading OPENAI_API_KEY, OPENAI_BASE_URL and
// configuration files is the caller's job.
type Options struct {
	// APIKey is sent as "Authorization: Bearer". Required for
	// FlavorOpenAI; local servers usually need none. Never printed:
	// Options.String redacts it.
	APIKey string
	// BaseURL is the API root including /v1; defaults to DefaultBaseURL.
	// llama-server: http://127.0.0.1:8080/v1; vLLM: http://host:8000/v1.
	BaseURL string
	// Model is sent as "model". Required, except for FlavorLlamaCpp where
	// the server serves the model it loaded (Name then says "local").
	Model string
	// MaxTokens is used when Prompt.MaxTokens is 0; defaults to
	// DefaultMaxTokens.
	MaxTokens int
	// Flavor is FlavorOpenAI, FlavorVLLM, FlavorLlamaCpp or FlavorGeneric;
	// empty means FlavorOpenAI for api.openai.com and FlavorGeneric
	// otherwise.
	Flavor string
	// PromptCacheKey sends prompt_cache_key = Prompt.DocID (FlavorOpenAI
	// only): OpenAI routes requests with the same key to the same cache.
	PromptCacheKey bool
	// CacheSalt is sent as cache_salt (FlavorVLLM only): vLLM shares
	// prefix-cache blocks only between requests with the same salt, so one
	// salt per tenant keeps tenants from timing each other's documents.
	CacheSalt string
	// Slots is how llama.cpp slots are chosen (FlavorLlamaCpp only):
	// SlotsHash (default) or SlotsServer. An "id_slot" in ExtraBody
	// overrides it.
	Slots string
	// ExtraBody holds more request fields, merged last (they override the
	// client's own): "grammar", "temperature", "top_k",
	// "chat_template_kwargs"...
	ExtraBody map[string]any
	// ExtraHeaders are added to every request (OpenAI-Organization, ...).
	ExtraHeaders http.Header
	// HTTPClient defaults to a client without its own timeout that keeps
	// DefaultMaxIdleConns idle connections.
	HTTPClient *http.Client
	// Timeout bounds one call from request to the end of the stream;
	// defaults to DefaultTimeout. Its expiry is a retryable error.
	Timeout time.Duration
	// ContextWindow in tokens; 0 asks the server (llama.cpp /props n_ctx
	// per slot, vLLM /v1/models max_model_len) and, for other flavors,
	// reports 0 (unknown).
	ContextWindow int
}

// String redacts the API key so Options can be printed or logged.
func (o Options) String() string {
	key := "<unset>"
	if o.APIKey != "" {
		key = "<redacted>"
	}
	return fmt.Sprintf("openai.Options{APIKey:%s BaseURL:%q Model:%q Flavor:%q MaxTokens:%d PromptCacheKey:%v CacheSalt:%v ExtraBody:%d fields Timeout:%s ContextWindow:%d}",
		key, o.BaseURL, o.Model, o.Flavor, o.MaxTokens, o.PromptCacheKey, o.CacheSalt != "", len(o.ExtraBody), o.Timeout, o.ContextWindow)
}

// GoString redacts the API key for %#v.
func (o Options) GoString() string { return o.String() }

// Client calls POST /chat/completions of an OpenAI-compatible server. It
// is safe for concurrent use.
type Client struct {
	*core
	maxTokens      int
	promptCacheKey bool
	cacheSalt      string
	extra          map[string]any
	window         int
	slotMode       string

	mu      sync.Mutex
	props   *Props // llama.cpp, once fetched
	gate    *slotGate
	maxLen  int // vLLM max_model_len, once fetched
	calls   int
	timings Timings
}

var (
	_ driver.LLM             = (*Client)(nil)
	_ driver.ContextWindower = (*Client)(nil)
	_ driver.TokenCounter    = (*Client)(nil)
)

// New validates opts and returns a Client.
func New(opts Options) (*Client, error) {
	c, err := newCore("chat", opts.Flavor, opts.APIKey, opts.BaseURL, opts.Model, opts.HTTPClient, opts.Timeout, opts.ExtraHeaders)
	if err != nil {
		return nil, err
	}
	cl := &Client{core: c, maxTokens: opts.MaxTokens, promptCacheKey: opts.PromptCacheKey,
		cacheSalt: opts.CacheSalt, window: opts.ContextWindow}
	switch {
	case cl.maxTokens < 0:
		return nil, fmt.Errorf("openai: chat options: MaxTokens %d: must be >= 0: %w", cl.maxTokens, driver.ErrInvalid)
	case cl.maxTokens == 0:
		cl.maxTokens = DefaultMaxTokens
	}
	if cl.window < 0 {
		return nil, fmt.Errorf("openai: chat options: ContextWindow %d: must be >= 0: %w", cl.window, driver.ErrInvalid)
	}
	if opts.PromptCacheKey && c.flavor != FlavorOpenAI {
		return nil, fmt.Errorf("openai: chat options: PromptCacheKey: only understood by flavor openai, not %s: %w", c.flavor, driver.ErrInvalid)
	}
	cl.slotMode = opts.Slots
	switch {
	case opts.Slots != "" && c.flavor != FlavorLlamaCpp:
		return nil, fmt.Errorf("openai: chat options: Slots: only understood by flavor llamacpp, not %s: %w", c.flavor, driver.ErrInvalid)
	case opts.Slots == "":
		cl.slotMode = SlotsHash
	case opts.Slots != SlotsHash && opts.Slots != SlotsServer:
		return nil, fmt.Errorf("openai: chat options: Slots %q: want hash or server: %w", opts.Slots, driver.ErrInvalid)
	}
	if opts.CacheSalt != "" && c.flavor != FlavorVLLM {
		return nil, fmt.Errorf("openai: chat options: CacheSalt: only understood by flavor vllm, not %s: %w", c.flavor, driver.ErrInvalid)
	}
	if len(opts.ExtraBody) > 0 {
		cl.extra = make(map[string]any, len(opts.ExtraBody))
		for k, v := range opts.ExtraBody {
			switch k {
			case "messages", "stream":
				return nil, fmt.Errorf("openai: chat options: ExtraBody[%q]: set by the client, cannot be overridden: %w", k, driver.ErrInvalid)
			}
			cl.extra[k] = v
		}
	}
	return cl, nil
}

// Name is "<flavor>:<model>" ("openai:gpt-5-mini", "llamacpp:local").
func (c *Client) Name() string {
	m := c.model
	if m == "" {
		m = "local"
	}
	return c.flavor + ":" + m
}

// Flavor is the server flavor in use.
func (c *Client) Flavor() string { return c.flavor }

// LLM returns the value to hand to the contextualizer: the Client itself
// when the server can count tokens (llamacpp, vllm), otherwise a view
// without CountTokens, so the contextualizer estimates instead of failing.
func (c *Client) LLM() driver.LLM {
	if c.canCount() {
		return c
	}
	return chatOnly{c}
}

type chatOnly struct{ c *Client }

func (o chatOnly) Name() string { return o.c.Name() }
func (o chatOnly) Complete(ctx context.Context, p driver.Prompt) (driver.Completion, error) {
	return o.c.Complete(ctx, p)
}
func (o chatOnly) ContextWindow(ctx context.Context) (int, error) { return o.c.ContextWindow(ctx) }

func (c *Client) canCount() bool { return c.flavor == FlavorLlamaCpp || c.flavor == FlavorVLLM }

// Props is what llama-server's GET /props says about its slots.
type Props struct {
	// TotalSlots is the number of parallel slots (-np).
	TotalSlots int
	// SlotContext is default_generation_settings.n_ctx: the context of
	// one slot (-c divided by -np unless the KV cache is unified).
	SlotContext int
	ModelAlias  string
	BuildInfo   string
}

// Props fetches (once) llama-server's GET /props.
func (c *Client) Props(ctx context.Context) (Props, error) {
	if c.flavor != FlavorLlamaCpp {
		return Props{}, fmt.Errorf("openai: props: only llama.cpp serves /props, flavor is %s: %w", c.flavor, driver.ErrInvalid)
	}
	c.mu.Lock()
	p := c.props
	c.mu.Unlock()
	if p != nil {
		return *p, nil
	}
	var out struct {
		TotalSlots int `json:"total_slots"`
		Default    struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		ModelAlias string `json:"model_alias"`
		BuildInfo  string `json:"build_info"`
	}
	if err := c.doJSON(ctx, "props", http.MethodGet, c.serverURL("/props"), nil, &out); err != nil {
		return Props{}, err
	}
	if out.TotalSlots <= 0 || out.Default.NCtx <= 0 {
		return Props{}, c.badResponse("props", batch.Ref{}, "GET /props: total_slots %d, default_generation_settings.n_ctx %d: want both > 0",
			out.TotalSlots, out.Default.NCtx)
	}
	got := Props{TotalSlots: out.TotalSlots, SlotContext: out.Default.NCtx, ModelAlias: out.ModelAlias, BuildInfo: out.BuildInfo}
	c.mu.Lock()
	if c.props == nil {
		c.props = &got
		n := got.TotalSlots
		c.gate = newSlotGate(n, func(doc string) int { return Slot(doc, n) })
	}
	c.mu.Unlock()
	return got, nil
}

// ContextWindow is Options.ContextWindow, else llama.cpp's per-slot n_ctx
// from /props, else vLLM's max_model_len from /v1/models; 0 when unknown.
func (c *Client) ContextWindow(ctx context.Context) (int, error) {
	if c.window > 0 {
		return c.window, nil
	}
	switch c.flavor {
	case FlavorLlamaCpp:
		p, err := c.Props(ctx)
		if err != nil {
			return 0, err
		}
		return p.SlotContext, nil
	case FlavorVLLM:
		return c.vllmMaxModelLen(ctx)
	}
	return 0, nil
}

func (c *Client) vllmMaxModelLen(ctx context.Context) (int, error) {
	c.mu.Lock()
	n := c.maxLen
	c.mu.Unlock()
	if n > 0 {
		return n, nil
	}
	var out struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if err := c.doJSON(ctx, "models", http.MethodGet, c.base.JoinPath("/models").String(), nil, &out); err != nil {
		return 0, err
	}
	for _, m := range out.Data {
		if m.ID == c.model {
			n = m.MaxModelLen
		}
	}
	if n <= 0 {
		return 0, nil
	}
	c.mu.Lock()
	c.maxLen = n
	c.mu.Unlock()
	return n, nil
}

// CountTokens counts text's tokens with the server's tokenizer: llama.cpp
// POST /tokenize {"content"} or vLLM POST /tokenize {"model","prompt"},
// without special tokens (the chat template adds a few more). Other
// flavors have no such endpoint: the error wraps errors.ErrUnsupported
// (hand Client.LLM to the contextualizer, which hides the method then).
func (c *Client) CountTokens(ctx context.Context, text string) (int, error) {
	if text == "" {
		return 0, nil
	}
	switch c.flavor {
	case FlavorLlamaCpp:
		var out struct {
			Tokens *[]any `json:"tokens"`
		}
		if err := c.doJSON(ctx, "tokenize", http.MethodPost, c.serverURL("/tokenize"),
			map[string]any{"content": text, "add_special": false}, &out); err != nil {
			return 0, err
		}
		if out.Tokens == nil {
			return 0, c.badResponse("tokenize", batch.Ref{}, "POST /tokenize: answer has no tokens")
		}
		return len(*out.Tokens), nil
	case FlavorVLLM:
		var out struct {
			Count *int `json:"count"`
		}
		if err := c.doJSON(ctx, "tokenize", http.MethodPost, c.serverURL("/tokenize"),
			map[string]any{"model": c.model, "prompt": text, "add_special_tokens": false}, &out); err != nil {
			return 0, err
		}
		if out.Count == nil {
			return 0, c.badResponse("tokenize", batch.Ref{}, "POST /tokenize: answer has no count")
		}
		return *out.Count, nil
	}
	return 0, fmt.Errorf("openai: tokenize: flavor %s has no tokenizer endpoint: %w", c.flavor, errUnsupported)
}

var errUnsupported = errors.ErrUnsupported

// Slot is the llama.cpp slot a document's prompts are pinned to: a stable
// hash (FNV-1a) of docID modulo the number of slots, so every chunk of a
// document reuses the KV cache its first chunk left in that slot.
func Slot(docID string, slots int) int {
	if slots <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(docID))
	return int(h.Sum32() % uint32(slots))
}

// cacheKey is the prompt_cache_key sent for a document: its ID, or a hash
// of it when longer than MaxPromptCacheKey.
func cacheKey(docID string) string {
	if len(docID) <= MaxPromptCacheKey {
		return docID
	}
	h := sha256.Sum256([]byte(docID))
	return "doc-" + hex.EncodeToString(h[:16])
}

// Timings is llama.cpp's per-request timing report (the "timings" object
// of the last stream chunk).
type Timings struct {
	// CacheN is the prompt tokens reused from the slot's KV cache; PromptN
	// the tokens actually evaluated; PredictedN the tokens generated.
	CacheN, PromptN, PredictedN int
	PromptMS, PredictedMS       float64
}

// Totals sums Timings over the client's calls.
type Totals struct {
	Calls int
	Timings
}

// Timings returns the sum of llama.cpp's timings over every successful
// call so far (zero for servers that send none).
func (c *Client) Timings() Totals {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Totals{Calls: c.calls, Timings: c.timings}
}
