package anthropictest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/situate/situate/internal/fakeapi"
)

// Defaults of Config.
const (
	DefaultContextWindow = 200000
	maxBody              = 32 << 20
	maxCacheBreakpoints  = 4
)

// Config configures a Server. The zero value is a server without
// authentication, delays or faults, on the wall clock.
type Config struct {
	// APIKey, if set, must be sent as x-api-key (else 401
	// authentication_error).
	APIKey string
	// Now is the clock for cache expiry and batch timing; nil is time.Now.
	Now func() time.Time
	// FirstTokenDelay is the wall-clock wait before message_start (prefill).
	FirstTokenDelay time.Duration
	// StreamDelay is the wall-clock wait between message_start and the
	// text (generation). A request that arrives in this window reads the
	// cache entry the first one wrote.
	StreamDelay time.Duration
	// ContextWindow in tokens; prompts above it are a 400 "prompt is too
	// long". 0 means DefaultContextWindow.
	ContextWindow int
	// MinCacheTokens overrides the per-model minimum cacheable length.
	MinCacheTokens func(model string) int
	// Generate makes the answer from the request's text blocks (system
	// first, in order); nil uses "Context for: " + the first 8 words of the
	// last block (of its <chunk>...</chunk> part if it has one).
	Generate func(model string, blocks []string) string
	// BatchProcessingTime is how long after creation (on Now) a batch ends.
	BatchProcessingTime time.Duration
}

// FaultKind names an injected failure.
type FaultKind int

// Fault kinds. Status faults apply to any endpoint; FaultTruncated,
// FaultStreamError and FaultEmpty shape the answer of the faulted request.
const (
	// FaultRateLimit is 429 rate_limit_error with retry-after.
	FaultRateLimit FaultKind = iota + 1
	// FaultSpendLimit is 429 rate_limit_error with details.error_code
	// "enforced_spend_limit_reached" and no retry-after.
	FaultSpendLimit
	// FaultOverloaded is 529 overloaded_error.
	FaultOverloaded
	// FaultServerError is 500 api_error.
	FaultServerError
	// FaultReset closes the TCP connection with a reset before answering.
	FaultReset
	// FaultHang never answers until the client gives up or the server closes.
	FaultHang
	// FaultTruncated cuts the answer inside a JSON value: after
	// message_start for a stream, halfway for a JSON or JSONL body.
	FaultTruncated
	// FaultStreamError sends message_start, then an error event
	// (overloaded_error), as Anthropic does under load.
	FaultStreamError
	// FaultEmpty answers with no text at all.
	FaultEmpty
)

