package voyagetest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/internal/fakeapi"
)

// Defaults of Config.
const (
	DefaultDim            = 1024
	DefaultMaxTexts       = 1000
	DefaultMaxInputTokens = 32000
	// DefaultContextTokens and DefaultContextChunks bound one
	// /v1/contextualizedembeddings request.
	DefaultContextTokens = 120000
	DefaultContextChunks = 16000
	// DefaultRerankTokens bounds one /v1/rerank request (query tokens times
	// documents plus document tokens).
	DefaultRerankTokens = 600000
)

// BatchTokens is the per-request token limit Voyage documents per model.
func BatchTokens(model string) int {
	switch model {
	case "voyage-3.5-lite", "voyage-4-lite":
		return 1000000
	case "voyage-3.5", "voyage-4", "voyage-2":
		return 320000
	}
	return 120000
}

// Config configures a Server. The zero value serves every model with the
// documented limits and no authentication.
type Config struct {
	// APIKey, if set, must be sent as "Authorization: Bearer <key>".
	APIKey string
	// Dim is the default output dimension; 0 means DefaultDim.
	Dim int
	// MaxTexts is the most texts per embeddings request and documents per
	// rerank request; 0 means DefaultMaxTexts.
	MaxTexts int
	// BatchTokens overrides the per-model request token limit.
	BatchTokens func(model string) int
	// MaxInputTokens is the context length; a longer text with
	// truncation:false is a 400, with truncation (the API's default) it is
	// silently cut. 0 means DefaultMaxInputTokens.
	MaxInputTokens int
}

// FaultKind names an injected failure.
type FaultKind = fakeapi.Kind

// Fault kinds.
const (
	FaultRateLimit   = fakeapi.RateLimited // 429 with retry-after
	FaultServerError = fakeapi.ServerError // 500
	FaultWrongCount  = fakeapi.WrongCount  // one vector (or score) too few
	FaultWrongDim    = fakeapi.WrongDim    // the first vector one value short
	FaultNaN         = fakeapi.NaN         // a NaN literal in the first vector (invalid JSON)
	FaultEmpty       = fakeapi.Empty       // "data": []
	FaultTruncated   = fakeapi.Truncated   // the body cut in half
	FaultBadIndex    = fakeapi.BadIndex    // two results with the same index
	FaultZero        = fakeapi.Zero        // the first vector all zeros
)

// Fault is one injected failure, used by the first matching request; its
// Path is "/v1/embeddings", "/v1/rerank" or "/v1/contextualizedembeddings"
// ("" matches any). FaultRateLimit sends RetryAfter, 1s if unset.
type Fault = fakeapi.Fault

// Stats counts what the server saw.
type Stats struct {
	Embeds, ContextEmbeds, Reranks int // requests per endpoint, faulted and rejected ones included
	Texts, Chunks, Documents       int // items in successful requests
	Rejected                       int // 4xx answers
	Faults                         int
	Tokens                         int // usage.total_tokens reported
}

// Request is one request the server received.
type Request = fakeapi.Request

// Server is the fake Voyage AI API; its URL goes into Options.BaseURL.
type Server struct {
	*fakeapi.Server[Fault]

	cfg   Config
	mu    sync.Mutex
	stats Stats
}

// NewServer starts a fake server; Close it when done.
func NewServer(cfg Config) *Server {
	if cfg.Dim == 0 {
		cfg.Dim = DefaultDim
	}
	if cfg.MaxTexts == 0 {
		cfg.MaxTexts = DefaultMaxTexts
	}
	if cfg.BatchTokens == nil {
		cfg.BatchTokens = BatchTokens
	}
	if cfg.MaxInputTokens == 0 {
		cfg.MaxInputTokens = DefaultMaxInputTokens
	}
	s := &Server{cfg: cfg}
	s.Server = fakeapi.New(fakeapi.FaultHooks(fakeapi.Hooks[Fault]{
		Arrive: func(_ http.ResponseWriter, r *http.Request, _ int, f *Fault) {
			s.mu.Lock()
			defer s.mu.Unlock()
			switch r.URL.Path {
			case "/v1/embeddings":
				s.stats.Embeds++
			case "/v1/contextualizedembeddings":
				s.stats.ContextEmbeds++
			case "/v1/rerank":
				s.stats.Reranks++
			}
			if f != nil {
				s.stats.Faults++
			}
		},
		Authorized: fakeapi.Bearer(cfg.APIKey),
		Unauthorized: func(w http.ResponseWriter, _ *http.Request) {
			s.reject()
			writeError(w, http.StatusUnauthorized, "Provided API key is invalid.")
		},
		Intercept: statusFault,
	}))
	s.Handle("POST /v1/embeddings", s.counted(s.embeddings))
	s.Handle("POST /v1/contextualizedembeddings", s.counted(s.contextual))
	s.Handle("POST /v1/rerank", s.counted(s.rerank))
	s.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Not Found")
	})
	s.Start()
	return s
}

