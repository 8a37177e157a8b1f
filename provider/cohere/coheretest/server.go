package coheretest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/situate/situate/internal/fakeapi"
)

// Limits the fake enforces, as Cohere documents them.
const (
	MaxTexts     = 96   // texts per /v2/embed request
	MaxDocuments = 1000 // documents per /v2/rerank request (recommended maximum)
	// DefaultMaxTokensPerDoc is rerank's max_tokens_per_doc default.
	DefaultMaxTokensPerDoc = 4096
)

// ModelDim is a model's default output dimension.
func ModelDim(model string) int {
	switch {
	case model == "embed-v4.0":
		return 1536
	case strings.Contains(model, "light"):
		return 384
	}
	return 1024
}

// ModelContext is a model's context length in tokens.
func ModelContext(model string) int {
	if model == "embed-v4.0" {
		return 128000
	}
	return 512
}

// Config configures a Server.
type Config struct {
	// APIKey, if set, must be sent as "Authorization: Bearer <key>".
	APIKey string
}

// FaultKind names an injected failure.
type FaultKind = fakeapi.Kind

// Fault kinds.
const (
	FaultRateLimit   = fakeapi.RateLimited // 429 trial-key limit
	FaultServerError = fakeapi.ServerError // 500
	FaultWrongCount  = fakeapi.WrongCount  // one vector (or result) too few
	FaultWrongDim    = fakeapi.WrongDim    // the first vector one value short
	FaultNaN         = fakeapi.NaN         // a NaN literal in the first vector
	FaultEmpty       = fakeapi.Empty       // no vectors (or results)
	FaultTruncated   = fakeapi.Truncated   // the body cut in half
	FaultBadIndex    = fakeapi.BadIndex    // two results with the same index
	FaultZero        = fakeapi.Zero        // the first vector all zeros
)

// Fault is one injected failure, used by the first matching request; its
// Path is "/v2/embed" or "/v2/rerank" ("" matches either).
type Fault = fakeapi.Fault

// Stats counts what the server saw.
type Stats struct {
	Embeds, Reranks int // requests, rejected ones included
	Texts           int // texts and documents in successful requests
	Rejected        int // 4xx answers
	Faults          int
	Tokens          int // billed input tokens reported
}

// Request is one request the server received.
type Request = fakeapi.Request

// Server is the fake Cohere API; its URL goes into Options.BaseURL.
type Server struct {
	*fakeapi.Server[Fault]

	cfg   Config
	mu    sync.Mutex
	seq   int
	stats Stats
}

// NewServer starts a fake server; Close it when done.
func NewServer(cfg Config) *Server {
	s := &Server{cfg: cfg}
	s.Server = fakeapi.New(fakeapi.FaultHooks(fakeapi.Hooks[Fault]{
		Arrive: func(_ http.ResponseWriter, r *http.Request, _ int, f *Fault) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if r.URL.Path == "/v2/embed" {
				s.stats.Embeds++
			} else {
				s.stats.Reranks++
			}
			if f != nil {
				s.stats.Faults++
			}
		},
		Authorized: fakeapi.Bearer(cfg.APIKey),
		Unauthorized: func(w http.ResponseWriter, _ *http.Request) {
			s.writeError(w, http.StatusUnauthorized, "invalid api token")
		},
		Intercept: s.statusFault,
	}))
	s.Handle("POST /v2/embed", s.embed)
	s.Handle("POST /v2/rerank", s.rerank)
	s.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { s.writeError(w, 404, "404 page not found") })
	s.Start()
	return s
}

// Stats returns the counters so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Server) id() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", s.seq)
}

// writeError answers Cohere's error shape {"id": ..., "message": ...}.
func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	if status/100 == 4 {
		s.mu.Lock()
		s.stats.Rejected++
		s.mu.Unlock()
	}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"id": s.id(), "message": msg})
}

// statusFault answers the faults that replace the whole answer.
func (s *Server) statusFault(w http.ResponseWriter, _ *http.Request, _ []byte, f *Fault) bool {
	if f == nil {
		return false
	}
	fakeapi.RetryAfter(w, f.RetryAfter)
	switch f.Kind {
	case FaultRateLimit:
		s.writeError(w, http.StatusTooManyRequests, "You are using a Trial key, which is limited to 100 API calls / minute. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits.")
		return true
	case FaultServerError:
		s.writeError(w, http.StatusInternalServerError, "internal server error, this has been reported to our developers")
		return true
	}
	return false
}

var inputTypes = map[string]bool{"search_document": true, "search_query": true, "classification": true, "clustering": true, "image": true}

