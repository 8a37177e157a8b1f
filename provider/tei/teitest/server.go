package teitest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/situate/situate/internal/fakeapi"
)

// Defaults of Config, those of a TEI server started with only --model-id
// (max_client_batch_size 32) serving a 384-dimensional BERT-size model
// with a 512-token context.
const (
	DefaultModelID            = "BAAI/bge-small-en-v1.5"
	DefaultRerankerID         = "BAAI/bge-reranker-base"
	DefaultDim                = 384
	DefaultMaxClientBatchSize = 32
	DefaultMaxInputLength     = 512
	DefaultMaxBatchTokens     = 16384
	// DefaultPayloadLimit is TEI's --payload-limit (2 MB).
	DefaultPayloadLimit = 2000000
)

// Config configures a Server.
type Config struct {
	// ModelID defaults to DefaultModelID, or DefaultRerankerID when
	// Reranker is set.
	ModelID string
	// Reranker serves a sequence-classification model with one label:
	// /rerank works and /embed answers 424.
	Reranker bool
	// APIKey, if set, must be sent as "Authorization: Bearer <key>" (else a
	// bare 401, as TEI's --api-key middleware does).
	APIKey string
	// Dim defaults to DefaultDim.
	Dim int
	// MaxClientBatchSize defaults to DefaultMaxClientBatchSize.
	MaxClientBatchSize int
	// MaxInputLength defaults to DefaultMaxInputLength.
	MaxInputLength int
	// AutoTruncate is --auto-truncate: the default of "truncate".
	AutoTruncate bool
	// PayloadLimit defaults to DefaultPayloadLimit; a larger body is a 413
	// with a plain-text body.
	PayloadLimit int
}

// FaultKind names an injected failure.
type FaultKind = fakeapi.Kind

// Fault kinds.
const (
	FaultOverloaded = fakeapi.RateLimited // 429 {"error":"Model is overloaded","error_type":"Overloaded"}
	FaultUnhealthy  = fakeapi.Unavailable // 503 unhealthy
	FaultBackend    = fakeapi.ServerError // 424 {"error":"Inference failed","error_type":"Backend"}
	FaultWrongCount = fakeapi.WrongCount  // one vector (or rank) too few
	FaultWrongDim   = fakeapi.WrongDim    // the first vector one value short
	FaultNaN        = fakeapi.NaN         // a NaN literal in the first vector
	FaultEmpty      = fakeapi.Empty       // []
	FaultTruncated  = fakeapi.Truncated   // the body cut in half
	FaultBadIndex   = fakeapi.BadIndex    // two ranks with the same index
	FaultZero       = fakeapi.Zero        // the first vector all zeros
)

// Fault is one injected failure, used by the first matching request; its
// Path is "/embed" or "/rerank" ("" matches either; GET /info takes no
// fault). RetryAfter is sent with any kind: TEI itself sends none,
// proxies in front of it may.
type Fault = fakeapi.Fault

// Stats counts what the server saw.
type Stats struct {
	Info, Embeds, Reranks int // requests per endpoint, rejected ones included
	Texts                 int // texts in successful requests
	TooLarge              int // 413 answers
	Faults                int
	Tokens                int // x-compute-tokens sent
}

// Request is one request the server received.
type Request = fakeapi.Request

// Server is the fake TEI server; its URL goes into Options.BaseURL.
type Server struct {
	*fakeapi.Server[Fault]

	cfg   Config
	mu    sync.Mutex
	stats Stats
}

// NewServer starts a fake server; Close it when done.
func NewServer(cfg Config) *Server {
	if cfg.ModelID == "" {
		cfg.ModelID = DefaultModelID
		if cfg.Reranker {
			cfg.ModelID = DefaultRerankerID
		}
	}
	if cfg.Dim == 0 {
		cfg.Dim = DefaultDim
	}
	if cfg.MaxClientBatchSize == 0 {
		cfg.MaxClientBatchSize = DefaultMaxClientBatchSize
	}
	if cfg.MaxInputLength == 0 {
		cfg.MaxInputLength = DefaultMaxInputLength
	}
	if cfg.PayloadLimit == 0 {
		cfg.PayloadLimit = DefaultPayloadLimit
	}
	s := &Server{cfg: cfg}
	hooks := fakeapi.FaultHooks(fakeapi.Hooks[Fault]{
		MaxBody: int64(cfg.PayloadLimit),
		Arrive: func(_ http.ResponseWriter, r *http.Request, _ int, f *Fault) {
			s.mu.Lock()
			defer s.mu.Unlock()
			switch r.URL.Path {
			case "/info":
				s.stats.Info++
			case "/embed":
				s.stats.Embeds++
			case "/rerank":
				s.stats.Reranks++
			}
			if f != nil {
				s.stats.Faults++
			}
		},
		// TEI's --api-key middleware answers a bare 401.
		Authorized:   fakeapi.Bearer(cfg.APIKey),
		Unauthorized: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) },
		Intercept:    s.intercept,
	})
	byPath := hooks.Match
	hooks.Match = func(f *Fault, r *http.Request) bool { return r.URL.Path != "/info" && byPath(f, r) }
	s.Server = fakeapi.New(hooks)
	s.Handle("GET /info", s.info)
	s.Handle("POST /embed", s.embed)
	s.Handle("POST /rerank", s.rerank)
	s.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {})
	s.Start()
	return s
}

