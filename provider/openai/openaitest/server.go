package openaitest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/internal/fakeapi"
	"github.com/situate/situate/internal/fakeembed"
)

// Flavors the fake imitates (the same strings as package openai's).
const (
	FlavorOpenAI   = "openai"
	FlavorVLLM     = "vllm"
	FlavorLlamaCpp = "llamacpp"
)

// Token model: the fake's tokens are 4-byte pieces of the rendered prompt
// (BytesPerToken), a prompt is "<|im_start|>user\n" + content +
// "<|im_end|>\n<|im_start|>assistant\n" like ChatML, and a cache hit is the
// longest common prefix with an earlier prompt, rounded down to the
// flavor's granularity (OpenAI: 128-token increments from 1024 tokens;
// vLLM: 16-token blocks; llama.cpp: any length, per slot).
const (
	BytesPerToken = 4
	chatHeader    = "<|im_start|>user\n"
	chatFooter    = "<|im_end|>\n<|im_start|>assistant\n"
	openAIMin     = 1024
	openAIStep    = 128
	vllmBlock     = 16
)

// CountTokens is the fake's token count of text.
func CountTokens(text string) int { return (len(text) + BytesPerToken - 1) / BytesPerToken }

// Config configures a Server.
type Config struct {
	// Flavor is FlavorOpenAI (default), FlavorVLLM or FlavorLlamaCpp: it
	// picks the caching rule, the error shapes and the extra endpoints
	// (llama.cpp: /props, /tokenize, timings; vLLM: /tokenize,
	// max_model_len).
	Flavor string
	// APIKey, if set, must come as "Authorization: Bearer <key>" (else 401).
	APIKey string
	// Model is reported in answers; requests may name any model.
	Model string
	// ContextWindow in tokens (default 128000; llama.cpp: per slot, 4096).
	ContextWindow int
	// Slots is llama.cpp's slot count (default 2).
	Slots int
	// FirstChunkDelay is the wait before the first chunk (prefill);
	// StreamDelay the wait between chunks.
	FirstChunkDelay, StreamDelay time.Duration
	// Generate makes the answer from the user message; nil answers
	// "Context for: " + the first 6 words after the last "<chunk>".
	Generate func(content string) string
	// EmbedDim is the embedding size (default 8).
	EmbedDim int
	// ModelPath is llama.cpp's loaded GGUF file (/props model_path); its
	// hash shapes /v1/models' meta, as another file's shape would.
	ModelPath string
}

// FaultKind names an injected failure.
type FaultKind int

// Fault kinds.
const (
	// FaultRateLimit is 429 rate_limit_exceeded with retry-after.
	FaultRateLimit FaultKind = iota + 1
	// FaultRateLimitHeaders is 429 with only OpenAI's
	// x-ratelimit-remaining-*/x-ratelimit-reset-* headers (reset = RetryAfter).
	FaultRateLimitHeaders
	// FaultQuota is 429 insufficient_quota: not retryable.
	FaultQuota
	// FaultServerError is 500 server_error.
	FaultServerError
	// FaultReset closes the connection before answering.
	FaultReset
	// FaultTruncated cuts the stream inside a chunk's JSON.
	FaultTruncated
	// FaultNoDone ends the stream after content deltas without a
	// finish_reason or [DONE].
	FaultNoDone
	// FaultStreamError sends one chunk, then an error event (OpenAI/vLLM:
	// data: {"error":...}; llama.cpp: error: {...}).
	FaultStreamError
	// FaultEmpty answers with no content.
	FaultEmpty
	// FaultNaN puts a NaN into the first embedding (sent as the JSON
	// string "NaN", which is what a broken server looks like on the wire).
	FaultNaN
	// FaultWrongCount returns one embedding or rerank result too few.
	FaultWrongCount
	// FaultNotStreamed answers a streaming request with one
	// chat.completion JSON object, as a proxy that ignores "stream" does.
	FaultNotStreamed
)

// Fault is one injected failure, used by the first matching request.
type Fault struct {
	Kind       FaultKind
	RetryAfter time.Duration
	// Path: "" is chat completions; else "/embeddings", "/rerank".
	Path string
}

// Request is one request the server received.
type Request = fakeapi.Request

// Stats counts what the server saw.
type Stats struct {
	Chat, Embed, Rerank, Tokenize, Props int
	PromptTokens, CachedTokens           int
	// Evaluated is the prompt tokens not served from cache (llama.cpp
	// timings.prompt_n summed).
	Evaluated int
	Faults    int
}

