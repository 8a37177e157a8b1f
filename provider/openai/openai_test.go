package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/openai"
	"github.com/situate/situate/provider/openai/openaitest"
)

// The retry contract package llm relies on.
var _ interface {
	Retryable() bool
	RetryAfter() time.Duration
	RateLimited() bool
} = (*openai.Error)(nil)

const testKey = "sk-test-0123456789"

func newServer(t *testing.T, cfg openaitest.Config) *openaitest.Server {
	t.Helper()
	s := openaitest.NewServer(cfg)
	t.Cleanup(s.Close)
	return s
}

func newClient(t *testing.T, s *openaitest.Server, opts openai.Options) *openai.Client {
	t.Helper()
	opts.BaseURL = s.URL + "/v1"
	if opts.Model == "" && opts.Flavor != openai.FlavorLlamaCpp {
		opts.Model = "gpt-5-mini"
	}
	c, err := openai.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func prompt(docID, doc, chunk string) driver.Prompt {
	return driver.Prompt{DocID: docID, Prefix: "<document>\n" + doc + "\n</document>\n",
		Suffix: "Here is the chunk we want to situate within the whole document\n<chunk>\n" + chunk +
			"\n</chunk>\nPlease give a short succinct context to situate this chunk within the overall document.", MaxTokens: 100}
}

func asError(t *testing.T, err error) *openai.Error {
	t.Helper()
	var e *openai.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *openai.Error", err, err)
	}
	return e
}

func lastBody(t *testing.T, s *openaitest.Server) map[string]any {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request received")
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewValidates(t *testing.T) {
	cases := []struct {
		name  string
		opts  openai.Options
		field string
	}{
		{"openai without key", openai.Options{Model: "gpt-5-mini"}, "APIKey"},
		{"no model", openai.Options{APIKey: "k"}, "Model"},
		{"bad url", openai.Options{APIKey: "k", Model: "m", BaseURL: "ftp://x"}, "BaseURL"},
		{"no host", openai.Options{Model: "m", BaseURL: "http://"}, "BaseURL"},
		{"flavor", openai.Options{Model: "m", BaseURL: "http://h/v1", Flavor: "tgi"}, "Flavor"},
		{"max tokens", openai.Options{APIKey: "k", Model: "m", MaxTokens: -1}, "MaxTokens"},
		{"timeout", openai.Options{APIKey: "k", Model: "m", Timeout: -time.Second}, "Timeout"},
		{"window", openai.Options{APIKey: "k", Model: "m", ContextWindow: -1}, "ContextWindow"},
		{"cache key off openai", openai.Options{Model: "m", BaseURL: "http://h/v1", Flavor: "vllm", PromptCacheKey: true}, "PromptCacheKey"},
		{"slots off llama.cpp", openai.Options{Model: "m", BaseURL: "http://h/v1", Flavor: "vllm", Slots: "hash"}, "Slots"},
		{"slots mode", openai.Options{BaseURL: "http://h/v1", Flavor: "llamacpp", Slots: "random"}, "Slots"},
		{"salt off vllm", openai.Options{APIKey: "k", Model: "m", CacheSalt: "t1"}, "CacheSalt"},
		{"extra messages", openai.Options{APIKey: "k", Model: "m", ExtraBody: map[string]any{"messages": nil}}, "ExtraBody"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openai.New(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.field) || !errors.Is(err, driver.ErrInvalid) {
				t.Fatalf("New(%s) = %v, want an ErrInvalid naming %s", tc.name, err, tc.field)
			}
		})
	}
	c, err := openai.New(openai.Options{APIKey: "k", Model: "gpt-5-mini"})
	if err != nil || c.Flavor() != openai.FlavorOpenAI || c.Name() != "openai:gpt-5-mini" {
		t.Fatalf("default flavor: %v %v", c, err)
	}
	c, err = openai.New(openai.Options{BaseURL: "http://127.0.0.1:1234/v1", Model: "qwen"})
	if err != nil || c.Flavor() != openai.FlavorGeneric {
		t.Fatalf("other host: flavor %q, %v; want generic", c.Flavor(), err)
	}
	c, err = openai.New(openai.Options{BaseURL: "http://127.0.0.1:8080/v1", Flavor: "llamacpp"})
	if err != nil || c.Name() != "llamacpp:local" {
		t.Fatalf("llama.cpp without model: %v", err)
	}
}

