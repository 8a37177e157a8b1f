// Package ollamatest is a fake Ollama server for tests. It stands in for
// `ollama serve` (default http://127.0.0.1:11434) and speaks its native
// API as Ollama documents it:
//
//   - POST /api/chat: {model, messages, stream, options, keep_alive};
//     streaming answers are NDJSON, one {"model","created_at","message":
//     {"role":"assistant","content"},"done":false} line per piece and a
//     last line with "done":true, "done_reason", "prompt_eval_count",
//     "eval_count" and durations; stream:false gives that last object with
//     the whole message;
//   - POST /api/show: "model_info" with "general.architecture" and
//     "<arch>.context_length", plus "details" and "parameters";
//   - POST /api/embed: {model, input, truncate, dimensions, options} ->
//     {"model","embeddings":[[...]],"prompt_eval_count"};
//   - errors as {"error":"..."} with Ollama's statuses (404 for an unknown
//     model, 503 when the queue is full), and an {"error"} line inside a
//     stream.
//
// It reproduces the behaviours a client must cope with: options.num_ctx
// absent means DefaultNumCtx; a prompt longer than num_ctx is cut SILENTLY
// (its start is dropped and prompt_eval_count is num_ctx - 1; Stats.Truncated
// counts these, a client must keep it at zero); a num_ctx different from
// the loaded one reloads the model (Stats.Loads) and empties the prefix
// cache; otherwise prompt_eval_count counts only the tokens after the
// longest common prefix with the previous prompt (one runner slot).
// Tokens are 4-byte pieces of the rendered prompt (CountTokens), not a
// real tokenizer; answers are "Context for: " and the first words of the
// chunk.
//
// The package imports nothing from situate but internal/fakeapi, the
// fakes' server skeleton (request recording, fault queue), and
// internal/fakeembed (HashVector).
package ollamatest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/internal/fakeapi"
	"github.com/situate/situate/internal/fakeembed"
)

// Defaults of Config.
const (
	DefaultNumCtx        = 4096
	DefaultContextLength = 32768
	BytesPerToken        = 4
)

// CountTokens is the fake's token count of text.
func CountTokens(text string) int { return (len(text) + BytesPerToken - 1) / BytesPerToken }

// Render is the prompt the fake "evaluates" for a chat's messages.
func Render(roles, contents []string) string {
	var b strings.Builder
	for i := range roles {
		b.WriteString("<|" + roles[i] + "|>\n" + contents[i] + "\n")
	}
	b.WriteString("<|assistant|>\n")
	return b.String()
}

// Config configures a Server.
type Config struct {
	// Model is the one model served; others are 404 "not found".
	Model string
	// ContextLength is model_info's <arch>.context_length (default 32768);
	// 0 with NoContextLength leaves it out.
	ContextLength   int
	NoContextLength bool
	// EmbedDim is the embedding size (default 8).
	EmbedDim int
	// StreamDelay is the wait between NDJSON lines.
	StreamDelay time.Duration
	// Digest is the model's digest in GET /api/tags (default: sha256 of
	// Model).
	Digest string
}

// FaultKind names an injected failure.
type FaultKind int

// Fault kinds.
const (
	FaultServerError FaultKind = iota + 1 // 500 {"error"}
	FaultBusy                             // 503 "server busy, please try again. maximum pending requests exceeded"
	FaultStreamError                      // one line, then {"error": "..."}
	FaultTruncated                        // one line, then a line cut inside its JSON
	FaultNaN                              // NaN in the first embedding (as the JSON string "NaN")
	FaultWrongCount                       // one embedding too few
)

// Fault is one injected failure for the first request to Path
// ("/api/chat" when empty).
type Fault struct {
	Kind FaultKind
	Path string
}

// Stats counts what the server saw.
type Stats struct {
	Chats, Embeds, Shows int
	// Loads counts model (re)loads: the first request and every change of
	// num_ctx.
	Loads int
	// Truncated counts prompts cut because they exceeded num_ctx.
	Truncated int
	// NumCtx lists the num_ctx of every chat request, in order.
	NumCtx []int
	// Evaluated sums prompt_eval_count.
	Evaluated int
}

// Server is the fake; its URL is the client's BaseURL.
type Server struct {
	*fakeapi.Server[Fault]
	cfg Config

	mu     sync.Mutex
	stats  Stats
	loaded int    // num_ctx of the loaded model, 0 = not loaded
	last   string // previous prompt (the runner's KV cache)
}