// Server is the fake. Its URL+"/v1" goes into a client's BaseURL.
type Server struct {
	*fakeapi.Server[Fault]

	cfg Config

	mu      sync.Mutex
	stats   Stats
	prompts map[string][]string // cache scope -> prompts seen (OpenAI, vLLM)
	slots   []string            // llama.cpp: last prompt per slot
}

// NewServer starts a fake server; Close it when done.
func NewServer(cfg Config) *Server {
	if cfg.Flavor == "" {
		cfg.Flavor = FlavorOpenAI
	}
	if cfg.Model == "" {
		cfg.Model = "fake-model"
	}
	if cfg.Slots == 0 {
		cfg.Slots = 2
	}
	if cfg.ContextWindow == 0 {
		cfg.ContextWindow = 128000
		if cfg.Flavor == FlavorLlamaCpp {
			cfg.ContextWindow = 4096
		}
	}
	if cfg.EmbedDim == 0 {
		cfg.EmbedDim = 8
	}
	if cfg.Generate == nil {
		cfg.Generate = defaultGenerate
	}
	s := &Server{cfg: cfg, prompts: map[string][]string{}, slots: make([]string, cfg.Slots)}
	s.Server = fakeapi.New(fakeapi.Hooks[Fault]{
		// A fault without Path is for chat completions.
		Match: func(f *Fault, r *http.Request) bool {
			path := strings.TrimPrefix(r.URL.Path, "/v1")
			return (f.Path == "" && path == "/chat/completions") || (f.Path != "" && f.Path == path)
		},
		Arrive: func(w http.ResponseWriter, _ *http.Request, seq int, f *Fault) {
			if f != nil {
				s.mu.Lock()
				s.stats.Faults++
				s.mu.Unlock()
			}
			w.Header().Set("x-request-id", fmt.Sprintf("req_%d", seq))
		},
		Authorized: fakeapi.Bearer(cfg.APIKey),
		Unauthorized: func(w http.ResponseWriter, _ *http.Request) {
			s.writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		},
		Intercept: func(w http.ResponseWriter, _ *http.Request, _ []byte, f *Fault) bool {
			return f != nil && s.statusFault(w, f)
		},
	})
	s.Handle("POST /v1/chat/completions", s.handleChat)
	s.Handle("POST /v1/embeddings", s.handleEmbed)
	s.Handle("POST /v1/rerank", s.handleRerank)
	s.Handle("POST /rerank", s.handleRerank)
	s.Handle("GET /v1/models", s.handleModels)
	if cfg.Flavor == FlavorLlamaCpp || cfg.Flavor == FlavorVLLM {
		s.Handle("POST /tokenize", s.handleTokenize)
	}
	if cfg.Flavor == FlavorLlamaCpp {
		s.Handle("GET /props", s.handleProps)
	}
	s.Handle("/", func(w http.ResponseWriter, r *http.Request, _ []byte, _ *Fault) {
		s.writeError(w, http.StatusNotFound, "not_found_error", "", "unknown endpoint "+r.Method+" "+r.URL.Path)
	})
	s.Start()
	return s
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// statusFault answers the faults that replace the whole response.
func (s *Server) statusFault(w http.ResponseWriter, f *Fault) bool {
	secs := func(d time.Duration) string { return strconv.Itoa(int(math.Ceil(d.Seconds()))) }
	switch f.Kind {
	case FaultRateLimit:
		d := f.RetryAfter
		if d == 0 {
			d = time.Second
		}
		w.Header().Set("retry-after", secs(d))
		s.writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached for requests per min (RPM).")
	case FaultRateLimitHeaders:
		w.Header().Set("x-ratelimit-limit-requests", "500")
		w.Header().Set("x-ratelimit-remaining-requests", "0")
		w.Header().Set("x-ratelimit-reset-requests", f.RetryAfter.String())
		w.Header().Set("x-ratelimit-remaining-tokens", "19000")
		w.Header().Set("x-ratelimit-reset-tokens", "6ms")
		s.writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached for requests per min (RPM).")
	case FaultQuota:
		s.writeError(w, http.StatusTooManyRequests, "insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details.")
	case FaultServerError:
		s.writeError(w, http.StatusInternalServerError, "server_error", "", "The server had an error while processing your request.")
	case FaultReset:
		fakeapi.Reset(w)
	default:
		return false
	}
	return true
}

// writeError writes the flavor's error body. OpenAI and vLLM:
// {"error":{"message","type","param","code"}}; llama.cpp:
// {"error":{"code":<status>,"message","type"}}.
func (s *Server) writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	if s.cfg.Flavor == FlavorLlamaCpp {
		e = map[string]any{"code": status, "message": msg, "type": typ}
	}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
}

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int   `json:"max_tokens"`
	MaxCompletionTokens *int   `json:"max_completion_tokens"`
	PromptCacheKey      string `json:"prompt_cache_key"`
	CacheSalt           string `json:"cache_salt"`
	CachePrompt         *bool  `json:"cache_prompt"`
	TimingsPerToken     bool   `json:"timings_per_token"`
	IDSlot              *int   `json:"id_slot"`
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.writeError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if len(req.Messages) == 0 {
		s.writeError(w, http.StatusBadRequest, "invalid_request_error", "", "'messages' must be a non-empty array")
		return
	}
	var content strings.Builder
	for _, m := range req.Messages {
		var str string
		if err := json.Unmarshal(m.Content, &str); err != nil {
			// An array of parts: joined with "\n", as vLLM and llama.cpp do.
			var parts []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				s.writeError(w, http.StatusBadRequest, "invalid_request_error", "", "content must be a string or an array of parts")
				return
			}
			texts := make([]string, len(parts))
			for i, p := range parts {
				texts[i] = p.Text
			}
			str = strings.Join(texts, "\n")
		}
		content.WriteString("<|im_start|>" + m.Role + "\n" + str + "<|im_end|>\n")
	}
	prompt := content.String() + "<|im_start|>assistant\n"
	maxTokens := 256
	switch {
	case req.MaxCompletionTokens != nil:
		maxTokens = *req.MaxCompletionTokens
	case req.MaxTokens != nil:
		maxTokens = *req.MaxTokens
	}
	promptTokens := CountTokens(prompt)
	if promptTokens+0 > s.cfg.ContextWindow {
		switch s.cfg.Flavor {
		case FlavorLlamaCpp:
			w.Header().Set("content-type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 400, "type": "exceed_context_size_error",
				"message":         fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", promptTokens, s.cfg.ContextWindow),
				"n_prompt_tokens": promptTokens, "n_ctx": s.cfg.ContextWindow}})
		case FlavorVLLM:
			s.writeError(w, http.StatusBadRequest, "BadRequestError", "", fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", s.cfg.ContextWindow, promptTokens+maxTokens, promptTokens, maxTokens))
		default:
			s.writeError(w, http.StatusBadRequest, "invalid_request_error", "context_length_exceeded", fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", s.cfg.ContextWindow, promptTokens))
		}
		return
	}

	if s.cfg.FirstChunkDelay > 0 {
		time.Sleep(s.cfg.FirstChunkDelay)
	}
	cached := s.cache(req, prompt)
	answer := s.cfg.Generate(content.String())
	if f != nil && f.Kind == FaultEmpty {
		answer = ""
	}
	words := strings.SplitAfter(answer, " ")
	if answer == "" {
		words = nil
	}
	if len(words) > maxTokens {
		words = words[:maxTokens]
	}
	usage := map[string]any{"prompt_tokens": promptTokens, "completion_tokens": len(words),
		"total_tokens": promptTokens + len(words), "prompt_tokens_details": map[string]any{"cached_tokens": cached}}
	id := fmt.Sprintf("chatcmpl-%d", time.Now().UnixNano())
	predicted := 0
	chunk := func(delta map[string]any, finish any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": s.cfg.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if s.cfg.Flavor == FlavorLlamaCpp && req.TimingsPerToken {
			// llama.cpp's timings_per_token: every chunk says what the
			// request processed so far.
			c["timings"] = map[string]any{"cache_n": cached, "prompt_n": promptTokens - cached, "prompt_ms": 1.0,
				"predicted_n": predicted, "predicted_ms": 1.0}
		}
		return c
	}
	finish := "stop"
	if len(strings.SplitAfter(answer, " ")) > maxTokens {
		finish = "length"
	}
	timings := map[string]any{"cache_n": cached, "prompt_n": promptTokens - cached, "prompt_ms": 1.0,
		"predicted_n": len(words), "predicted_ms": 1.0}

	if !req.Stream || (f != nil && f.Kind == FaultNotStreamed) {
		resp := map[string]any{"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": s.cfg.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": strings.Join(words, "")}, "finish_reason": finish}},
			"usage":   usage}
		if s.cfg.Flavor == FlavorLlamaCpp {
			resp["timings"] = timings
		}
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if f != nil {
		switch f.Kind {
		case FaultTruncated:
			data, _ := json.Marshal(chunk(map[string]any{"content": "half an ans"}, nil))
			fmt.Fprintf(w, "data: %s", data[:len(data)/2])
			return
		case FaultStreamError:
			e := map[string]any{"message": "The server had an error while processing your request.", "type": "server_error", "code": nil}
			if s.cfg.Flavor == FlavorLlamaCpp {
				data, _ := json.Marshal(map[string]any{"code": 500, "message": "slot unavailable", "type": "server_error"})
				fmt.Fprintf(w, "error: %s\n\n", data)
			} else {
				send(map[string]any{"error": e})
			}
			return
		}
	}
	for _, word := range words {
		if s.cfg.StreamDelay > 0 {
			time.Sleep(s.cfg.StreamDelay)
		}
		predicted++
		send(chunk(map[string]any{"content": word}, nil))
	}
	if f != nil && f.Kind == FaultNoDone {
		return
	}
	send(chunk(map[string]any{}, finish))
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		last := map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": s.cfg.Model,
			"choices": []any{}, "usage": usage}
		if s.cfg.Flavor == FlavorLlamaCpp {
			last["timings"] = timings
		}
		send(last)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// cache applies the flavor's prefix-cache rule and returns the cached