func TestOptionsRedactKey(t *testing.T) {
	o := openai.Options{APIKey: testKey, Model: "gpt-5-mini"}
	for _, s := range []string{o.String(), fmt.Sprintf("%v", o), fmt.Sprintf("%+v", o), fmt.Sprintf("%#v", o)} {
		if strings.Contains(s, testKey) || !strings.Contains(s, "redacted") {
			t.Errorf("printed options %q leak or lack the redaction", s)
		}
	}
}

// TestOpenAIWire checks the request OpenAI gets, streaming, Started, the
// usage mapping and prompt caching (the fake applies OpenAI's rule: a
// prefix of 1024+ tokens, cached in 128-token increments).
func TestOpenAIWire(t *testing.T) {
	s := newServer(t, openaitest.Config{APIKey: testKey})
	c := newClient(t, s, openai.Options{APIKey: testKey, Flavor: openai.FlavorOpenAI, PromptCacheKey: true, ExtraBody: map[string]any{"temperature": 0}})
	doc := strings.Repeat("ACME Corp annual report: revenue, costs and outlook per region. ", 100) // ~1600 tokens
	var usages []driver.Usage
	for _, chunk := range []string{"Revenue grew 3% over the previous quarter.", "Costs fell in every region."} {
		started := 0
		p := prompt("reports/acme-2023.md", doc, chunk)
		p.Started = func() { started++ }
		comp, err := c.Complete(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if started != 1 {
			t.Errorf("Started called %d times, want 1", started)
		}
		if want := "Context for: " + strings.Join(strings.Fields(chunk)[:min(6, len(strings.Fields(chunk)))], " "); comp.Text != want {
			t.Errorf("Text = %q, want %q", comp.Text, want)
		}
		usages = append(usages, comp.Usage)
	}
	body := lastBody(t, s)
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 1 {
		t.Fatalf("messages = %v, want one user message", body["messages"])
	}
	m := msgs[0].(map[string]any)
	content, isString := m["content"].(string)
	if m["role"] != "user" || !isString || !strings.HasPrefix(content, "<document>\n"+doc) || !strings.HasSuffix(content, "overall document.") {
		t.Errorf("message = %v: want one user message whose content is the string Prefix+Suffix", m)
	}
	for k, want := range map[string]any{"model": "gpt-5-mini", "stream": true, "max_completion_tokens": 100.0,
		"prompt_cache_key": "reports/acme-2023.md", "temperature": 0.0} {
		if body[k] != want {
			t.Errorf("body[%s] = %v, want %v", k, body[k], want)
		}
	}
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v, want include_usage true", body["stream_options"])
	}
	for _, k := range []string{"max_tokens", "cache_prompt", "id_slot", "cache_salt"} {
		if _, ok := body[k]; ok {
			t.Errorf("body has %s, which OpenAI does not take", k)
		}
	}
	h := s.Requests()[0].Header
	if h.Get("authorization") != "Bearer "+testKey || h.Get("accept") != "text/event-stream" || h.Get("content-type") != "application/json" {
		t.Errorf("headers = %v", h)
	}

	u0, u1 := usages[0], usages[1]
	promptTokens := func(i int) int {
		var b struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		_ = json.Unmarshal(s.Requests()[i].Body, &b)
		return openaitest.CountTokens("<|im_start|>user\n" + b.Messages[0].Content + "<|im_end|>\n<|im_start|>assistant\n")
	}
	if u0.CacheReadTokens != 0 || u0.InputTokens != promptTokens(0) || u0.OutputTokens == 0 || u0.Provider != "openai" ||
		u0.Model != "gpt-5-mini" || u0.DocID != "reports/acme-2023.md" || u0.Operation != "context" || u0.Latency <= 0 {
		t.Errorf("first usage = %+v (prompt %d tokens)", u0, promptTokens(0))
	}
	if u1.CacheReadTokens < 1024 || u1.CacheReadTokens%128 != 0 || u1.InputTokens+u1.CacheReadTokens != promptTokens(1) {
		t.Errorf("second usage = %+v: want >= 1024 cached tokens in 128-token steps, adding up to %d", u1, promptTokens(1))
	}
}

