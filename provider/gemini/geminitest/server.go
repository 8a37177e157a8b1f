package geminitest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/internal/fakeapi"
)

// Limits the fake enforces, as the Gemini API documents them.
const (
	MaxRequests = 100 // requests per batchEmbedContents call
	// MaxInputTokens is gemini-embedding-001's input limit; longer text is
	// cut silently, as the API does.
	MaxInputTokens = 2048
	DefaultDim     = 3072
	MinDim         = 128
)

// Config configures a Server.
type Config struct {
	// APIKey, if set, must be sent as x-goog-api-key.
	APIKey string
	// Models lists the models served; nil serves gemini-embedding-001 and
	// text-embedding-004.
	Models []string
}

// FaultKind names an injected failure.
type FaultKind = fakeapi.Kind

// Fault kinds.
const (
	FaultRateLimit   = fakeapi.RateLimited // 429 RESOURCE_EXHAUSTED with RetryInfo
	FaultUnavailable = fakeapi.Unavailable // 503 UNAVAILABLE
	FaultWrongCount  = fakeapi.WrongCount  // one embedding too few
	FaultWrongDim    = fakeapi.WrongDim    // the first embedding one value short
	FaultNaN         = fakeapi.NaN         // a NaN literal in the first embedding
	FaultEmpty       = fakeapi.Empty       // {} (no embeddings)
	FaultTruncated   = fakeapi.Truncated   // the body cut in half
	FaultZero        = fakeapi.Zero        // the first embedding all zeros
)

// Fault is one injected failure, used by the first batchEmbedContents
// request.
type Fault struct {
	Kind FaultKind
	// RetryDelay goes into the RetryInfo detail of FaultRateLimit (default
	// 30s).
	RetryDelay time.Duration
	// Skip lets that many requests pass before the fault fires.
	Skip int
}

// Stats counts what the server saw.
type Stats struct {
	Batches   int // batchEmbedContents calls, rejected ones included
	Texts     int // texts embedded
	Truncated int // texts cut at MaxInputTokens
	Rejected  int // 4xx answers
	Faults    int
}

// Request is one request the server received.
type Request = fakeapi.Request

// Server is the fake Gemini API; its URL goes into Options.BaseURL.
type Server struct {
	*fakeapi.Server[Fault]

	cfg    Config
	models map[string]bool
	mu     sync.Mutex
	stats  Stats
}

// NewServer starts a fake server; Close it when done.
func NewServer(cfg Config) *Server {
	if cfg.Models == nil {
		cfg.Models = []string{"gemini-embedding-001", "text-embedding-004"}
	}
	s := &Server{cfg: cfg, models: map[string]bool{}}
	for _, m := range cfg.Models {
		s.models[m] = true
	}
	// Every path is served by handle, which answers 404 for any but
	// POST /v1beta/models/{model}:batchEmbedContents; only those count,
	// take faults and have their key checked.
	s.Server = fakeapi.New(fakeapi.Hooks[Fault]{
		Match: func(_ *Fault, r *http.Request) bool { return isEmbed(r) },
		Skip:  func(f *Fault) *int { return &f.Skip },
		Arrive: func(_ http.ResponseWriter, r *http.Request, _ int, f *Fault) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if isEmbed(r) {
				s.stats.Batches++
			}
			if f != nil {
				s.stats.Faults++
			}
		},
		Authorized: func(r *http.Request) bool {
			key := r.Header.Get("x-goog-api-key")
			if key == "" {
				key = r.URL.Query().Get("key")
			}
			return !isEmbed(r) || s.cfg.APIKey == "" || key == s.cfg.APIKey
		},
		Unauthorized: func(w http.ResponseWriter, _ *http.Request) {
			s.writeError(w, 400, "API key not valid. Please pass a valid API key.",
				map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"})
		},
		Intercept: s.statusFault,
	})
	s.Handle("/", s.handle)
	s.Start()
	return s
}

// isEmbed reports whether r is a batchEmbedContents call.
func isEmbed(r *http.Request) bool {
	model, ok := strings.CutPrefix(r.URL.Path, "/v1beta/models/")
	return r.Method == http.MethodPost && ok && strings.HasSuffix(model, ":batchEmbedContents")
}

// Stats returns the counters so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

var statusName = map[int]string{400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}

// writeError answers Google's error shape.
func (s *Server) writeError(w http.ResponseWriter, code int, msg string, details ...any) {
	if code/100 == 4 {
		s.mu.Lock()
		s.stats.Rejected++
		s.mu.Unlock()
	}
	if details == nil {
		details = []any{}
	}
	w.Header().Set("content-type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg,
		"status": statusName[code], "details": details}})
}

type embedContentRequest struct {
	Model   string `json:"model"`
	Content *struct {
		Parts []struct {
			Text *string `json:"text"`
		} `json:"parts"`
	} `json:"content"`
	TaskType             string `json:"taskType"`
	Title                string `json:"title"`
	OutputDimensionality *int   `json:"outputDimensionality"`
}