func (k FaultKind) String() string {
	switch k {
	case FaultRateLimit:
		return "rate_limit"
	case FaultSpendLimit:
		return "spend_limit"
	case FaultOverloaded:
		return "overloaded"
	case FaultServerError:
		return "server_error"
	case FaultReset:
		return "reset"
	case FaultHang:
		return "hang"
	case FaultTruncated:
		return "truncated"
	case FaultStreamError:
		return "stream_error"
	case FaultEmpty:
		return "empty"
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// Fault is one injected failure, used by the first matching request.
type Fault struct {
	Kind FaultKind
	// RetryAfter is sent as retry-after (whole seconds, rounded up) with
	// FaultRateLimit (default 1s) and FaultOverloaded (only if set).
	RetryAfter time.Duration
	// Path selects the requests it applies to: "" is POST /v1/messages;
	// otherwise a suffix of the URL path ("/count_tokens", "/batches",
	// "/results", "/cancel") or a batch id.
	Path string
}

// Stats counts what the server saw and did.
type Stats struct {
	// Messages counts POST /v1/messages requests, faulted ones included.
	Messages int
	// Started counts answers begun (message_start sent); Completed, answers
	// finished (message_stop sent, or a batch request processed).
	Started, Completed int
	Faults             int
	// Token totals of started messages and processed batch requests.
	InputTokens, OutputTokens int
	CacheWrites               int // requests that wrote a cache entry
	CacheWriteTokens          int
	CacheReads                int // requests that read one
	CacheReadTokens           int
	CountTokens               int // count_tokens calls
	BatchesCreated            int
	BatchRequests             int // batch requests processed
	// Connections counts TCP connections accepted (reuse keeps it low).
	Connections int
}

// Request is one request the server received.
type Request = fakeapi.Request

// Server is the fake API. Its URL goes into the client's BaseURL.
type Server struct {
	*fakeapi.Server[Fault]

	cfg Config

	mu         sync.Mutex
	seq        int
	cache      map[string]*entry
	stats      Stats
	batches    map[string]*batch
	itemFaults map[string]string
}

type entry struct {
	expires time.Time
	ttl     time.Duration
}

// NewServer starts a fake server; Close it when done.
func NewServer(cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ContextWindow == 0 {
		cfg.ContextWindow = DefaultContextWindow
	}
	if cfg.MinCacheTokens == nil {
		cfg.MinCacheTokens = MinCacheTokens
	}
	if cfg.Generate == nil {
		cfg.Generate = defaultGenerate
	}
	s := &Server{cfg: cfg, cache: map[string]*entry{}, batches: map[string]*batch{}, itemFaults: map[string]string{}}
	s.Server = fakeapi.New(fakeapi.Hooks[Fault]{
		MaxBody: maxBody,
		Match:   matchFault,
		Arrive: func(w http.ResponseWriter, r *http.Request, _ int, f *Fault) {
			s.mu.Lock()
			s.seq++
			reqID := fmt.Sprintf("req_fake_%06d", s.seq)
			if r.Method == http.MethodPost && r.URL.Path == "/v1/messages" {
				s.stats.Messages++
			}
			if f != nil {
				s.stats.Faults++
			}
			s.mu.Unlock()
			w.Header().Set("request-id", reqID)
		},
		ReadError: func(w http.ResponseWriter, _ *http.Request, _ error) {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "could not read request body")
		},
		Intercept: s.intercept,
	})
	s.Handle("POST /v1/messages", s.handleMessages)
	s.Handle("POST /v1/messages/count_tokens", s.handleCountTokens)
	s.Handle("POST /v1/messages/batches", s.handleBatchCreate)
	s.Handle("GET /v1/messages/batches/{id}", s.handleBatchGet)
	s.Handle("POST /v1/messages/batches/{id}/cancel", s.handleBatchCancel)
	s.Handle("GET /v1/messages/batches/{id}/results", s.handleBatchResults)
	s.Handle("/", func(w http.ResponseWriter, r *http.Request, _ []byte, _ *Fault) {
		writeError(w, http.StatusNotFound, "not_found_error", "Not found: "+r.Method+" "+r.URL.Path)
	})
	s.HTTPServer().Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.stats.Connections++
			s.mu.Unlock()
		}
	}
	s.Start()
	return s
}

// FailBatchItem makes the batch request customID end as resultType
// ("errored" with errType such as "api_error" or "invalid_request_error",
// "canceled" or "expired") the next time a batch containing it is processed.
func (s *Server) FailBatchItem(customID, resultType, errType string) {
	s.mu.Lock()
	s.itemFaults[customID] = resultType + ":" + errType
	s.mu.Unlock()
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// CacheEntries is the number of live (unexpired) cache entries.
func (s *Server) CacheEntries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	n := 0
	for _, e := range s.cache {
		if now.Before(e.expires) {
			n++
		}
	}
	return n
}