func (s *Server) embed(w http.ResponseWriter, _ *http.Request, body []byte, f *Fault) {
	var req struct {
		Model           string   `json:"model"`
		Texts           []string `json:"texts"`
		InputType       string   `json:"input_type"`
		EmbeddingTypes  []string `json:"embedding_types"`
		Truncate        *string  `json:"truncate"`
		OutputDimension *int     `json:"output_dimension"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.writeError(w, 400, "invalid request: "+err.Error())
		return
	}
	switch {
	case req.Model == "":
		s.writeError(w, 400, "invalid request: model must be specified")
		return
	case !inputTypes[req.InputType]:
		s.writeError(w, 400, fmt.Sprintf("invalid request: input_type %q is not one of search_document, search_query, classification, clustering, image", req.InputType))
		return
	case len(req.EmbeddingTypes) != 1 || req.EmbeddingTypes[0] != "float":
		s.writeError(w, 400, "invalid request: this fake serves embedding_types [\"float\"] only")
		return
	case len(req.Texts) == 0:
		s.writeError(w, 400, "invalid request: texts must not be empty")
		return
	case len(req.Texts) > MaxTexts:
		s.writeError(w, 400, fmt.Sprintf("invalid request: total number of texts must be at most %d - received %d", MaxTexts, len(req.Texts)))
		return
	}
	dim := ModelDim(req.Model)
	if req.OutputDimension != nil {
		if req.Model != "embed-v4.0" || (*req.OutputDimension != 256 && *req.OutputDimension != 512 && *req.OutputDimension != 1024 && *req.OutputDimension != 1536) {
			s.writeError(w, 400, fmt.Sprintf("invalid request: output_dimension %d is not supported for model %s", *req.OutputDimension, req.Model))
			return
		}
		dim = *req.OutputDimension
	}
	truncate := "END"
	if req.Truncate != nil {
		truncate = *req.Truncate
	}
	limit := ModelContext(req.Model)
	total := 0
	for i, t := range req.Texts {
		n := Tokens(t)
		if n > limit {
			if truncate == "NONE" {
				s.writeError(w, 400, fmt.Sprintf("invalid request: text at index %d is too long: %d tokens exceeds the maximum of %d tokens for %s; use truncate START or END", i, n, limit, req.Model))
				return
			}
			n = limit // cut silently, as Cohere does with START or END
		}
		total += n
	}
	vecs := make([][]float32, len(req.Texts))
	for i, t := range req.Texts {
		vecs[i] = Vector(t, dim)
	}
	if f != nil {
		vecs = fakeapi.Shape(vecs, f.Kind)
	}
	s.mu.Lock()
	s.stats.Texts += len(req.Texts)
	s.stats.Tokens += total
	s.mu.Unlock()
	resp := map[string]any{"id": s.id(), "embeddings": map[string]any{"float": vecs}, "texts": req.Texts,
		"meta":          map[string]any{"api_version": map[string]string{"version": "2"}, "billed_units": map[string]int{"input_tokens": total}},
		"response_type": "embeddings_by_type"}
	if f != nil && f.Kind == FaultNaN && len(vecs) > 0 {
		data, _ := json.Marshal(resp)
		first := strconv.FormatFloat(float64(vecs[0][0]), 'g', -1, 32)
		data = []byte(strings.Replace(string(data), `"float":[[`+first, `"float":[[NaN`, 1))
		w.Header().Set("content-type", "application/json")
		w.Write(data)
		return
	}
	fakeapi.WriteJSON(w, "", resp, f.Is(FaultTruncated))
}

func (s *Server) rerank(w http.ResponseWriter, _ *http.Request, body []byte, f *Fault) {
	var req struct {
		Model           string   `json:"model"`
		Query           string   `json:"query"`
		Documents       []string `json:"documents"`
		TopN            *int     `json:"top_n"`
		MaxTokensPerDoc *int     `json:"max_tokens_per_doc"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.writeError(w, 400, "invalid request: "+err.Error())
		return
	}
	switch {
	case req.Model == "":
		s.writeError(w, 400, "invalid request: model must be specified")
		return
	case req.Query == "" || len(req.Documents) == 0:
		s.writeError(w, 400, "invalid request: query and documents must not be empty")
		return
	case len(req.Documents) > MaxDocuments:
		s.writeError(w, 400, fmt.Sprintf("invalid request: number of documents must be at most %d - received %d", MaxDocuments, len(req.Documents)))
		return
	}
	type result struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
	}
	res := make([]result, len(req.Documents))
	total := 0
	for i, d := range req.Documents {
		res[i] = result{Index: i, RelevanceScore: math.Round(Score(req.Query, d)*1e6) / 1e6}
		total += Tokens(req.Query) + Tokens(d)
	}
	sort.SliceStable(res, func(a, b int) bool { return res[a].RelevanceScore > res[b].RelevanceScore })
	if req.TopN != nil && *req.TopN < len(res) {
		res = res[:max(*req.TopN, 0)]
	}
	if f != nil {
		res = fakeapi.ShapeResults(res, f.Kind, func(r *result) *int { return &r.Index })
	}
	s.mu.Lock()
	s.stats.Texts += len(req.Documents)
	s.stats.Tokens += total
	s.mu.Unlock()
	fakeapi.WriteJSON(w, "", map[string]any{"id": s.id(), "results": res,
		"meta": map[string]any{"api_version": map[string]string{"version": "2"}, "billed_units": map[string]int{"search_units": 1},
			"tokens": map[string]int{"input_tokens": total}}}, f.Is(FaultTruncated))
}

// WriteError answers status with Cohere's error shape
// {"id": ..., "message": ...}.
func WriteError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"id": "00000000-0000-4000-8000-000000000000", "message": message})
}