func TestPromptCacheKeyHashesLongIDs(t *testing.T) {
	s := newServer(t, openaitest.Config{APIKey: testKey})
	c := newClient(t, s, openai.Options{APIKey: testKey, Flavor: openai.FlavorOpenAI, PromptCacheKey: true})
	id := strings.Repeat("very/long/path/", 10) + "doc.md"
	if _, err := c.Complete(context.Background(), prompt(id, "doc", "chunk")); err != nil {
		t.Fatal(err)
	}
	key, _ := lastBody(t, s)["prompt_cache_key"].(string)
	if len(key) > openai.MaxPromptCacheKey || !strings.HasPrefix(key, "doc-") {
		t.Errorf("prompt_cache_key = %q, want a hash of at most %d bytes", key, openai.MaxPromptCacheKey)
	}
}

// TestLlamaCppWire checks llama.cpp's fields: cache_prompt, id_slot pinned
// per document from /props total_slots, max_tokens, timings, /tokenize.
func TestLlamaCppWire(t *testing.T) {
	s := newServer(t, openaitest.Config{Flavor: openaitest.FlavorLlamaCpp, Slots: 4})
	c := newClient(t, s, openai.Options{Flavor: openai.FlavorLlamaCpp, Slots: openai.SlotsHash, ExtraBody: map[string]any{"grammar": "root ::= [a-z ]+"}})
	ctx := context.Background()
	slots := map[int]bool{}
	for _, id := range []string{"a.md", "b.md", "c.md", "d.md", "e.md", "a.md"} {
		comp, tm, err := c.CompleteTimings(ctx, prompt(id, strings.Repeat("text of "+id+" ", 200), "chunk of "+id))
		if err != nil {
			t.Fatal(err)
		}
		body := lastBody(t, s)
		slot, _ := body["id_slot"].(float64)
		if int(slot) != openai.Slot(id, 4) || body["cache_prompt"] != true || body["max_tokens"] != 100.0 || body["grammar"] != "root ::= [a-z ]+" {
			t.Errorf("%s: body = %v", id, body)
		}
		if _, ok := body["model"]; ok {
			t.Errorf("model sent although none was configured")
		}
		slots[int(slot)] = true
		if tm.PromptN+tm.CacheN != comp.Usage.InputTokens+comp.Usage.CacheReadTokens || tm.PromptN != comp.Usage.InputTokens {
			t.Errorf("%s: timings %+v disagree with usage %+v", id, tm, comp.Usage)
		}
	}
	if len(slots) < 2 {
		t.Errorf("5 documents all went to slot %v", slots)
	}
	if st := s.Stats(); st.Props != 1 {
		t.Errorf("/props fetched %d times, want once", st.Props)
	}
	if tot := c.Timings(); tot.Calls != 6 || tot.PromptN != s.Stats().Evaluated {
		t.Errorf("Timings = %+v, server evaluated %d", tot, s.Stats().Evaluated)
	}
	if w, err := c.ContextWindow(ctx); err != nil || w != 4096 {
		t.Errorf("ContextWindow = %d, %v", w, err)
	}
	if n, err := c.CountTokens(ctx, strings.Repeat("x", 40)); err != nil || n != 10 {
		t.Errorf("CountTokens = %d, %v; want 10", n, err)
	}
	if _, ok := c.LLM().(driver.TokenCounter); !ok {
		t.Error("LLM() of a llama.cpp client must count tokens")
	}
	// Same document, second chunk: the slot's KV cache covers the document.
	doc := strings.Repeat("shared document text ", 100)
	_, _, _ = c.CompleteTimings(ctx, prompt("shared.md", doc, "first"))
	comp, tm, err := c.CompleteTimings(ctx, prompt("shared.md", doc, "second"))
	if err != nil {
		t.Fatal(err)
	}
	if comp.Usage.CacheReadTokens < openaitest.CountTokens(doc) || tm.CacheN != comp.Usage.CacheReadTokens {
		t.Errorf("second chunk: usage %+v timings %+v, want the document cached", comp.Usage, tm)
	}
}

func TestSlotStable(t *testing.T) {
	for _, id := range []string{"", "a", "docs/x.md", "文件.txt"} {
		for _, n := range []int{0, 1, 2, 3, 8} {
			s := openai.Slot(id, n)
			if s != openai.Slot(id, n) || s < 0 || (n > 0 && s >= n) || (n <= 1 && s != 0) {
				t.Errorf("Slot(%q, %d) = %d", id, n, s)
			}
		}
	}
	// FNV-1a of "a" is 0xe40c292c: fixed so slots survive restarts.
	if got := openai.Slot("a", 7); got != int(uint32(0xe40c292c)%7) {
		t.Errorf("Slot(a, 7) = %d", got)
	}
}