// intercept answers, in this order, a body over the limit, a wrong key,
// a missing anthropic-version header and the faults that replace the
// whole answer (status, reset, hang).
func (s *Server) intercept(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) bool {
	switch {
	case len(body) > maxBody:
		writeError(w, http.StatusRequestEntityTooLarge, "request_too_large", "Request exceeds the maximum allowed number of bytes.")
		return true
	case s.cfg.APIKey != "" && r.Header.Get("x-api-key") != s.cfg.APIKey:
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return true
	case r.Header.Get("anthropic-version") == "":
		writeError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return true
	}
	if f != nil {
		switch f.Kind {
		case FaultRateLimit:
			ra := f.RetryAfter
			if ra <= 0 {
				ra = time.Second
			}
			fakeapi.RetryAfter(w, ra)
			w.Header().Set("anthropic-ratelimit-requests-remaining", "0")
			writeError(w, http.StatusTooManyRequests, "rate_limit_error",
				"Number of request tokens has exceeded your per-minute rate limit; see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.")
			return true
		case FaultSpendLimit:
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"type": "error", "error": map[string]any{
				"type": "rate_limit_error", "message": "You have reached your specified API usage limits.",
				"details": map[string]string{"error_code": "enforced_spend_limit_reached"}}})
			return true
		case FaultOverloaded:
			fakeapi.RetryAfter(w, f.RetryAfter)
			writeError(w, 529, "overloaded_error", "Overloaded")
			return true
		case FaultServerError:
			writeError(w, http.StatusInternalServerError, "api_error", "Internal server error")
			return true
		case FaultReset:
			fakeapi.Reset(w)
			return true
		case FaultHang:
			s.Hang(r.Context())
			return true
		}
	}
	return false
}

// matchFault reports whether f applies to r: a fault without Path to
// POST /v1/messages, else to any URL path ending in Path.
func matchFault(f *Fault, r *http.Request) bool {
	if f.Path == "" {
		return r.Method == http.MethodPost && r.URL.Path == "/v1/messages"
	}
	return strings.HasSuffix(r.URL.Path, f.Path)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg},
		"request_id": w.Header().Get("request-id")})
}

// apiError is a 4xx answer found while validating a request.
type apiError struct {
	status int
	typ    string
	msg    string
}

func badRequest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "invalid_request_error", fmt.Sprintf(format, args...)}
}

// Wire shapes of a request.

type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

type contentBlock struct {
	Type         string        `json:"type"`
	Text         *string       `json:"text"`
	CacheControl *cacheControl `json:"cache_control"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type messageRequest struct {
	Model     string          `json:"model"`
	MaxTokens *int            `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    json.RawMessage `json:"system"`
	Messages  []message       `json:"messages"`
}

// segment is one text block of a request, in prompt order.
type segment struct {
	role, text string
	ttl        string // "" if not a cache breakpoint, else "5m" or "1h"
}

// turn is a validated request with its cache accounting.
type turn struct {
	model     string
	maxTokens int
	stream    bool
	segs      []segment
	total     int // input tokens including framing
	// Cache accounting, decided when processing starts.
	read, write5m, write1h int
	pending                []string // keys written at message_start
	pendingTTL             []time.Duration
}

func (t *turn) input() int { return t.total - t.read - t.write5m - t.write1h }

// parseBlocks reads content that is a string or an array of text blocks.
func parseBlocks(raw json.RawMessage, role, field string) ([]segment, *apiError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return nil, badRequest("%s: text content blocks must be non-empty", field)
		}
		return []segment{{role: role, text: s}}, nil
	}
	var blocks []contentBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, badRequest("%s: Input should be a valid string or list of content blocks", field)
	}
	segs := make([]segment, 0, len(blocks))
	for i, b := range blocks {
		f := fmt.Sprintf("%s.%d", field, i)
		if b.Type != "text" {
			return nil, badRequest("%s.type: only \"text\" blocks are supported by this fake, got %q", f, b.Type)
		}
		if b.Text == nil {
			return nil, badRequest("%s.text: Field required", f)
		}
		if *b.Text == "" {
			return nil, badRequest("%s: text content blocks must be non-empty", f)
		}
		sg := segment{role: role, text: *b.Text}
		if cc := b.CacheControl; cc != nil {
			if cc.Type != "ephemeral" {
				return nil, badRequest("%s.cache_control.type: Input should be 'ephemeral'", f)
			}
			switch cc.TTL {
			case "", "5m":
				sg.ttl = "5m"
			case "1h":
				sg.ttl = "1h"
			default:
				return nil, badRequest("%s.cache_control.ttl: Input should be '5m' or '1h'", f)
			}
		}
		segs = append(segs, sg)
	}
	return segs, nil
}