// SetMaxClientBatchSize changes the limit, as a restart with another
// --max-client-batch-size would.
func (s *Server) SetMaxClientBatchSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.MaxClientBatchSize = n
}

// Stats returns the counters so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// ErrorBody is TEI's error body.
type ErrorBody struct {
	Error     string `json:"error"`
	ErrorType string `json:"error_type"`
}

// statusOf maps TEI's error types to statuses as its router does.
var statusOf = map[string]int{"Unhealthy": 503, "Backend": 424, "Overloaded": 429, "Validation": 413, "Tokenizer": 422}

func (s *Server) writeError(w http.ResponseWriter, typ, msg string) {
	if statusOf[typ] == http.StatusRequestEntityTooLarge {
		s.mu.Lock()
		s.stats.TooLarge++
		s.mu.Unlock()
	}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(statusOf[typ])
	enc := json.NewEncoder(w) // serde_json does not escape <, >, &
	enc.SetEscapeHTML(false)
	enc.Encode(ErrorBody{Error: msg, ErrorType: typ})
}

// intercept answers a body over --payload-limit (a 413 in plain text, as
// the HTTP layer in front of TEI's router does) and the faults that
// replace the whole answer.
func (s *Server) intercept(w http.ResponseWriter, _ *http.Request, body []byte, f *Fault) bool {
	if len(body) > s.cfg.PayloadLimit {
		s.mu.Lock()
		s.stats.TooLarge++
		s.mu.Unlock()
		w.Header().Set("content-type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		io.WriteString(w, "Failed to buffer the request body: length limit exceeded")
		return true
	}
	if f == nil {
		return false
	}
	fakeapi.RetryAfter(w, f.RetryAfter)
	switch f.Kind {
	case FaultOverloaded:
		s.writeError(w, "Overloaded", "Model is overloaded")
	case FaultUnhealthy:
		s.writeError(w, "Unhealthy", "unhealthy")
	case FaultBackend:
		s.writeError(w, "Backend", "Inference failed")
	default:
		return false
	}
	return true
}

func (s *Server) info(w http.ResponseWriter, _ *http.Request, _ []byte, _ *Fault) {
	s.mu.Lock()
	cfg := s.cfg
	s.mu.Unlock()
	var mt any = map[string]any{"embedding": map[string]string{"pooling": "cls"}}
	if cfg.Reranker {
		mt = map[string]any{"reranker": map[string]any{"id2label": map[string]string{"0": "LABEL_0"}, "label2id": map[string]int{"LABEL_0": 0}}}
	}
	writeJSON(w, map[string]any{"model_id": cfg.ModelID, "model_sha": nil, "model_dtype": "float32", "model_type": mt,
		"max_concurrent_requests": 512, "max_input_length": cfg.MaxInputLength, "max_batch_tokens": DefaultMaxBatchTokens,
		"max_batch_requests": nil, "max_client_batch_size": cfg.MaxClientBatchSize, "auto_truncate": cfg.AutoTruncate,
		"tokenization_workers": 2, "version": "1.7.0", "sha": nil, "docker_label": nil}, nil, 0)
}

// writeJSON answers v with TEI's x-compute-* headers, shaped by a fault.
func writeJSON(w http.ResponseWriter, v any, f *Fault, tokens int) {
	if tokens > 0 {
		w.Header().Set("x-compute-type", "cpu")
		w.Header().Set("x-compute-tokens", strconv.Itoa(tokens))
		w.Header().Set("x-compute-characters", "0")
	}
	fakeapi.WriteJSON(w, "", v, f.Is(FaultTruncated))
}

// texts validates the batch; it writes TEI's error and returns false when
// invalid. Texts above max_input_length are cut when truncate is on.
func (s *Server) texts(w http.ResponseWriter, in []string, truncate bool) (int, bool) {
	s.mu.Lock()
	limit, maxLen := s.cfg.MaxClientBatchSize, s.cfg.MaxInputLength
	s.mu.Unlock()
	if len(in) == 0 {
		s.writeError(w, "Validation", "`inputs` cannot be empty")
		return 0, false
	}
	if len(in) > limit {
		s.writeError(w, "Validation", fmt.Sprintf("batch size %d > maximum allowed batch size %d", len(in), limit))
		return 0, false
	}
	total := 0
	for i, t := range in {
		n := Tokens(t) + 2 // [CLS] and [SEP]
		if n > maxLen {
			if !truncate {
				s.writeError(w, "Validation", fmt.Sprintf("Input validation error: `inputs` must have less than %d tokens. Given: %d", maxLen, n))
				return 0, false
			}
			in[i] = fakeapi.TruncateTokens(t, maxLen-2, Tokens)
			n = maxLen
		}
		total += n
	}
	return total, true
}

func (s *Server) embed(w http.ResponseWriter, _ *http.Request, body []byte, f *Fault) {
	var req struct {
		Inputs     json.RawMessage `json:"inputs"`
		Truncate   *bool           `json:"truncate"`
		Normalize  *bool           `json:"normalize"`
		PromptName *string         `json:"prompt_name"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.writeError(w, "Validation", err.Error())
		return
	}
	if s.cfg.Reranker {
		s.writeError(w, "Backend", "model is not an embedding model")
		return
	}
	var in []string
	if err := json.Unmarshal(req.Inputs, &in); err != nil {
		var one string
		if json.Unmarshal(req.Inputs, &one) != nil {
			s.writeError(w, "Validation", "`inputs` must be a string or a list of strings")
			return
		}
		in = []string{one}
	}
	truncate := s.cfg.AutoTruncate
	if req.Truncate != nil {
		truncate = *req.Truncate
	}
	total, ok := s.texts(w, in, truncate)
	if !ok {
		return
	}
	normalize := req.Normalize == nil || *req.Normalize
	vecs := make([][]float32, len(in))
	for i, t := range in {
		if req.PromptName != nil {
			t = *req.PromptName + ": " + t
		}
		vecs[i] = Vector(t, s.cfg.Dim)
		if !normalize { // the unnormalized pooled output has some norm > 1
			scale := float32(1 + len(Terms(t)))
			for j := range vecs[i] {
				vecs[i][j] *= scale
			}
		}
	}
	if f != nil && len(vecs) > 0 {
		if vecs = fakeapi.Shape(vecs, f.Kind); vecs == nil {
			vecs = [][]float32{}
		} else if f.Kind == FaultNaN {
			vecs[0][0] = float32(math.NaN())
		}
	}
	s.mu.Lock()
	s.stats.Texts += len(in)
	s.stats.Tokens += total
	s.mu.Unlock()
	if f != nil && f.Kind == FaultNaN {
		// encoding/json refuses NaN; write it by hand as a broken server would.
		rows := make([]string, len(vecs))
		for i, v := range vecs {
			vals := make([]string, len(v))
			for j, x := range v {
				vals[j] = strconv.FormatFloat(float64(x), 'g', -1, 32)
			}
			rows[i] = "[" + strings.Join(vals, ",") + "]"
		}
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, "["+strings.Join(rows, ",")+"]")
		return
	}
	writeJSON(w, vecs, f, total)
}

func (s *Server) rerank(w http.ResponseWriter, _ *http.Request, body []byte, f *Fault) {
	var req struct {
		Query      string   `json:"query"`
		Texts      []string `json:"texts"`
		Truncate   *bool    `json:"truncate"`
		RawScores  bool     `json:"raw_scores"`
		ReturnText bool     `json:"return_text"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.writeError(w, "Validation", err.Error())
		return
	}
	if len(req.Texts) == 0 {
		s.writeError(w, "Validation", "`texts` cannot be empty")
		return
	}
	if !s.cfg.Reranker {
		s.writeError(w, "Backend", "model is not a re-ranker model")
		return
	}
	truncate := s.cfg.AutoTruncate
	if req.Truncate != nil {
		truncate = *req.Truncate
	}
	pairs := make([]string, len(req.Texts))
	for i, t := range req.Texts {
		pairs[i] = req.Query + " " + t // the cross-encoder sees query and text together
	}
	total, ok := s.texts(w, pairs, truncate)
	if !ok {
		return
	}
	type rank struct {
		Index int     `json:"index"`
		Text  string  `json:"text,omitempty"`
		Score float64 `json:"score"`
	}
	ranks := make([]rank, len(req.Texts))
	for i, t := range req.Texts {
		logit := 10*Score(req.Query, t) - 5
		score := logit
		if !req.RawScores {
			score = 1 / (1 + math.Exp(-logit))
		}
		ranks[i] = rank{Index: i, Score: score}
		if req.ReturnText {
			ranks[i].Text = t
		}
	}
	sort.SliceStable(ranks, func(a, b int) bool { return ranks[a].Score > ranks[b].Score })
	if f != nil && len(ranks) > 0 {
		if ranks = fakeapi.ShapeResults(ranks, f.Kind, func(r *rank) *int { return &r.Index }); ranks == nil {
			ranks = []rank{}
		}
	}
	s.mu.Lock()
	s.stats.Texts += len(req.Texts)
	s.stats.Tokens += total
	s.mu.Unlock()
	writeJSON(w, ranks, f, total)
}

// WriteError answers status as TEI does: its JSON error body with the
// error_type of the status (Overloaded 429, Unhealthy 503, Backend 500 and
// others), except 401, 403 and 404, which come from TEI's --api-key check,
// a reverse proxy or an unknown route, as plain text.
func WriteError(w http.ResponseWriter, status int, message string) {
	if status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusNotFound {
		w.Header().Set("content-type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		w.Write([]byte(message))
		return
	}
	typ := map[int]string{429: "Overloaded", 503: "Unhealthy", 413: "Validation", 422: "Tokenizer"}[status]
	if typ == "" {
		typ = "Backend"
	}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(ErrorBody{Error: message, ErrorType: typ})
}