// SetDim changes the default output dimension, as if the deployment
// behind the URL switched models.
func (s *Server) SetDim(d int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Dim = d
}

// Stats returns the counters so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func writeError(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"detail": detail})
}

// statusFault answers the faults that replace the whole answer.
func statusFault(w http.ResponseWriter, _ *http.Request, _ []byte, f *Fault) bool {
	switch {
	case f.Is(FaultRateLimit):
		fakeapi.RetryAfter(w, cmp.Or(f.RetryAfter, time.Second))
		writeError(w, http.StatusTooManyRequests, "You have exceeded your TPM rate limit. Please wait and retry.")
		return true
	case f.Is(FaultServerError):
		writeError(w, http.StatusInternalServerError, "Internal Server Error")
		return true
	}
	return false
}

// counted counts the 4xx answers of an endpoint's handler as rejected.
func (s *Server) counted(h func(w http.ResponseWriter, body []byte, f *Fault) (status int)) fakeapi.Handler[Fault] {
	return func(w http.ResponseWriter, _ *http.Request, body []byte, f *Fault) {
		if status := h(w, body, f); status/100 == 4 {
			s.reject()
		}
	}
}

func (s *Server) reject() {
	s.mu.Lock()
	s.stats.Rejected++
	s.mu.Unlock()
}

var dims = map[int]bool{256: true, 512: true, 1024: true, 2048: true}

type embedReq struct {
	Input           json.RawMessage `json:"input"`
	Inputs          [][]string      `json:"inputs"`
	Model           string          `json:"model"`
	InputType       *string         `json:"input_type"`
	Truncation      *bool           `json:"truncation"`
	OutputDimension *int            `json:"output_dimension"`
	OutputDtype     *string         `json:"output_dtype"`
}

type item struct {
	Object    string    `json:"object"`
	Embedding []float32 `json:"embedding"`
	Index     int       `json:"index"`
}

// validate checks the fields both embedding endpoints share; it returns
// the output dimension or writes a 400.
func (s *Server) validate(w http.ResponseWriter, req *embedReq) (int, bool) {
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "Field 'model' is required.")
		return 0, false
	}
	if req.InputType != nil && *req.InputType != "query" && *req.InputType != "document" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Value '%s' is not supported for argument 'input_type'. Supported values are None, 'query' and 'document'.", *req.InputType))
		return 0, false
	}
	if req.OutputDtype != nil && *req.OutputDtype != "float" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("output_dtype '%s' is not supported by this fake; use 'float'.", *req.OutputDtype))
		return 0, false
	}
	s.mu.Lock()
	dim := s.cfg.Dim
	s.mu.Unlock()
	if req.OutputDimension != nil {
		if !dims[*req.OutputDimension] {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Value %d is not supported for argument 'output_dimension'. Supported values are 256, 512, 1024 and 2048.", *req.OutputDimension))
			return 0, false
		}
		dim = *req.OutputDimension
	}
	return dim, true
}

// shape applies a vector fault to a batch.
func shape(vecs [][]float32, f *Fault) [][]float32 {
	if f == nil {
		return vecs
	}
	return fakeapi.Shape(vecs, f.Kind)
}