// NewServer starts a fake server; Close it when done.
func NewServer(cfg Config) *Server {
	if cfg.Model == "" {
		cfg.Model = "qwen3:8b"
	}
	if cfg.ContextLength == 0 && !cfg.NoContextLength {
		cfg.ContextLength = DefaultContextLength
	}
	if cfg.EmbedDim == 0 {
		cfg.EmbedDim = 8
	}
	s := &Server{cfg: cfg}
	// A fault without Path is for /api/chat.
	s.Server = fakeapi.New(fakeapi.Hooks[Fault]{Match: func(f *Fault, r *http.Request) bool {
		return cmp.Or(f.Path, "/api/chat") == r.URL.Path
	}})
	s.Handle("POST /api/chat", s.handleChat)
	s.Handle("POST /api/show", s.handleShow)
	s.HandleFunc("GET /api/tags", func(w http.ResponseWriter, _ *http.Request) {
		digest := s.cfg.Digest
		if digest == "" {
			sum := sha256.Sum256([]byte(s.cfg.Model))
			digest = hex.EncodeToString(sum[:])
		}
		name := s.cfg.Model
		if !strings.Contains(name, ":") {
			name += ":latest"
		}
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"models": []any{map[string]any{"name": name, "model": name, "digest": digest}}})
	})
	s.Handle("POST /api/embed", s.handleEmbed)
	s.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"version": "0.12.0"})
	})
	s.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "404 page not found"})
	})
	s.Start()
	return s
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.NumCtx = append([]int(nil), s.stats.NumCtx...)
	return st
}

// Requests returns the bodies of the chat, show and embed requests
// received.
func (s *Server) Requests() [][]byte {
	var bodies [][]byte
	for _, r := range s.Server.Requests() {
		bodies = append(bodies, r.Body)
	}
	return bodies
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("content-type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// begin answers the status faults and unknown models itself (returning
// false).
func (s *Server) begin(w http.ResponseWriter, model string, fault *Fault) (*Fault, bool) {
	if fault != nil {
		switch fault.Kind {
		case FaultServerError:
			writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "llama runner process has terminated: exit status 2"})
			return nil, false
		case FaultBusy:
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "server busy, please try again.  maximum pending requests exceeded"})
			return nil, false
		}
	}
	if model != s.cfg.Model {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": fmt.Sprintf("model '%s' not found", model)})
		return nil, false
	}
	return fault, true
}

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Stream    *bool          `json:"stream"`
	Options   map[string]any `json:"options"`
	KeepAlive any            `json:"keep_alive"`
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid JSON: " + err.Error()})
		return
	}
	fault, ok := s.begin(w, req.Model, f)
	if !ok {
		return
	}
	numCtx := DefaultNumCtx
	if v, ok := req.Options["num_ctx"].(float64); ok && v > 0 {
		numCtx = int(v)
	}
	numPredict := -1
	if v, ok := req.Options["num_predict"].(float64); ok {
		numPredict = int(v)
	}
	var roles, contents []string
	for _, m := range req.Messages {
		roles, contents = append(roles, m.Role), append(contents, m.Content)
	}
	prompt := Render(roles, contents)

	s.mu.Lock()
	s.stats.Chats++
	s.stats.NumCtx = append(s.stats.NumCtx, numCtx)
	if s.loaded != numCtx {
		s.stats.Loads++
		s.loaded, s.last = numCtx, ""
	}
	if CountTokens(prompt) >= numCtx {
		// Ollama keeps the end of the prompt and drops the start, silently.
		s.stats.Truncated++
		prompt = prompt[len(prompt)-(numCtx-1)*BytesPerToken:]
	}
	common := 0
	for common < len(prompt) && common < len(s.last) && prompt[common] == s.last[common] {
		common++
	}
	evaluated := max(CountTokens(prompt)-common/BytesPerToken, 1)
	s.last = prompt
	s.stats.Evaluated += evaluated
	s.mu.Unlock()

	answer := generate(contents[len(contents)-1])
	words := strings.SplitAfter(answer, " ")
	reason := "stop"
	if numPredict >= 0 && len(words) > numPredict {
		words, reason = words[:numPredict], "length"
	}
	now := func() string { return time.Now().UTC().Format(time.RFC3339Nano) }
	final := map[string]any{"model": req.Model, "created_at": now(), "message": map[string]any{"role": "assistant", "content": ""},
		"done": true, "done_reason": reason, "total_duration": 1000, "load_duration": 10, "prompt_eval_count": evaluated,
		"prompt_eval_duration": 100, "eval_count": len(words), "eval_duration": 100}
	if req.Stream != nil && !*req.Stream {
		final["message"] = map[string]any{"role": "assistant", "content": strings.Join(words, "")}
		writeJSON(w, http.StatusOK, final)
		return
	}
	w.Header().Set("content-type", "application/x-ndjson")
	flusher, _ := w.(http.Flusher)
	line := func(v any) {
		data, _ := json.Marshal(v)
		_, _ = w.Write(append(data, '\n'))
		if flusher != nil {
			flusher.Flush()
		}
	}
	for i, word := range words {
		if s.cfg.StreamDelay > 0 {
			time.Sleep(s.cfg.StreamDelay)
		}
		line(map[string]any{"model": req.Model, "created_at": now(), "message": map[string]any{"role": "assistant", "content": word}, "done": false})
		if i == 0 && fault != nil {
			switch fault.Kind {
			case FaultStreamError:
				line(map[string]any{"error": "an error was encountered while running the model: unexpected EOF"})
				return
			case FaultTruncated:
				_, _ = w.Write([]byte(`{"model":"` + req.Model + `","created_at":"`))
				return
			}
		}
	}
	line(final)
}