// validate parses and checks a Messages request the way the API does.
func (s *Server) validate(body []byte) (*turn, *apiError) {
	var req messageRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, badRequest("invalid request body: %v", err)
	}
	return s.validateParsed(&req, true)
}

func (s *Server) validateParsed(req *messageRequest, checkWindow bool) (*turn, *apiError) {
	if req.Model == "" {
		return nil, badRequest("model: Field required")
	}
	if !strings.HasPrefix(req.Model, "claude-") {
		return nil, &apiError{http.StatusNotFound, "not_found_error", "model: " + req.Model}
	}
	if req.MaxTokens == nil {
		return nil, badRequest("max_tokens: Field required")
	}
	if *req.MaxTokens < 1 {
		return nil, badRequest("max_tokens: Input should be greater than or equal to 1")
	}
	if len(req.Messages) == 0 {
		return nil, badRequest("messages: at least one message is required")
	}
	t := &turn{model: req.Model, maxTokens: *req.MaxTokens, stream: req.Stream}
	sys, e := parseBlocks(req.System, "system", "system")
	if e != nil {
		return nil, e
	}
	t.segs = append(t.segs, sys...)
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return nil, badRequest("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if i == 0 && m.Role != "user" {
			return nil, badRequest("messages: first message must use the \"user\" role")
		}
		segs, e := parseBlocks(m.Content, m.Role, fmt.Sprintf("messages.%d.content", i))
		if e != nil {
			return nil, e
		}
		if len(segs) == 0 {
			return nil, badRequest("messages.%d.content: Field required", i)
		}
		t.segs = append(t.segs, segs...)
	}
	n := 0
	t.total = MessageOverhead
	for _, sg := range t.segs {
		if sg.ttl != "" {
			n++
		}
		t.total += CountTokens(sg.text)
	}
	if n > maxCacheBreakpoints {
		return nil, badRequest("A maximum of %d blocks with cache_control may be provided. Found %d.", maxCacheBreakpoints, n)
	}
	if checkWindow && t.total > s.cfg.ContextWindow {
		return nil, badRequest("prompt is too long: %d tokens > %d maximum", t.total, s.cfg.ContextWindow)
	}
	return t, nil
}