func (s *Server) embeddings(w http.ResponseWriter, body []byte, f *Fault) int {
	var req embedReq
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "Invalid JSON: "+err.Error())
		return 400
	}
	var texts []string
	if err := json.Unmarshal(req.Input, &texts); err != nil {
		var one string
		if json.Unmarshal(req.Input, &one) != nil {
			writeError(w, http.StatusBadRequest, "Field 'input' must be a string or a list of strings.")
			return 400
		}
		texts = []string{one}
	}
	dim, ok := s.validate(w, &req)
	if !ok {
		return 400
	}
	if len(texts) == 0 {
		writeError(w, http.StatusBadRequest, "Field 'input' must not be empty.")
		return 400
	}
	if len(texts) > s.cfg.MaxTexts {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Request to model '%s' failed. The max allowed number of texts per batch is %d. Your batch has %d texts.", req.Model, s.cfg.MaxTexts, len(texts)))
		return 400
	}
	truncate := req.Truncation == nil || *req.Truncation
	total := 0
	for i, t := range texts {
		n := Tokens(t)
		if n > s.cfg.MaxInputTokens {
			if !truncate {
				writeError(w, http.StatusBadRequest, fmt.Sprintf("Request to model '%s' failed. Input text at index %d has %d tokens, which exceeds the context length of %d tokens. Set truncation=True to truncate it.", req.Model, i, n, s.cfg.MaxInputTokens))
				return 400
			}
			n = s.cfg.MaxInputTokens
			texts[i] = fakeapi.TruncateTokens(t, n, Tokens)
		}
		total += n
	}
	if limit := s.cfg.BatchTokens(req.Model); total > limit {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Request to model '%s' failed. The max allowed tokens per submitted batch is %d. Your batch has %d tokens after truncation. Please lower the number of tokens in the batch.", req.Model, limit, total))
		return 400
	}
	vecs := make([][]float32, len(texts))
	for i, t := range texts {
		vecs[i] = Vector(t, dim)
	}
	vecs = shape(vecs, f)
	s.mu.Lock()
	s.stats.Texts += len(texts)
	s.stats.Tokens += total
	s.mu.Unlock()
	if f != nil && f.Kind == FaultNaN && len(vecs) > 0 {
		writeNaN(w, req.Model, vecs, total)
		return 200
	}
	data := make([]item, len(vecs))
	for i, v := range vecs {
		data[i] = item{Object: "embedding", Embedding: v, Index: i}
	}
	if f != nil && f.Kind == FaultBadIndex && len(data) > 1 {
		data[1].Index = data[0].Index
	}
	fakeapi.WriteJSON(w, "", map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"total_tokens": total}}, f.Is(FaultTruncated))
	return 200
}

// writeNaN writes an answer whose first vector holds a NaN literal, as a
// broken server would (it is not valid JSON).
func writeNaN(w http.ResponseWriter, model string, vecs [][]float32, total int) {
	var b strings.Builder
	b.WriteString(`{"object":"list","data":[`)
	for i, v := range vecs {
		if i > 0 {
			b.WriteByte(',')
		}
		vals := make([]string, len(v))
		for j, x := range v {
			vals[j] = strconv.FormatFloat(float64(x), 'g', -1, 32)
		}
		if i == 0 {
			vals[0] = "NaN"
		}
		fmt.Fprintf(&b, `{"object":"embedding","embedding":[%s],"index":%d}`, strings.Join(vals, ","), i)
	}
	fmt.Fprintf(&b, `],"model":%q,"usage":{"total_tokens":%d}}`, model, total)
	w.Header().Set("content-type", "application/json")
	io.WriteString(w, b.String())
}