// prompt tokens.
func (s *Server) cache(req chatRequest, prompt string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	common := func(a, b string) int {
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n / BytesPerToken
	}
	total := CountTokens(prompt)
	cached := 0
	switch s.cfg.Flavor {
	case FlavorLlamaCpp:
		slot := 0
		if req.IDSlot != nil && *req.IDSlot >= 0 && *req.IDSlot < len(s.slots) {
			slot = *req.IDSlot
		}
		if req.CachePrompt == nil || *req.CachePrompt {
			cached = min(common(s.slots[slot], prompt), total-1)
		}
		s.slots[slot] = prompt
	default:
		scope := req.CacheSalt
		best := 0
		for _, p := range s.prompts[scope] {
			best = max(best, common(p, prompt))
		}
		if s.cfg.Flavor == FlavorVLLM {
			cached = best / vllmBlock * vllmBlock
		} else if best >= openAIMin {
			cached = openAIMin + (best-openAIMin)/openAIStep*openAIStep
		}
		s.prompts[scope] = append(s.prompts[scope], prompt)
	}
	s.stats.Chat++
	s.stats.PromptTokens += total
	s.stats.CachedTokens += cached
	s.stats.Evaluated += total - cached
	return cached
}

func defaultGenerate(content string) string { return fakeapi.ContextFor(content, 6) }

