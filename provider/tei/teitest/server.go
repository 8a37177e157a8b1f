package teitest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/internal/fakeembed"
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
type FaultKind int

// Fault kinds.
const (
	FaultOverloaded FaultKind = iota + 1 // 429 {"error":"Model is overloaded","error_type":"Overloaded"}
	FaultUnhealthy                       // 503 unhealthy
	FaultBackend                         // 424 {"error":"Inference failed","error_type":"Backend"}
	FaultWrongCount                      // one vector (or rank) too few
	FaultWrongDim                        // the first vector one value short
	FaultNaN                             // a NaN literal in the first vector
	FaultEmpty                           // []
	FaultTruncated                       // the body cut in half
	FaultBadIndex                        // two ranks with the same index
	FaultZero                            // the first vector all zeros
)

// Fault is one injected failure, used by the first matching request.
type Fault struct {
	Kind FaultKind
	// RetryAfter, if set, is sent as retry-after (whole seconds). TEI
	// itself sends none; proxies in front of it may.
	RetryAfter time.Duration
	// Path selects the endpoint ("/embed", "/rerank"); "" matches any.
	Path string
	// Skip lets that many matching requests pass before the fault fires.
	Skip int
}

// Stats counts what the server saw.
type Stats struct {
	Info, Embeds, Reranks int // requests per endpoint, rejected ones included
	Texts                 int // texts in successful requests
	TooLarge              int // 413 answers
	Faults                int
	Tokens                int // x-compute-tokens sent
}

// Request is one request the server received.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte
}

// Server is the fake TEI server; its URL goes into Options.BaseURL.
type Server struct {
	URL string

	cfg    Config
	srv    *httptest.Server
	mu     sync.Mutex
	faults []Fault
	stats  Stats
	reqs   []Request
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
	mux := http.NewServeMux()
	mux.HandleFunc("GET /info", s.wrap(s.info))
	mux.HandleFunc("POST /embed", s.wrap(s.embed))
	mux.HandleFunc("POST /rerank", s.wrap(s.rerank))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {})
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Inject queues a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f)
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

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
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

type handler func(w http.ResponseWriter, body []byte, f *Fault)

func (s *Server) wrap(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, int64(s.cfg.PayloadLimit)+1))
		s.mu.Lock()
		s.reqs = append(s.reqs, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		switch r.URL.Path {
		case "/info":
			s.stats.Info++
		case "/embed":
			s.stats.Embeds++
		case "/rerank":
			s.stats.Reranks++
		}
		var fault *Fault
		if r.URL.Path != "/info" {
			fault = fakeembed.Take(&s.faults, func(f *Fault) bool { return f.Path == "" || f.Path == r.URL.Path },
				func(f *Fault) *int { return &f.Skip })
		}
		if fault != nil {
			s.stats.Faults++
		}
		s.mu.Unlock()
		if s.cfg.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.APIKey {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if len(body) > s.cfg.PayloadLimit {
			s.mu.Lock()
			s.stats.TooLarge++
			s.mu.Unlock()
			w.Header().Set("content-type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			io.WriteString(w, "Failed to buffer the request body: length limit exceeded")
			return
		}
		if fault != nil {
			if fault.RetryAfter > 0 {
				w.Header().Set("retry-after", fakeembed.RetryAfter(fault.RetryAfter))
			}
			switch fault.Kind {
			case FaultOverloaded:
				s.writeError(w, "Overloaded", "Model is overloaded")
				return
			case FaultUnhealthy:
				s.writeError(w, "Unhealthy", "unhealthy")
				return
			case FaultBackend:
				s.writeError(w, "Backend", "Inference failed")
				return
			}
		}
		h(w, body, fault)
	}
}

func (s *Server) info(w http.ResponseWriter, _ []byte, _ *Fault) {
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
	data, _ := json.Marshal(v)
	if f != nil && f.Kind == FaultTruncated {
		data = data[:len(data)/2]
	}
	w.Header().Set("content-type", "application/json")
	if tokens > 0 {
		w.Header().Set("x-compute-type", "cpu")
		w.Header().Set("x-compute-tokens", strconv.Itoa(tokens))
		w.Header().Set("x-compute-characters", "0")
	}
	w.Write(data)
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
			in[i] = truncateTokens(t, maxLen-2)
			n = maxLen
		}
		total += n
	}
	return total, true
}

// truncateTokens keeps about n tokens of t (by the Tokens estimate).
func truncateTokens(t string, n int) string {
	rs := []rune(t)
	lo, hi := 0, len(rs)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if Tokens(string(rs[:mid])) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(rs[:lo])
}

func (s *Server) embed(w http.ResponseWriter, body []byte, f *Fault) {
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
		switch f.Kind {
		case FaultWrongCount:
			vecs = vecs[:len(vecs)-1]
		case FaultWrongDim:
			vecs[0] = vecs[0][:len(vecs[0])-1]
		case FaultEmpty:
			vecs = [][]float32{}
		case FaultZero:
			vecs[0] = make([]float32, len(vecs[0]))
		case FaultNaN:
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

func (s *Server) rerank(w http.ResponseWriter, body []byte, f *Fault) {
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
		switch f.Kind {
		case FaultWrongCount:
			ranks = ranks[:len(ranks)-1]
		case FaultEmpty:
			ranks = []rank{}
		case FaultBadIndex:
			if len(ranks) > 1 {
				ranks[1].Index = ranks[0].Index
			}
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