func TestVLLMWire(t *testing.T) {
	s := newServer(t, openaitest.Config{Flavor: openaitest.FlavorVLLM, ContextWindow: 32768, Model: "Qwen/Qwen3-8B"})
	c := newClient(t, s, openai.Options{Flavor: openai.FlavorVLLM, Model: "Qwen/Qwen3-8B", CacheSalt: "tenant-7"})
	ctx := context.Background()
	doc := strings.Repeat("vLLM hashes prefix blocks of sixteen tokens. ", 40)
	var cached []int
	for _, chunk := range []string{"one", "two"} {
		comp, err := c.Complete(ctx, prompt("d", doc, chunk))
		if err != nil {
			t.Fatal(err)
		}
		cached = append(cached, comp.Usage.CacheReadTokens)
	}
	body := lastBody(t, s)
	if body["cache_salt"] != "tenant-7" || body["max_tokens"] != 100.0 || body["model"] != "Qwen/Qwen3-8B" {
		t.Errorf("body = %v", body)
	}
	if _, ok := body["prompt_cache_key"]; ok {
		t.Error("prompt_cache_key sent to vLLM")
	}
	if cached[0] != 0 || cached[1] == 0 || cached[1]%16 != 0 {
		t.Errorf("cached tokens %v: want 0, then whole 16-token blocks", cached)
	}
	// Another tenant's salt does not see the cache.
	other := newClient(t, s, openai.Options{Flavor: openai.FlavorVLLM, Model: "Qwen/Qwen3-8B", CacheSalt: "tenant-8"})
	if comp, err := other.Complete(ctx, prompt("d", doc, "three")); err != nil || comp.Usage.CacheReadTokens != 0 {
		t.Errorf("other tenant read %d cached tokens (%v), want 0", comp.Usage.CacheReadTokens, err)
	}
	if w, err := c.ContextWindow(ctx); err != nil || w != 32768 {
		t.Errorf("ContextWindow = %d, %v; want max_model_len 32768", w, err)
	}
	if n, err := c.CountTokens(ctx, "abcdefgh"); err != nil || n != 2 {
		t.Errorf("CountTokens = %d, %v", n, err)
	}
}

func TestGenericHasNoTokenCounter(t *testing.T) {
	s := newServer(t, openaitest.Config{})
	c := newClient(t, s, openai.Options{Flavor: openai.FlavorGeneric, Model: "local-model"})
	if _, ok := c.LLM().(driver.TokenCounter); ok {
		t.Error("LLM() of a generic client must not offer CountTokens")
	}
	if _, ok := c.LLM().(driver.ContextWindower); !ok {
		t.Error("LLM() must keep ContextWindow")
	}
	if _, err := c.CountTokens(context.Background(), "x"); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("CountTokens on generic = %v, want ErrUnsupported", err)
	}
	if w, err := c.ContextWindow(context.Background()); w != 0 || err != nil {
		t.Errorf("ContextWindow = %d, %v; want 0 (unknown)", w, err)
	}
	if _, err := c.Complete(context.Background(), prompt("d", "doc", "chunk")); err != nil {
		t.Fatal(err)
	}
	body := lastBody(t, s)
	if body["max_tokens"] != 100.0 {
		t.Errorf("generic body = %v, want max_tokens", body)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name       string
		flavor     string
		fault      openaitest.Fault
		status     int
		retryable  bool
		rateLimit  bool
		retryAfter time.Duration
		typ        string
	}{
		{"429 retry-after", "", openaitest.Fault{Kind: openaitest.FaultRateLimit, RetryAfter: 2 * time.Second}, 429, true, true, 2 * time.Second, "requests"},
		{"429 x-ratelimit-reset", "", openaitest.Fault{Kind: openaitest.FaultRateLimitHeaders, RetryAfter: 1500 * time.Millisecond}, 429, true, true, 1500 * time.Millisecond, "requests"},
		{"429 quota", "", openaitest.Fault{Kind: openaitest.FaultQuota}, 429, false, false, 0, "insufficient_quota"},
		{"500", "", openaitest.Fault{Kind: openaitest.FaultServerError}, 500, true, false, 0, "server_error"},
		{"reset", "", openaitest.Fault{Kind: openaitest.FaultReset}, 0, true, false, 0, openai.TypeConnection},
		{"truncated", "", openaitest.Fault{Kind: openaitest.FaultTruncated}, 0, true, false, 0, openai.TypeStream},
		{"no done", "", openaitest.Fault{Kind: openaitest.FaultNoDone}, 0, true, false, 0, openai.TypeStream},
		{"stream error", "", openaitest.Fault{Kind: openaitest.FaultStreamError}, 0, true, false, 0, "server_error"},
		{"llama stream error", openaitest.FlavorLlamaCpp, openaitest.Fault{Kind: openaitest.FaultStreamError}, 0, true, false, 0, "server_error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, openaitest.Config{APIKey: testKey, Flavor: tc.flavor})
			flavor := tc.flavor
			if flavor == "" {
				flavor = openai.FlavorOpenAI
			}
			c := newClient(t, s, openai.Options{APIKey: testKey, Flavor: flavor})
			s.Inject(tc.fault)
			started := false
			p := prompt("d", "doc", "chunk")
			p.Started = func() { started = true }
			comp, err := c.Complete(ctx, p)
			if err == nil {
				t.Fatalf("no error (text %q)", comp.Text)
			}
			e := asError(t, err)
			if e.StatusCode != tc.status || e.Retryable() != tc.retryable || e.RateLimited() != tc.rateLimit ||
				e.RetryAfter() != tc.retryAfter || e.Type != tc.typ {
				t.Errorf("error %v: status %d retryable %v rateLimited %v after %v type %q", err, e.StatusCode, e.Retryable(), e.RateLimited(), e.RetryAfter(), e.Type)
			}
			if comp.Usage.Error == "" {
				t.Error("usage of a failed call has no Error")
			}
			if !strings.HasPrefix(err.Error(), e.Provider) || !strings.Contains(err.Error(), ": chat: ") {
				t.Errorf("error %q does not name provider and operation", err)
			}
			if tc.status == 0 && tc.typ != openai.TypeConnection && !started {
				t.Error("Started not called although the stream began")
			}
			// The next call succeeds: faults are one-shot.
			if _, err := c.Complete(ctx, prompt("d", "doc", "chunk")); err != nil {
				t.Errorf("call after the fault: %v", err)
			}
		})
	}
}