// cacheKey identifies the prompt up to and including segment i.
func cacheKey(model string, segs []segment, i int) string {
	h := sha256.New()
	h.Write([]byte(model))
	for _, sg := range segs[:i+1] {
		h.Write([]byte{0})
		h.Write([]byte(sg.role))
		h.Write([]byte{0})
		h.Write([]byte(sg.text))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func ttlDuration(ttl string) time.Duration {
	if ttl == "1h" {
		return time.Hour
	}
	return 5 * time.Minute
}

// lookup decides what t reads from and writes to the cache, as processing
// starts (s.mu held). Entries it writes become readable at commit.
func (s *Server) lookup(t *turn) {
	now := s.cfg.Now()
	var bps, cum []int
	c := MessageOverhead
	for i, sg := range t.segs {
		c += CountTokens(sg.text)
		if sg.ttl != "" {
			bps = append(bps, i)
			cum = append(cum, c)
		}
	}
	hit := -1
	for j := len(bps) - 1; j >= 0; j-- {
		k := cacheKey(t.model, t.segs, bps[j])
		if e, ok := s.cache[k]; ok {
			if now.Before(e.expires) {
				e.expires = now.Add(e.ttl) // a read refreshes the TTL
				hit = j
				break
			}
			delete(s.cache, k)
		}
	}
	done := 0
	if hit >= 0 {
		t.read = cum[hit]
		done = cum[hit]
	}
	min := s.cfg.MinCacheTokens(t.model)
	for j := hit + 1; j < len(bps); j++ {
		if cum[j] < min {
			continue
		}
		ttl := t.segs[bps[j]].ttl
		if ttl == "1h" {
			t.write1h += cum[j] - done
		} else {
			t.write5m += cum[j] - done
		}
		done = cum[j]
		t.pending = append(t.pending, cacheKey(t.model, t.segs, bps[j]))
		t.pendingTTL = append(t.pendingTTL, ttlDuration(ttl))
	}
}

// commit makes t's cache entries readable and counts its tokens (s.mu held).
func (s *Server) commit(t *turn, out int) {
	now := s.cfg.Now()
	for i, k := range t.pending {
		s.cache[k] = &entry{expires: now.Add(t.pendingTTL[i]), ttl: t.pendingTTL[i]}
	}
	s.stats.InputTokens += t.input()
	s.stats.OutputTokens += out
	if w := t.write5m + t.write1h; w > 0 {
		s.stats.CacheWrites++
		s.stats.CacheWriteTokens += w
	}
	if t.read > 0 {
		s.stats.CacheReads++
		s.stats.CacheReadTokens += t.read
	}
}

// answer generates the text for t, cut to max_tokens.
func (s *Server) answer(t *turn, empty bool) (text, stop string, out int) {
	if empty {
		return "", "end_turn", 0
	}
	blocks := make([]string, len(t.segs))
	for i, sg := range t.segs {
		blocks[i] = sg.text
	}
	text = s.cfg.Generate(t.model, blocks)
	stop = "end_turn"
	if CountTokens(text) > t.maxTokens {
		cut := t.maxTokens * BytesPerToken
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text, stop = text[:cut], "max_tokens"
	}
	return text, stop, CountTokens(text)
}

func defaultGenerate(_ string, blocks []string) string {
	if len(blocks) == 0 {
		return ""
	}
	chunk := blocks[len(blocks)-1]
	if i := strings.Index(chunk, "<chunk>"); i >= 0 {
		rest := chunk[i+len("<chunk>"):]
		if j := strings.Index(rest, "</chunk>"); j >= 0 {
			chunk = rest[:j]
		}
	}
	words := strings.Fields(chunk)
	if len(words) > 8 {
		words = words[:8]
	}
	return "Context for: " + strings.Join(words, " ")
}

// Wire shapes of an answer.

type usageJSON struct {
	InputTokens              int                `json:"input_tokens"`
	CacheCreationInputTokens int                `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int                `json:"cache_read_input_tokens"`
	CacheCreation            *cacheCreationJSON `json:"cache_creation,omitempty"`
	OutputTokens             int                `json:"output_tokens"`
	ServiceTier              string             `json:"service_tier,omitempty"`
}

type cacheCreationJSON struct {
	Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
}

type textBlockJSON struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type messageJSON struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Model        string          `json:"model"`
	Content      []textBlockJSON `json:"content"`
	StopReason   *string         `json:"stop_reason"`
	StopSequence *string         `json:"stop_sequence"`
	Usage        usageJSON       `json:"usage"`
}

func (t *turn) usage(out int) usageJSON {
	return usageJSON{InputTokens: t.input(), CacheCreationInputTokens: t.write5m + t.write1h,
		CacheReadInputTokens: t.read, CacheCreation: &cacheCreationJSON{t.write5m, t.write1h},
		OutputTokens: out, ServiceTier: "standard"}
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("%s_fake%020d", prefix, s.seq)
}

func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) {
	t, e := s.validate(body)
	if e != nil {
		writeError(w, e.status, e.typ, e.msg)
		return
	}
	kind := FaultKind(0)
	if f != nil {
		kind = f.Kind
	}
	s.mu.Lock()
	s.lookup(t)
	s.mu.Unlock()
	if !s.Sleep(r.Context(), s.cfg.FirstTokenDelay) {
		return // client gone before the answer started: nothing written
	}
	text, stop, out := s.answer(t, kind == FaultEmpty)
	id := s.nextID("msg")
	if !t.stream {
		s.mu.Lock()
		s.commit(t, out)
		s.stats.Started++
		s.stats.Completed++
		s.mu.Unlock()
		if !s.Sleep(r.Context(), s.cfg.StreamDelay) {
			return
		}
		m := messageJSON{ID: id, Type: "message", Role: "assistant", Model: t.model, Content: []textBlockJSON{},
			StopReason: &stop, Usage: t.usage(out)}
		if text != "" {
			m.Content = append(m.Content, textBlockJSON{"text", text})
		}
		if kind == FaultTruncated {
			fakeapi.WriteJSON(w, "", m, true)
			return
		}
		writeJSON(w, http.StatusOK, m)
		return
	}

	fl, _ := w.(http.Flusher)
	w.Header().Set("content-type", "text/event-stream; charset=utf-8")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(name string, v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		if fl != nil {
			fl.Flush()
		}
	}
	start := t.usage(1)
	s.mu.Lock()
	s.commit(t, out)
	s.stats.Started++
	s.mu.Unlock()
	send("message_start", map[string]any{"type": "message_start", "message": messageJSON{ID: id, Type: "message",
		Role: "assistant", Model: t.model, Content: []textBlockJSON{}, Usage: start}})
	switch kind {
	case FaultStreamError:
		send("error", map[string]any{"type": "error", "error": map[string]string{"type": "overloaded_error", "message": "Overloaded"}})
		return
	case FaultTruncated:
		fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_del\n\n")
		return
	}
	if !s.Sleep(r.Context(), s.cfg.StreamDelay) {
		return
	}
	send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": textBlockJSON{"text", ""}})
	send("ping", map[string]string{"type": "ping"})
	for _, piece := range splitText(text, 3) {
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]string{"type": "text_delta", "text": piece}})
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	u := t.usage(out)
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"input_tokens": u.InputTokens, "cache_creation_input_tokens": u.CacheCreationInputTokens,
			"cache_read_input_tokens": u.CacheReadInputTokens, "output_tokens": out}})
	// Counted before the last event so a client that returns on
	// message_stop sees it in Stats.
	s.mu.Lock()
	s.stats.Completed++
	s.mu.Unlock()
	send("message_stop", map[string]string{"type": "message_stop"})
}

// splitText cuts text into up to n pieces at spaces.
func splitText(text string, n int) []string {
	if text == "" {
		return nil
	}
	words := strings.SplitAfter(text, " ")
	per := (len(words) + n - 1) / n
	var out []string
	for i := 0; i < len(words); i += per {
		out = append(out, strings.Join(words[i:min(i+per, len(words))], ""))
	}
	return out
}

func (s *Server) handleCountTokens(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) {
	var req messageRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid request body: "+err.Error())
		return
	}
	one := 1
	req.MaxTokens = &one // count_tokens takes no max_tokens
	t, e := s.validateParsed(&req, false)
	if e != nil {
		writeError(w, e.status, e.typ, e.msg)
		return
	}
	s.mu.Lock()
	s.stats.CountTokens++
	s.mu.Unlock()
	v := map[string]int{"input_tokens": t.total}
	if f != nil && f.Kind == FaultTruncated {
		fakeapi.WriteJSON(w, "", v, true)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// WriteError answers status with Anthropic's error shape and the error.type
// Anthropic uses for it (401 authentication_error, 403 permission_error,
// 404 not_found_error, 429 rate_limit_error, 500 api_error, 529
// overloaded_error, else invalid_request_error).
func WriteError(w http.ResponseWriter, status int, message string) {
	typ := map[int]string{401: "authentication_error", 403: "permission_error", 404: "not_found_error",
		413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}[status]
	if typ == "" {
		typ = "invalid_request_error"
	}
	writeError(w, status, typ, message)
}