// Vector is the fake's deterministic embedding of text: dim values from an
// FNV hash of the text, L2-normalised (fakeembed.HashVector).
func Vector(text string, dim int) []float64 { return fakeembed.HashVector(text, dim) }

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) {
	var req struct {
		Model      string          `json:"model"`
		Input      json.RawMessage `json:"input"`
		Dimensions int             `json:"dimensions"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.writeError(w, http.StatusBadRequest, "invalid_request_error", "", "could not parse the JSON body: "+err.Error())
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			s.writeError(w, http.StatusBadRequest, "invalid_request_error", "", "'input' must be a string or an array of strings")
			return
		}
		inputs = []string{one}
	}
	dim := s.cfg.EmbedDim
	if req.Dimensions > 0 {
		dim = req.Dimensions
	}
	tokens := 0
	var data []string
	for i, in := range inputs {
		if in == "" {
			s.writeError(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("'$.input[%d]' is invalid: empty string", i))
			return
		}
		if CountTokens(in) > s.cfg.ContextWindow {
			s.writeError(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("This model's maximum context length is %d tokens, however you requested %d tokens in input %d.", s.cfg.ContextWindow, CountTokens(in), i))
			return
		}
		tokens += CountTokens(in)
		vec, _ := json.Marshal(Vector(in, dim))
		if i == 0 && f != nil && f.Kind == FaultNaN {
			vec = []byte(`["NaN"` + strings.Repeat(",0", dim-1) + `]`)
		}
		data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%s}`, i, vec))
	}
	if f != nil && f.Kind == FaultWrongCount && len(data) > 0 {
		data = data[:len(data)-1]
	}
	s.mu.Lock()
	s.stats.Embed++
	s.mu.Unlock()
	w.Header().Set("content-type", "application/json")
	fmt.Fprintf(w, `{"object":"list","data":[%s],"model":%q,"usage":{"prompt_tokens":%d,"total_tokens":%d}}`,
		strings.Join(data, ","), s.cfg.Model, tokens, tokens)
}