func TestContextLengthExceeded(t *testing.T) {
	for _, flavor := range []string{openaitest.FlavorOpenAI, openaitest.FlavorVLLM, openaitest.FlavorLlamaCpp} {
		t.Run(flavor, func(t *testing.T) {
			s := newServer(t, openaitest.Config{Flavor: flavor, ContextWindow: 1000, APIKey: testKey})
			c := newClient(t, s, openai.Options{Flavor: flavor, APIKey: testKey})
			_, err := c.Complete(context.Background(), prompt("big", strings.Repeat("word ", 2000), "chunk"))
			if !errors.Is(err, driver.ErrPromptTooLarge) {
				t.Fatalf("err = %v, want ErrPromptTooLarge", err)
			}
			if e := asError(t, err); e.Retryable() || e.StatusCode != 400 {
				t.Errorf("err %v: retryable %v status %d", err, e.Retryable(), e.StatusCode)
			}
		})
	}
}

func TestEmptyCompletionAndUnstreamedAnswer(t *testing.T) {
	s := newServer(t, openaitest.Config{})
	c := newClient(t, s, openai.Options{Flavor: openai.FlavorGeneric})
	s.Inject(openaitest.Fault{Kind: openaitest.FaultEmpty})
	comp, err := c.Complete(context.Background(), prompt("d", "doc", "chunk"))
	if err != nil || comp.Text != "" || comp.Usage.OutputTokens != 0 || comp.Usage.InputTokens == 0 {
		t.Errorf("empty completion: %+v, %v; want empty text without error", comp, err)
	}
	s.Inject(openaitest.Fault{Kind: openaitest.FaultNotStreamed})
	started := false
	p := prompt("d", "doc", "a chunk about costs")
	p.Started = func() { started = true }
	comp, err = c.Complete(context.Background(), p)
	if err != nil || comp.Text != "Context for: a chunk about costs" || !started || comp.Usage.InputTokens == 0 {
		t.Errorf("chat.completion answer: %+v, %v, started %v", comp, err, started)
	}
}

