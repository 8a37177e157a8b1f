package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/ollama"
	"github.com/situate/situate/provider/ollama/ollamatest"
)

var _ interface {
	Retryable() bool
	RetryAfter() time.Duration
	RateLimited() bool
} = (*ollama.Error)(nil)

func newServer(t *testing.T, cfg ollamatest.Config) *ollamatest.Server {
	t.Helper()
	s := ollamatest.NewServer(cfg)
	t.Cleanup(s.Close)
	return s
}

func newClient(t *testing.T, s *ollamatest.Server, opts ollama.Options) *ollama.Client {
	t.Helper()
	opts.BaseURL = s.URL
	if opts.Model == "" {
		opts.Model = "qwen3:8b"
	}
	c, err := ollama.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func prompt(docID, doc, chunk string) driver.Prompt {
	return driver.Prompt{DocID: docID, Prefix: "<document>\n" + doc + "\n</document>\n",
		Suffix: "<chunk>\n" + chunk + "\n</chunk>\nGive a short context to situate this chunk.", MaxTokens: 100}
}

func TestBaseURL(t *testing.T) {
	cases := map[string]string{
		"":                         "http://127.0.0.1:11434",
		"0.0.0.0":                  "http://127.0.0.1:11434",
		"0.0.0.0:8080":             "http://127.0.0.1:8080",
		"gpu-box":                  "http://gpu-box:11434",
		"gpu-box:1234":             "http://gpu-box:1234",
		":5555":                    "http://127.0.0.1:5555",
		"[::1]:11434":              "http://[::1]:11434",
		"::1":                      "http://[::1]:11434",
		"http://gpu-box":           "http://gpu-box:80",
		"https://ollama.example":   "https://ollama.example:443",
		"https://proxy:8443/llm":   "https://proxy:8443/llm",
		"  http://10.0.0.5:11434 ": "http://10.0.0.5:11434",
	}
	for in, want := range cases {
		got, err := ollama.BaseURL(in)
		if err != nil || got != want {
			t.Errorf("BaseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"gpu-box:99999", "gpu-box:abc", "ftp://gpu-box"} {
		if got, err := ollama.BaseURL(in); !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("BaseURL(%q) = %q, %v; want ErrInvalid", in, got, err)
		}
	}
}

func TestNewValidates(t *testing.T) {
	for name, o := range map[string]ollama.Options{
		"Model":        {},
		"BaseURL":      {Model: "m", BaseURL: "localhost:11434"},
		"/api":         {Model: "m", BaseURL: "http://localhost:11434/api"},
		"MaxTokens":    {Model: "m", MaxTokens: -1},
		"NumCtx":       {Model: "m", NumCtx: 100, MaxTokens: 200},
		"ExtraOptions": {Model: "m", ExtraOptions: map[string]any{"num_ctx": 8}},
	} {
		field := name
		if field == "/api" {
			field = "BaseURL"
		}
		if _, err := ollama.New(o); !errors.Is(err, driver.ErrInvalid) || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: New = %v", name, err)
		}
	}
}

// TestChatWire checks the NDJSON exchange: num_ctx always sent and sized
// to the prompt, keep_alive, Started, usage, and that the server never had
// to cut a prompt.
func TestChatWire(t *testing.T) {
	s := newServer(t, ollamatest.Config{})
	noThink := false
	c := newClient(t, s, ollama.Options{ExtraOptions: map[string]any{"temperature": 0}, Think: &noThink})
	ctx := context.Background()
	doc := strings.Repeat("ACME Corp annual report: revenue, costs and outlook. ", 250) // ~13.3 kB
	var usages []driver.Usage
	for _, chunk := range []string{"Revenue grew 3% over the previous quarter.", "Costs fell in every region."} {
		started := 0
		p := prompt("acme.md", doc, chunk)
		p.Started = func() { started++ }
		comp, err := c.Complete(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if started != 1 || !strings.HasPrefix(comp.Text, "Context for: ") {
			t.Errorf("started %d, text %q", started, comp.Text)
		}
		usages = append(usages, comp.Usage)
	}
	var body struct {
		Model     string
		Stream    bool
		KeepAlive string `json:"keep_alive"`
		Think     *bool
		Messages  []struct{ Role, Content string }
		Options   map[string]any
	}
	if err := json.Unmarshal(s.Requests()[len(s.Requests())-1], &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "qwen3:8b" || !body.Stream || body.Think == nil || *body.Think || body.KeepAlive != ollama.DefaultKeepAlive || len(body.Messages) != 1 ||
		body.Messages[0].Role != "user" || !strings.HasPrefix(body.Messages[0].Content, "<document>\n"+doc) ||
		body.Options["num_predict"] != 100.0 || body.Options["temperature"] != 0.0 {
		t.Errorf("body = %+v", body)
	}
	st := s.Stats()
	// ~13.3 kB / 3 * 1.1 + overhead + 100 = ~5060 tokens: the next power of two.
	if st.NumCtx[0] != 8192 || st.NumCtx[1] != 8192 || st.Truncated != 0 || st.Loads != 1 || st.Shows != 1 {
		t.Errorf("stats = %+v: want num_ctx 8192 twice, one load, nothing truncated", st)
	}
	if usages[0].InputTokens < 2600 || usages[1].InputTokens > 30 || usages[0].OutputTokens == 0 || usages[0].Provider != "ollama" {
		t.Errorf("usages %+v / %+v: want the whole prompt evaluated first, then only the chunk", usages[0], usages[1])
	}
}

// TestNumCtxOnlyGrows: smaller documents after a large one keep the larger
// num_ctx, so Ollama does not reload the model (and drop its cache).
func TestNumCtxOnlyGrows(t *testing.T) {
	s := newServer(t, ollamatest.Config{})
	c := newClient(t, s, ollama.Options{})
	ctx := context.Background()
	for _, n := range []int{500, 30000, 500, 2000} {
		if _, err := c.Complete(ctx, prompt("d", strings.Repeat("x", n), "chunk")); err != nil {
			t.Fatal(err)
		}
	}
	st := s.Stats()
	want := []int{4096, 16384, 16384, 16384}
	for i := range want {
		if st.NumCtx[i] != want[i] {
			t.Fatalf("num_ctx sent %v, want %v", st.NumCtx, want)
		}
	}
	if st.Loads != 2 || st.Truncated != 0 {
		t.Errorf("stats %+v: want 2 loads", st)
	}
}

// TestRefusesWhatOllamaWouldCut: a prompt above the model's context length
// is an ErrPromptTooLarge error and is never sent.
func TestRefusesWhatOllamaWouldCut(t *testing.T) {
	s := newServer(t, ollamatest.Config{ContextLength: 8192})
	c := newClient(t, s, ollama.Options{})
	ctx := context.Background()
	if w, err := c.ContextWindow(ctx); err != nil || w != 8192 {
		t.Fatalf("ContextWindow = %d, %v", w, err)
	}
	comp, err := c.Complete(ctx, prompt("big", strings.Repeat("word ", 6000), "chunk"))
	var oe *ollama.Error
	if !errors.Is(err, driver.ErrPromptTooLarge) || !errors.As(err, &oe) || oe.Retryable() || comp.Usage.Error == "" {
		t.Fatalf("err = %v, want a non-retryable ErrPromptTooLarge", err)
	}
	if st := s.Stats(); st.Chats != 0 {
		t.Errorf("%d chats sent, want 0", st.Chats)
	}
	// MaxNumCtx caps below the model's length; a fixed NumCtx is a hard limit.
	c = newClient(t, s, ollama.Options{MaxNumCtx: 4096})
	if _, err := c.Complete(ctx, prompt("mid", strings.Repeat("word ", 2500), "chunk")); !errors.Is(err, driver.ErrPromptTooLarge) {
		t.Errorf("MaxNumCtx 4096: %v", err)
	}
	c = newClient(t, s, ollama.Options{NumCtx: 2048})
	if _, err := c.Complete(ctx, prompt("small", "short doc", "chunk")); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.NumCtx[len(st.NumCtx)-1] != 2048 || st.Truncated != 0 {
		t.Errorf("fixed NumCtx: %+v", st)
	}
}

func TestUnknownContextLength(t *testing.T) {
	s := newServer(t, ollamatest.Config{NoContextLength: true})
	c := newClient(t, s, ollama.Options{})
	if w, err := c.ContextWindow(context.Background()); err != nil || w != 0 {
		t.Errorf("ContextWindow = %d, %v; want 0", w, err)
	}
	if _, err := c.Complete(context.Background(), prompt("d", strings.Repeat("y", 50000), "c")); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.NumCtx[0] != 32768 || st.Truncated != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestChatErrors(t *testing.T) {
	cases := []struct {
		name      string
		fault     ollamatest.FaultKind
		model     string
		status    int
		retryable bool
		rateLimit bool
		sentinel  error
	}{
		{"500", ollamatest.FaultServerError, "", 500, true, false, nil},
		{"busy", ollamatest.FaultBusy, "", 503, true, true, nil},
		{"stream error", ollamatest.FaultStreamError, "", 0, true, false, nil},
		{"truncated", ollamatest.FaultTruncated, "", 0, true, false, nil},
		{"unknown model", 0, "llama9:1b", 404, false, false, driver.ErrModelNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, ollamatest.Config{})
			c := newClient(t, s, ollama.Options{Model: tc.model, NumCtx: 8192})
			if tc.fault != 0 {
				s.Inject(ollamatest.Fault{Kind: tc.fault})
			}
			_, err := c.Complete(context.Background(), prompt("d", "doc", "chunk"))
			var e *ollama.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if e.StatusCode != tc.status || e.Retryable() != tc.retryable || e.RateLimited() != tc.rateLimit ||
				(tc.sentinel != nil && !errors.Is(err, tc.sentinel)) || !strings.HasPrefix(err.Error(), "ollama ") {
				t.Errorf("err %v: status %d retryable %v rateLimited %v", err, e.StatusCode, e.Retryable(), e.RateLimited())
			}
		})
	}
}

func TestEmbed(t *testing.T) {
	s := newServer(t, ollamatest.Config{Model: "nomic-embed-text", EmbedDim: 6})
	e, err := ollama.NewEmbedder(ollama.EmbedOptions{BaseURL: s.URL, Model: "nomic-embed-text", BatchSize: 2, NumCtx: 100,
		DocumentPrefix: "search_document: ", QueryPrefix: "search_query: "})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	texts := []string{"eins", "zwei", "drei"}
	vecs, err := e.Embed(ctx, texts, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		want := ollamatest.Vector("search_document: "+texts[i], 6)
		if len(v) != 6 || math.Abs(float64(v[2])-want[2]) > 1e-6 {
			t.Errorf("vector %d = %v", i, v)
		}
	}
	var body map[string]any
	_ = json.Unmarshal(s.Requests()[0], &body)
	if body["truncate"] != false || body["options"].(map[string]any)["num_ctx"] != 100.0 {
		t.Errorf("embed body = %v: want truncate false and num_ctx", body)
	}
	if _, err := e.Embed(ctx, []string{strings.Repeat("lang ", 100)}, driver.InputQuery); !errors.Is(err, driver.ErrPromptTooLarge) {
		t.Errorf("too long: %v", err)
	}
	for _, f := range []ollamatest.FaultKind{ollamatest.FaultNaN, ollamatest.FaultWrongCount} {
		s.Inject(ollamatest.Fault{Kind: f, Path: "/api/embed"})
		if _, err := e.Embed(ctx, texts, driver.InputDocument); err == nil || !strings.Contains(err.Error(), "batch 1 (texts 0-1)") {
			t.Errorf("fault %d: %v", f, err)
		}
	}
	if st := s.Stats(); st.Truncated != 0 {
		t.Errorf("server truncated %d inputs", st.Truncated)
	}
}

func TestEstimateTokens(t *testing.T) {
	for text, want := range map[string]int{
		"":                      0,
		"abc":                   1,
		"abcd":                  2,
		"Выручка":               5,     // 14 bytes
		"上下文检索":                 5 + 3, // 15 bytes + half a token per character
		strings.Repeat("a", 30): 10,
	} {
		if got := ollama.EstimateTokens(text); got != want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", text, got, want)
		}
	}
}