func generate(content string) string { return fakeapi.ContextFor(content, 6) }

func (s *Server) handleShow(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	_ = json.Unmarshal(body, &req)
	if req.Model == "" {
		req.Model = req.Name
	}
	if _, ok := s.begin(w, req.Model, f); !ok {
		return
	}
	s.mu.Lock()
	s.stats.Shows++
	s.mu.Unlock()
	info := map[string]any{"general.architecture": "qwen3", "general.parameter_count": 8190735360, "qwen3.embedding_length": 4096}
	if !s.cfg.NoContextLength {
		info["qwen3.context_length"] = s.cfg.ContextLength
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"modelfile":  "FROM " + req.Model,
		"parameters": "temperature 0.6\ntop_k 20",
		"template":   "{{ .Prompt }}",
		"details": map[string]any{"format": "gguf", "family": "qwen3", "families": []string{"qwen3"},
			"parameter_size": "8.2B", "quantization_level": "Q4_K_M"},
		"model_info":   info,
		"capabilities": []string{"completion"},
	})
}

// Vector is the fake's deterministic embedding of text: dim values from an
// FNV hash of the text, L2-normalised (fakeembed.HashVector).
func Vector(text string, dim int) []float64 { return fakeembed.HashVector(text, dim) }

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) {
	var req struct {
		Model      string          `json:"model"`
		Input      json.RawMessage `json:"input"`
		Truncate   *bool           `json:"truncate"`
		Dimensions int             `json:"dimensions"`
		Options    map[string]any  `json:"options"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid JSON: " + err.Error()})
		return
	}
	fault, ok := s.begin(w, req.Model, f)
	if !ok {
		return
	}
	var inputs []string
	if json.Unmarshal(req.Input, &inputs) != nil {
		var one string
		if json.Unmarshal(req.Input, &one) != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid input type"})
			return
		}
		inputs = []string{one}
	}
	numCtx := DefaultNumCtx
	if v, ok := req.Options["num_ctx"].(float64); ok && v > 0 {
		numCtx = int(v)
	}
	dim := s.cfg.EmbedDim
	if req.Dimensions > 0 {
		dim = req.Dimensions
	}
	var rows []string
	tokens := 0
	for i, in := range inputs {
		if CountTokens(in) > numCtx {
			if req.Truncate != nil && !*req.Truncate {
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": "the input length exceeds the context length"})
				return
			}
			s.mu.Lock()
			s.stats.Truncated++
			s.mu.Unlock()
			in = in[:numCtx*BytesPerToken]
		}
		tokens += CountTokens(in)
		vec, _ := json.Marshal(Vector(in, dim))
		if i == 0 && fault != nil && fault.Kind == FaultNaN {
			vec = []byte(`["NaN"` + strings.Repeat(",0", dim-1) + `]`)
		}
		rows = append(rows, string(vec))
	}
	if fault != nil && fault.Kind == FaultWrongCount && len(rows) > 0 {
		rows = rows[:len(rows)-1]
	}
	s.mu.Lock()
	s.stats.Embeds++
	s.mu.Unlock()
	w.Header().Set("content-type", "application/json; charset=utf-8")
	fmt.Fprintf(w, `{"model":%q,"embeddings":[%s],"total_duration":1000,"load_duration":10,"prompt_eval_count":%d}`+"\n",
		req.Model, strings.Join(rows, ","), tokens)
}

// WriteError answers status with Ollama's only error shape,
// {"error": "..."} (also what a reverse proxy in front of it is given to
// answer in the tests).
func WriteError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"error": message})
}