func (s *Server) contextual(w http.ResponseWriter, body []byte, f *Fault) int {
	var req embedReq
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "Invalid JSON: "+err.Error())
		return 400
	}
	dim, ok := s.validate(w, &req)
	if !ok {
		return 400
	}
	if len(req.Inputs) == 0 || len(req.Inputs) > DefaultMaxTexts {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Field 'inputs' must hold 1 to %d lists of chunks, got %d.", DefaultMaxTexts, len(req.Inputs)))
		return 400
	}
	chunks, total := 0, 0
	for d, doc := range req.Inputs {
		if len(doc) == 0 {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("inputs[%d] must not be empty.", d))
			return 400
		}
		dt := 0
		for _, c := range doc {
			dt += Tokens(c)
		}
		if dt > s.cfg.MaxInputTokens {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Request to model '%s' failed. Input at index %d has %d tokens, which exceeds the context length of %d tokens.", req.Model, d, dt, s.cfg.MaxInputTokens))
			return 400
		}
		chunks += len(doc)
		total += dt
	}
	if chunks > DefaultContextChunks {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Request to model '%s' failed. The max allowed number of chunks per submitted batch is %d. Your batch has %d chunks.", req.Model, DefaultContextChunks, chunks))
		return 400
	}
	if total > DefaultContextTokens {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Request to model '%s' failed. The max allowed tokens per submitted batch is %d. Your batch has %d tokens.", req.Model, DefaultContextTokens, total))
		return 400
	}
	type docOut struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Index  int    `json:"index"`
	}
	out := make([]docOut, len(req.Inputs))
	for d, doc := range req.Inputs {
		vecs := make([][]float32, len(doc))
		for i, c := range doc {
			vecs[i] = ContextVector(c, doc, dim)
		}
		if d == 0 {
			vecs = shape(vecs, f)
		}
		items := make([]item, len(vecs))
		for i, v := range vecs {
			items[i] = item{Object: "embedding", Embedding: v, Index: i}
		}
		out[d] = docOut{Object: "list", Data: items, Index: d}
	}
	s.mu.Lock()
	s.stats.Chunks += chunks
	s.stats.Tokens += total
	s.mu.Unlock()
	fakeapi.WriteJSON(w, "", map[string]any{"object": "list", "data": out, "model": req.Model,
		"usage": map[string]int{"total_tokens": total}}, f.Is(FaultTruncated))
	return 200
}

func (s *Server) rerank(w http.ResponseWriter, body []byte, f *Fault) int {
	var req struct {
		Query           string   `json:"query"`
		Documents       []string `json:"documents"`
		Model           string   `json:"model"`
		TopK            *int     `json:"top_k"`
		ReturnDocuments bool     `json:"return_documents"`
		Truncation      *bool    `json:"truncation"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "Invalid JSON: "+err.Error())
		return 400
	}
	switch {
	case req.Model == "":
		writeError(w, http.StatusBadRequest, "Field 'model' is required.")
		return 400
	case req.Query == "" || len(req.Documents) == 0:
		writeError(w, http.StatusBadRequest, "Fields 'query' and 'documents' must not be empty.")
		return 400
	case len(req.Documents) > s.cfg.MaxTexts:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Request to model '%s' failed. The max allowed number of documents per batch is %d. Your batch has %d documents.", req.Model, s.cfg.MaxTexts, len(req.Documents)))
		return 400
	}
	truncate := req.Truncation == nil || *req.Truncation
	qt := Tokens(req.Query)
	total := 0
	for i, d := range req.Documents {
		n := qt + Tokens(d)
		if n > s.cfg.MaxInputTokens && !truncate {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Request to model '%s' failed. The query and document at index %d have %d tokens, which exceeds the context length of %d tokens.", req.Model, i, n, s.cfg.MaxInputTokens))
			return 400
		}
		total += min(n, s.cfg.MaxInputTokens)
	}
	if total > DefaultRerankTokens {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Request to model '%s' failed. The max allowed tokens per submitted batch is %d. Your batch has %d tokens.", req.Model, DefaultRerankTokens, total))
		return 400
	}
	type result struct {
		RelevanceScore float64 `json:"relevance_score"`
		Index          int     `json:"index"`
		Document       string  `json:"document,omitempty"`
	}
	res := make([]result, len(req.Documents))
	for i, d := range req.Documents {
		res[i] = result{RelevanceScore: Score(req.Query, d), Index: i}
		if req.ReturnDocuments {
			res[i].Document = d
		}
	}
	sort.SliceStable(res, func(a, b int) bool { return res[a].RelevanceScore > res[b].RelevanceScore })
	if req.TopK != nil && *req.TopK < len(res) {
		res = res[:max(*req.TopK, 0)]
	}
	if f != nil {
		res = fakeapi.ShapeResults(res, f.Kind, func(r *result) *int { return &r.Index })
	}
	s.mu.Lock()
	s.stats.Documents += len(req.Documents)
	s.stats.Tokens += total
	s.mu.Unlock()
	fakeapi.WriteJSON(w, "", map[string]any{"object": "list", "data": res, "model": req.Model,
		"usage": map[string]int{"total_tokens": total}}, f.Is(FaultTruncated))
	return 200
}

// WriteError answers status with Voyage's error shape {"detail": ...}.
func WriteError(w http.ResponseWriter, status int, message string) { writeError(w, status, message) }