func (s *Server) handleRerank(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) {
	var req struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		TopN      int      `json:"top_n"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Query == "" {
		s.writeError(w, http.StatusBadRequest, "invalid_request_error", "", "'query' and 'documents' are required")
		return
	}
	// Relevance: the share of query words found in the document.
	qw := strings.Fields(strings.ToLower(req.Query))
	type res struct {
		Index int     `json:"index"`
		Score float64 `json:"relevance_score"`
	}
	out := make([]res, len(req.Documents))
	for i, d := range req.Documents {
		dl := strings.ToLower(d)
		hit := 0
		for _, q := range qw {
			if strings.Contains(dl, q) {
				hit++
			}
		}
		out[i] = res{Index: i, Score: float64(hit) / float64(len(qw))}
	}
	// Sorted by score, as llama.cpp and Jina return them.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Score > out[j-1].Score; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	if req.TopN > 0 && req.TopN < len(out) {
		out = out[:req.TopN]
	}
	if f != nil && f.Kind == FaultWrongCount && len(out) > 0 {
		out = out[:len(out)-1]
	}
	s.mu.Lock()
	s.stats.Rerank++
	s.mu.Unlock()
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"model": s.cfg.Model, "object": "list", "results": out,
		"usage": map[string]any{"prompt_tokens": 0, "total_tokens": 0}})
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request, _ []byte, _ *Fault) {
	m := map[string]any{"id": s.cfg.Model, "object": "model", "owned_by": s.cfg.Flavor}
	switch s.cfg.Flavor {
	case FlavorVLLM:
		m["max_model_len"] = s.cfg.ContextWindow
		m["root"] = s.cfg.Model
	case FlavorLlamaCpp:
		h := fnv.New32a()
		h.Write([]byte(s.cfg.ModelPath))
		// As llama-server 3.21 answers: vocab_type a bool, ftype a name.
		m["meta"] = map[string]any{"vocab_type": true, "n_vocab": 32000, "n_ctx_train": 8192, "n_embd": 64,
			"n_params": 1000000 + int(h.Sum32()%1000), "size": 4000000 + int(h.Sum32()%4000), "ftype": "all F32"}
	}
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []any{m}})
}

func (s *Server) handleTokenize(w http.ResponseWriter, _ *http.Request, body []byte, _ *Fault) {
	var req struct {
		Content string `json:"content"`
		Prompt  string `json:"prompt"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.writeError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	s.mu.Lock()
	s.stats.Tokenize++
	s.mu.Unlock()
	w.Header().Set("content-type", "application/json")
	if s.cfg.Flavor == FlavorVLLM {
		n := CountTokens(req.Prompt)
		_ = json.NewEncoder(w).Encode(map[string]any{"count": n, "max_model_len": s.cfg.ContextWindow, "tokens": make([]int, n)})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"tokens": make([]int, CountTokens(req.Content))})
}

func (s *Server) handleProps(w http.ResponseWriter, _ *http.Request, _ []byte, _ *Fault) {
	s.mu.Lock()
	s.stats.Props++
	s.mu.Unlock()
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"default_generation_settings": map[string]any{"n_ctx": s.cfg.ContextWindow},
		"total_slots":                 s.cfg.Slots, "model_alias": s.cfg.Model, "build_info": "fake",
		"model_path": s.cfg.ModelPath,
	})
}

// ErrorWriter returns a function that answers a status with the error
// shape of flavor: OpenAI's {"error":{"message","type","param","code"}}
// with the type and code OpenAI uses for it (401 invalid_api_key, 404
// model_not_found, 429 rate_limit_exceeded, 5xx server_error), or
// llama.cpp's {"error":{"code":<status>,"message","type"}}.
func ErrorWriter(flavor string) func(w http.ResponseWriter, status int, message string) {
	s := &Server{cfg: Config{Flavor: flavor}}
	return func(w http.ResponseWriter, status int, message string) {
		typ, code := "invalid_request_error", ""
		switch {
		case status == http.StatusUnauthorized:
			code = "invalid_api_key"
		case status == http.StatusForbidden:
			typ = "permission_error"
		case status == http.StatusNotFound:
			code = "model_not_found"
		case status == http.StatusTooManyRequests:
			typ, code = "requests", "rate_limit_exceeded"
		case status >= 500:
			typ = "server_error"
		}
		s.writeError(w, status, typ, code, message)
	}
}