func TestUnauthorizedAndBadPrompt(t *testing.T) {
	s := newServer(t, openaitest.Config{APIKey: testKey})
	c := newClient(t, s, openai.Options{APIKey: "sk-wrong"})
	_, err := c.Complete(context.Background(), prompt("d", "doc", "chunk"))
	if e := asError(t, err); e.StatusCode != 401 || e.Retryable() || e.Code != "invalid_api_key" {
		t.Errorf("401: %v", err)
	}
	for _, p := range []driver.Prompt{{DocID: "x"}, {Prefix: "a", MaxTokens: -1}} {
		if _, err := c.Complete(context.Background(), p); !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("prompt %+v: err = %v, want ErrInvalid", p, err)
		}
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: invalid prompts must not be sent", n)
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	s := newServer(t, openaitest.Config{FirstChunkDelay: 300 * time.Millisecond})
	c := newClient(t, s, openai.Options{Flavor: openai.FlavorGeneric, Timeout: 50 * time.Millisecond})
	_, err := c.Complete(context.Background(), prompt("d", "doc", "chunk"))
	if e := asError(t, err); e.Type != openai.TypeTimeout || !e.Retryable() {
		t.Errorf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Complete(ctx, prompt("d", "doc", "chunk"))
	if e := asError(t, err); e.Type != openai.TypeCanceled || e.Retryable() || !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

// TestStreamParsing replays hand-written streams in the shapes servers
// send: multi-line data, comments/keep-alives, CRLF, a last line without
// its blank line, usage in a chunk with choices.
func TestStreamParsing(t *testing.T) {
	chunk := func(content string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + content + `},"finish_reason":` + f + `}]}`
	}
	cases := []struct {
		name, stream, want string
		wantErr            bool
		input, cached      int
	}{
		{"plain", "data: " + chunk(`"Hello"`, "") + "\n\ndata: " + chunk(`" world"`, "stop") + "\n\ndata: [DONE]\n\n", "Hello world", false, 0, 0},
		{"crlf and comments", ": keep-alive\r\n\r\ndata: " + chunk(`"A"`, "") + "\r\n\r\n: ping\r\n\r\ndata: " + chunk(`"B"`, "stop") + "\r\n\r\ndata: [DONE]\r\n\r\n", "AB", false, 0, 0},
		{"done without blank line", "data: " + chunk(`"x"`, "stop") + "\n\ndata: [DONE]", "x", false, 0, 0},
		{"finish without done", "data: " + chunk(`"x"`, "stop") + "\n\n", "x", false, 0, 0},
		{"null content", "data: " + chunk(`null`, "") + "\n\ndata: " + chunk(`"y"`, "stop") + "\n\ndata: [DONE]\n\n", "y", false, 0, 0},
		{"usage", "data: " + chunk(`"z"`, "stop") + "\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":32}}}\n\ndata: [DONE]\n\n", "z", false, 18, 32},
		{"cut mid json", "data: " + chunk(`"x"`, "") + "\n\ndata: {\"id\":\"x\",\"cho", "x", true, 0, 0},
		{"empty body", "", "", true, 0, 0},
		{"vllm error object", "data: " + chunk(`"x"`, "") + "\n\ndata: {\"object\":\"error\",\"message\":\"engine dead\",\"type\":\"InternalServerError\",\"code\":500}\n\n", "x", true, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRawServer(t, tc.stream)
			c, err := openai.New(openai.Options{BaseURL: srv + "/v1", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			comp, err := c.Complete(context.Background(), prompt("d", "doc", "chunk"))
			if (err != nil) != tc.wantErr || comp.Text != tc.want {
				t.Fatalf("got %q, %v; want %q, error %v", comp.Text, err, tc.want, tc.wantErr)
			}
			if comp.Usage.InputTokens != tc.input || comp.Usage.CacheReadTokens != tc.cached {
				t.Errorf("usage %+v, want input %d cached %d", comp.Usage, tc.input, tc.cached)
			}
		})
	}
}

func newRawServer(t *testing.T, stream string) string {
	t.Helper()
	srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		_, _ = w.Write([]byte(stream))
	}))
	return srv
}

func TestSlotsServerSendsNoSlot(t *testing.T) {
	s := newServer(t, openaitest.Config{Flavor: openaitest.FlavorLlamaCpp})
	c := newClient(t, s, openai.Options{Flavor: openai.FlavorLlamaCpp, Slots: openai.SlotsServer})
	if _, err := c.Complete(context.Background(), prompt("d", "doc", "chunk")); err != nil {
		t.Fatal(err)
	}
	body := lastBody(t, s)
	if _, ok := body["id_slot"]; ok || body["cache_prompt"] != true {
		t.Errorf("body = %v: want cache_prompt and no id_slot", body)
	}
	if st := s.Stats(); st.Props != 0 {
		t.Errorf("/props fetched %d times, want 0", st.Props)
	}
}