var taskTypes = map[string]bool{"": true, "TASK_TYPE_UNSPECIFIED": true, "RETRIEVAL_QUERY": true, "RETRIEVAL_DOCUMENT": true,
	"SEMANTIC_SIMILARITY": true, "CLASSIFICATION": true, "CLUSTERING": true, "QUESTION_ANSWERING": true,
	"FACT_VERIFICATION": true, "CODE_RETRIEVAL_QUERY": true}

// statusFault answers the faults that replace the whole answer.
func (s *Server) statusFault(w http.ResponseWriter, _ *http.Request, _ []byte, f *Fault) bool {
	switch {
	case f == nil:
		return false
	case f.Kind == FaultRateLimit:
		d := f.RetryDelay
		if d <= 0 {
			d = 30 * time.Second
		}
		s.writeError(w, 429, "You exceeded your current quota, please check your plan and billing details.",
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]string{
				"quotaMetric": "generativelanguage.googleapis.com/embed_content_free_tier_requests", "quotaId": "EmbedContentRequestsPerMinutePerProjectPerModel-FreeTier"}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"})
		return true
	case f.Kind == FaultUnavailable:
		s.writeError(w, 503, "The model is overloaded. Please try again later.")
		return true
	}
	return false
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request, body []byte, fault *Fault) {
	if !isEmbed(r) {
		s.writeError(w, 404, "Method not found.")
		return
	}
	model := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":batchEmbedContents")
	if !s.models[model] {
		s.writeError(w, 404, fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for embedContent.", model))
		return
	}
	var req struct {
		Requests []embedContentRequest `json:"requests"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.writeError(w, 400, "Invalid JSON payload received. "+err.Error())
		return
	}
	if len(req.Requests) == 0 {
		s.writeError(w, 400, "* BatchEmbedContentsRequest.requests: must not be empty\n")
		return
	}
	if len(req.Requests) > MaxRequests {
		s.writeError(w, 400, fmt.Sprintf("* BatchEmbedContentsRequest.requests: at most %d requests can be in one batch\n", MaxRequests))
		return
	}
	vecs := make([][]float32, len(req.Requests))
	truncated := 0
	for i, rq := range req.Requests {
		if rq.Model != "models/"+model {
			s.writeError(w, 400, fmt.Sprintf("Model names should match. Request %d has model %q, batch model \"models/%s\".", i, rq.Model, model))
			return
		}
		if !taskTypes[rq.TaskType] {
			s.writeError(w, 400, fmt.Sprintf("Invalid value at 'requests[%d].task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), %q", i, rq.TaskType))
			return
		}
		if rq.Content == nil || len(rq.Content.Parts) == 0 {
			s.writeError(w, 400, fmt.Sprintf("* BatchEmbedContentsRequest.requests[%d].content.parts: contents.parts must not be empty.\n", i))
			return
		}
		var text strings.Builder
		for _, p := range rq.Content.Parts {
			if p.Text != nil {
				text.WriteString(*p.Text)
			}
		}
		t := text.String()
		if t == "" {
			s.writeError(w, 400, fmt.Sprintf("* BatchEmbedContentsRequest.requests[%d].content: contains an empty Part.\n", i))
			return
		}
		if Tokens(t) > MaxInputTokens {
			t = fakeapi.TruncateTokens(t, MaxInputTokens, Tokens)
			truncated++
		}
		dim := DefaultDim
		if rq.OutputDimensionality != nil {
			if *rq.OutputDimensionality < MinDim || *rq.OutputDimensionality > DefaultDim {
				s.writeError(w, 400, fmt.Sprintf("* BatchEmbedContentsRequest.requests[%d].output_dimensionality: must be in [%d, %d]\n", i, MinDim, DefaultDim))
				return
			}
			dim = *rq.OutputDimensionality
		}
		v := Vector(t, dim)
		if dim < DefaultDim { // like gemini-embedding-001: only 3072-d vectors are unit length
			f := float32(math.Sqrt(float64(dim) / DefaultDim))
			for j := range v {
				v[j] *= f
			}
		}
		vecs[i] = v
	}
	if fault != nil {
		vecs = fakeapi.Shape(vecs, fault.Kind)
	}
	s.mu.Lock()
	s.stats.Texts += len(req.Requests)
	s.stats.Truncated += truncated
	s.mu.Unlock()
	type emb struct {
		Values []float32 `json:"values"`
	}
	out := map[string]any{}
	if vecs != nil {
		es := make([]emb, len(vecs))
		for i, v := range vecs {
			es[i] = emb{Values: v}
		}
		out["embeddings"] = es
	}
	data, _ := json.Marshal(out)
	if fault != nil {
		switch fault.Kind {
		case FaultTruncated:
			data = data[:len(data)/2]
		case FaultNaN:
			data = []byte(strings.Replace(string(data), `"values":[`, `"values":[NaN,`, 1))
		}
	}
	w.Header().Set("content-type", "application/json; charset=UTF-8")
	w.Write(data)
}

// WriteError answers status with Google's error shape
// {"error": {"code", "message", "status", "details"}}.
func WriteError(w http.ResponseWriter, status int, message string) {
	(&Server{}).writeError(w, status, message)
}
