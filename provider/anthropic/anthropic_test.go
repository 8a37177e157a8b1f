package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// The retry contract package llm relies on.
var _ interface {
	Retryable() bool
	RetryAfter() time.Duration
	RateLimited() bool
} = (*anthropic.Error)(nil)

const testKey = "sk-ant-test-0123456789"

// doc returns a document of about n bytes (n/4 fake tokens).
func doc(n int) string {
	const s = "The quick brown fox jumps over the lazy dog near the river bank. "
	return strings.Repeat(s, n/len(s)+1)[:n]
}

func newServer(t *testing.T, cfg anthropictest.Config) *anthropictest.Server {
	t.Helper()
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	s := anthropictest.NewServer(cfg)
	t.Cleanup(s.Close)
	return s
}

func newClient(t *testing.T, s *anthropictest.Server, opts anthropic.Options) *anthropic.Client {
	t.Helper()
	opts.APIKey = testKey
	opts.BaseURL = s.URL
	c, err := anthropic.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func prompt(docID, prefix, chunk string) driver.Prompt {
	return driver.Prompt{DocID: docID, Prefix: "<document>\n" + prefix + "\n</document>",
		Suffix: "Here is the chunk we want to situate within the whole document\n<chunk>\n" + chunk +
			"\n</chunk>\nPlease give a short succinct context to situate this chunk within the overall document.",
		MaxTokens: 100}
}

func asError(t *testing.T, err error) *anthropic.Error {
	t.Helper()
	var e *anthropic.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *anthropic.Error", err, err)
	}
	return e
}

func TestNewValidates(t *testing.T) {
	cases := []struct {
		name  string
		opts  anthropic.Options
		field string
	}{
		{"no key", anthropic.Options{}, "APIKey"},
		{"bad url", anthropic.Options{APIKey: "k", BaseURL: "ftp://x"}, "BaseURL"},
		{"no host", anthropic.Options{APIKey: "k", BaseURL: "http://"}, "BaseURL"},
		{"ttl", anthropic.Options{APIKey: "k", CacheTTL: "10m"}, "CacheTTL"},
		{"max tokens", anthropic.Options{APIKey: "k", MaxTokens: -1}, "MaxTokens"},
		{"timeout", anthropic.Options{APIKey: "k", Timeout: -time.Second}, "Timeout"},
		{"window", anthropic.Options{APIKey: "k", ContextWindow: -5}, "ContextWindow"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := anthropic.New(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.field) || !errors.Is(err, driver.ErrInvalid) {
				t.Fatalf("New(%s) = %v, want an ErrInvalid naming %s", tc.name, err, tc.field)
			}
		})
	}
	c, err := anthropic.New(anthropic.Options{APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "anthropic:"+anthropic.DefaultModel {
		t.Errorf("Name = %q", c.Name())
	}
	if w, _ := c.ContextWindow(context.Background()); w != 200000 {
		t.Errorf("ContextWindow = %d, want 200000", w)
	}
	c, _ = anthropic.New(anthropic.Options{APIKey: "k", ContextWindow: 1234})
	if w, _ := c.ContextWindow(context.Background()); w != 1234 {
		t.Errorf("ContextWindow = %d, want 1234", w)
	}
}

func TestOptionsRedactKey(t *testing.T) {
	o := anthropic.Options{APIKey: testKey, Model: "claude-sonnet-4-5"}
	for _, s := range []string{o.String(), fmtV(o), fmtSharpV(o)} {
		if strings.Contains(s, testKey) || !strings.Contains(s, "redacted") {
			t.Errorf("printed options %q leak or lack the redaction", s)
		}
	}
}

// TestCompleteWireShape checks the request body against a golden file and
// the headers and answer against the fake.
func TestCompleteWireShape(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	c := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5", ExtraHeaders: http.Header{"Anthropic-Beta": {"some-beta"}}})
	p := prompt("a.md", "ACME Corp annual report. Revenue grew.", "Revenue grew by 3% over the previous quarter.")
	started := 0
	p.Started = func() { started++ }
	comp, err := c.Complete(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if started != 1 {
		t.Errorf("Started called %d times, want 1", started)
	}
	if want := "Context for: Revenue grew by 3% over the previous quarter."; comp.Text != want {
		t.Errorf("Text = %q, want %q", comp.Text, want)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	h := reqs[0].Header
	for k, want := range map[string]string{"x-api-key": testKey, "anthropic-version": "2023-06-01",
		"content-type": "application/json", "accept": "text/event-stream", "anthropic-beta": "some-beta"} {
		if got := h.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	golden(t, "messages_request.json", reqs[0].Body)

	u := comp.Usage
	// Prefix below Sonnet's 1024-token minimum: nothing cached.
	if u.Provider != "anthropic" || u.Model != "claude-sonnet-4-5" || u.Operation != "context" || u.DocID != "a.md" ||
		u.CacheWriteTokens != 0 || u.CacheReadTokens != 0 || u.InputTokens == 0 || u.OutputTokens == 0 || u.Latency <= 0 || u.Time.IsZero() {
		t.Errorf("usage = %+v", u)
	}
	if u.CostUSD <= 0 {
		t.Errorf("CostUSD = %v, want > 0 for a priced model", u.CostUSD)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs:\n got: %s\nwant: %s", path, buf.Bytes(), want)
	}
}

// replay serves a recorded-shape SSE file as the /v1/messages answer.
func replay(t *testing.T, file string) *anthropic.Client {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		w.Header().Set("request-id", "req_replay")
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	c, err := anthropic.New(anthropic.Options{APIKey: testKey, BaseURL: srv.URL, Model: "claude-haiku-4-5", CacheTTL: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDocumentedStream(t *testing.T) {
	c := replay(t, "stream_documented.sse")
	started := 0
	comp, err := c.Complete(context.Background(), driver.Prompt{DocID: "d", Prefix: "p", Suffix: "s", Started: func() { started++ }})
	if err != nil {
		t.Fatal(err)
	}
	if want := "This chunk is from ACME's Q2 2023 filing; revenue grew 3% over the previous quarter."; comp.Text != want {
		t.Errorf("Text = %q", comp.Text)
	}
	u := comp.Usage
	if started != 1 || u.InputTokens != 42 || u.CacheReadTokens != 4870 || u.CacheWriteTokens != 0 || u.OutputTokens != 21 {
		t.Errorf("started %d, usage %+v", started, u)
	}
	// Haiku 4.5: $1/MTok input, $0.10 cache read, $5 output.
	want := (42*1 + 4870*0.1 + 21*5) / 1e6
	if d := u.CostUSD - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("CostUSD = %v, want %v", u.CostUSD, want)
	}
}

func TestCRLFStreamWithCommentsAndMultilineData(t *testing.T) {
	c := replay(t, "stream_crlf.sse")
	comp, err := c.Complete(context.Background(), driver.Prompt{Prefix: "p", Suffix: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if comp.Text != "Über 北京" || comp.Usage.CacheWriteTokens != 2000 || comp.Usage.OutputTokens != 5 {
		t.Errorf("got %q %+v", comp.Text, comp.Usage)
	}
	// No cache_creation breakdown and CacheTTL 1h: priced as 1h writes.
	want := (10*1 + 2000*2.0 + 5*5) / 1e6
	if d := comp.Usage.CostUSD - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("CostUSD = %v, want %v", comp.Usage.CostUSD, want)
	}
}

func TestCacheWriteThenRead(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	c := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5"})
	text := doc(8000) // ~2000 tokens: above Sonnet's 1024 minimum
	ctx := context.Background()
	first, err := c.Complete(ctx, prompt("d", text, "chunk one"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Complete(ctx, prompt("d", text, "chunk two is different"))
	if err != nil {
		t.Fatal(err)
	}
	p := prompt("d", text, "")
	wantPrefix := anthropictest.MessageOverhead + anthropictest.CountTokens(p.Prefix)
	if first.Usage.CacheWriteTokens != wantPrefix || first.Usage.CacheReadTokens != 0 {
		t.Errorf("first call: write %d read %d, want write %d", first.Usage.CacheWriteTokens, first.Usage.CacheReadTokens, wantPrefix)
	}
	if second.Usage.CacheReadTokens != wantPrefix || second.Usage.CacheWriteTokens != 0 {
		t.Errorf("second call: write %d read %d, want read %d", second.Usage.CacheWriteTokens, second.Usage.CacheReadTokens, wantPrefix)
	}
	if second.Usage.InputTokens != anthropictest.CountTokens(prompt("d", text, "chunk two is different").Suffix) {
		t.Errorf("second call uncached input = %d", second.Usage.InputTokens)
	}
	if second.Usage.CostUSD >= first.Usage.CostUSD {
		t.Errorf("cache read cost %v not below write cost %v", second.Usage.CostUSD, first.Usage.CostUSD)
	}
	// Another model has its own cache.
	c2 := newClient(t, s, anthropic.Options{Model: "claude-opus-4-1"})
	other, err := c2.Complete(ctx, prompt("d", text, "chunk one"))
	if err != nil {
		t.Fatal(err)
	}
	if other.Usage.CacheReadTokens != 0 || other.Usage.CacheWriteTokens != wantPrefix {
		t.Errorf("other model: %+v, want a fresh write", other.Usage)
	}
	// A different document does not hit.
	third, err := c.Complete(ctx, prompt("e", text+" extra", "chunk one"))
	if err != nil {
		t.Fatal(err)
	}
	if third.Usage.CacheReadTokens != 0 {
		t.Errorf("changed prefix read %d cached tokens", third.Usage.CacheReadTokens)
	}
}

// TestCacheReadableOnlyAfterStart: a request sent while the first is still
// prefilling misses; one sent after Started fired hits.
func TestCacheReadableOnlyAfterStart(t *testing.T) {
	s := newServer(t, anthropictest.Config{FirstTokenDelay: 400 * time.Millisecond, StreamDelay: 200 * time.Millisecond})
	c := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5"})
	text := doc(8000)
	ctx := context.Background()

	startedCh := make(chan struct{})
	var wg sync.WaitGroup
	var first, parallel, after driver.Completion
	var errs [3]error
	wg.Add(2)
	go func() {
		defer wg.Done()
		p := prompt("d", text, "first")
		p.Started = func() { close(startedCh) }
		first, errs[0] = c.Complete(ctx, p)
	}()
	go func() { // sent at once: the first has not started
		defer wg.Done()
		parallel, errs[1] = c.Complete(ctx, prompt("d", text, "parallel"))
	}()
	<-startedCh
	if n := s.Stats().Messages; n != 2 {
		t.Fatalf("%d requests arrived before the first started, want 2 (machine too slow for a 400ms prefill?)", n)
	}
	after, errs[2] = c.Complete(ctx, prompt("d", text, "after start"))
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if first.Usage.CacheWriteTokens == 0 || parallel.Usage.CacheWriteTokens == 0 || parallel.Usage.CacheReadTokens != 0 {
		t.Errorf("first %+v / parallel %+v: both should write, neither read", first.Usage, parallel.Usage)
	}
	if after.Usage.CacheReadTokens != first.Usage.CacheWriteTokens || after.Usage.CacheWriteTokens != 0 {
		t.Errorf("after start: %+v, want a read of %d", after.Usage, first.Usage.CacheWriteTokens)
	}
	st := s.Stats()
	if st.CacheWrites != 2 || st.CacheReads != 1 || st.Messages != 3 || st.Completed != 3 {
		t.Errorf("stats %+v", st)
	}
}

func TestCacheMinimumPerModel(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	text := doc(12000) // ~3000 tokens: above Sonnet's 1024, below Haiku 4.5's 4096
	for _, tc := range []struct {
		model  string
		cached bool
	}{
		{"claude-sonnet-4-5", true},
		{"claude-haiku-4-5", false},
		{"claude-3-haiku-20240307", true}, // 2048
		{"claude-opus-4-5", false},        // 4096
	} {
		c := newClient(t, s, anthropic.Options{Model: tc.model})
		comp, err := c.Complete(context.Background(), prompt("d", text, "x"))
		if err != nil {
			t.Fatal(err)
		}
		if got := comp.Usage.CacheWriteTokens > 0; got != tc.cached {
			t.Errorf("%s: cache write %d, want cached=%v", tc.model, comp.Usage.CacheWriteTokens, tc.cached)
		}
		if !tc.cached && comp.Usage.InputTokens < 3000 {
			t.Errorf("%s: uncached input %d, want the whole prompt", tc.model, comp.Usage.InputTokens)
		}
	}
	// Short prefix: nothing cached, a second call reads nothing.
	c := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5"})
	for range 2 {
		comp, err := c.Complete(context.Background(), prompt("short", doc(2000), "x"))
		if err != nil {
			t.Fatal(err)
		}
		if comp.Usage.CacheWriteTokens != 0 || comp.Usage.CacheReadTokens != 0 {
			t.Errorf("below minimum: %+v", comp.Usage)
		}
	}
}

func TestCacheExpiry(t *testing.T) {
	clock := anthropictest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	s := newServer(t, anthropictest.Config{Now: clock.Now})
	text := doc(8000)
	ctx := context.Background()
	call := func(c *anthropic.Client) driver.Usage {
		t.Helper()
		comp, err := c.Complete(ctx, prompt("d", text, "x"))
		if err != nil {
			t.Fatal(err)
		}
		return comp.Usage
	}
	c := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5"})
	if u := call(c); u.CacheWriteTokens == 0 {
		t.Fatalf("no write: %+v", u)
	}
	clock.Advance(4 * time.Minute)
	if u := call(c); u.CacheReadTokens == 0 {
		t.Errorf("read after 4m missed: %+v", u)
	}
	clock.Advance(4 * time.Minute) // 8m after the write, 4m after the read that refreshed it
	if u := call(c); u.CacheReadTokens == 0 {
		t.Errorf("read 4m after a refreshing read missed: %+v", u)
	}
	clock.Advance(5*time.Minute + time.Second)
	if u := call(c); u.CacheReadTokens != 0 || u.CacheWriteTokens == 0 {
		t.Errorf("after 5m idle: %+v, want a miss and a new write", u)
	}

	// 1h TTL: survives 59 minutes, not 61.
	h := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5", CacheTTL: "1h"})
	text = doc(9000)
	u := call(h)
	if u.CacheWriteTokens == 0 {
		t.Fatalf("1h: no write: %+v", u)
	}
	p := prompt("d", text, "x")
	w := anthropictest.MessageOverhead + anthropictest.CountTokens(p.Prefix)
	in := anthropictest.CountTokens(p.Suffix)
	// Sonnet 4.5: $3/MTok input, 1h writes at 2x.
	if want := (float64(in)*3 + float64(w)*6 + float64(u.OutputTokens)*15) / 1e6; abs(u.CostUSD-want) > 1e-12 {
		t.Errorf("1h write cost %v, want %v", u.CostUSD, want)
	}
	clock.Advance(59 * time.Minute)
	if u := call(h); u.CacheReadTokens == 0 {
		t.Errorf("1h entry missed after 59m: %+v", u)
	}
	clock.Advance(61 * time.Minute)
	if u := call(h); u.CacheReadTokens != 0 {
		t.Errorf("1h entry read after 61m idle: %+v", u)
	}
	if !strings.Contains(string(s.Requests()[len(s.Requests())-1].Body), `"cache_control":{"type":"ephemeral","ttl":"1h"}`) {
		t.Errorf("1h request body lacks ttl: %s", s.Requests()[len(s.Requests())-1].Body)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestFaults(t *testing.T) {
	cases := []struct {
		name       string
		fault      anthropictest.Fault
		status     int
		typ        string
		retryable  bool
		retryAfter time.Duration
		started    bool
		limited    bool
	}{
		{"rate limit", anthropictest.Fault{Kind: anthropictest.FaultRateLimit, RetryAfter: 7 * time.Second}, 429, "rate_limit_error", true, 7 * time.Second, false, true},
		{"spend limit", anthropictest.Fault{Kind: anthropictest.FaultSpendLimit}, 429, "rate_limit_error", false, 0, false, false},
		{"overloaded", anthropictest.Fault{Kind: anthropictest.FaultOverloaded, RetryAfter: 2 * time.Second}, 529, "overloaded_error", true, 2 * time.Second, false, true},
		{"server error", anthropictest.Fault{Kind: anthropictest.FaultServerError}, 500, "api_error", true, 0, false, false},
		{"reset", anthropictest.Fault{Kind: anthropictest.FaultReset}, 0, anthropic.TypeConnection, true, 0, false, false},
		{"hang", anthropictest.Fault{Kind: anthropictest.FaultHang}, 0, anthropic.TypeTimeout, true, 0, false, false},
		{"truncated", anthropictest.Fault{Kind: anthropictest.FaultTruncated}, 0, anthropic.TypeStream, true, 0, true, false},
		{"error event", anthropictest.Fault{Kind: anthropictest.FaultStreamError}, 0, "overloaded_error", true, 0, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, anthropictest.Config{})
			timeout := 5 * time.Second
			if tc.fault.Kind == anthropictest.FaultHang {
				timeout = 300 * time.Millisecond
			}
			c := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5", Timeout: timeout})
			s.Inject(tc.fault)
			started := false
			p := prompt("d", doc(8000), "x")
			p.Started = func() { started = true }
			comp, err := c.Complete(context.Background(), p)
			if err == nil {
				t.Fatalf("no error, got %q", comp.Text)
			}
			e := asError(t, err)
			if e.StatusCode != tc.status || e.Type != tc.typ || e.Retryable() != tc.retryable || e.RetryAfter() != tc.retryAfter {
				t.Errorf("error %v: status %d type %q retryable %v retryAfter %v; want %d %q %v %v",
					err, e.StatusCode, e.Type, e.Retryable(), e.RetryAfter(), tc.status, tc.typ, tc.retryable, tc.retryAfter)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "anthropic claude-sonnet-4-5: messages: ") || strings.Contains(msg, testKey) {
				t.Errorf("message %q does not name provider/model/op or leaks the key", msg)
			}
			if tc.status != 0 && !strings.Contains(msg, "status ") {
				t.Errorf("message %q lacks the status", msg)
			}
			if e.RateLimited() != tc.limited {
				t.Errorf("RateLimited = %v, want %v", e.RateLimited(), tc.limited)
			}
			if started != tc.started {
				t.Errorf("Started called = %v, want %v", started, tc.started)
			}
			if comp.Usage.Error == "" {
				t.Errorf("usage of a failed call has no Error")
			}
			if tc.started && comp.Usage.CacheWriteTokens == 0 {
				t.Errorf("usage seen at message_start lost: %+v", comp.Usage)
			}
			// The server recovers: the next call succeeds.
			if _, err := c.Complete(context.Background(), prompt("d", doc(8000), "y")); err != nil {
				t.Errorf("call after the fault: %v", err)
			}
		})
	}
}

func TestEmptyCompletionIsNotAnError(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	c := newClient(t, s, anthropic.Options{})
	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultEmpty})
	comp, err := c.Complete(context.Background(), prompt("d", "doc", "x"))
	if err != nil || comp.Text != "" || comp.Usage.InputTokens == 0 {
		t.Fatalf("Complete = %q, %+v, %v; want empty text without error", comp.Text, comp.Usage, err)
	}
}

func TestCallerCancelIsFinal(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	c := newClient(t, s, anthropic.Options{})
	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultHang})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Complete(ctx, prompt("d", "doc", "x"))
	e := asError(t, err)
	if e.Type != anthropic.TypeCanceled || e.Retryable() || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("caller deadline: %v (type %q retryable %v)", err, e.Type, e.Retryable())
	}
}

func TestRequestErrors(t *testing.T) {
	s := newServer(t, anthropictest.Config{ContextWindow: 3000})
	ctx := context.Background()
	c := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5"})

	_, err := c.Complete(ctx, prompt("d", doc(20000), "x"))
	e := asError(t, err)
	if e.StatusCode != 400 || e.Retryable() || !errors.Is(err, driver.ErrPromptTooLarge) || !strings.Contains(err.Error(), "prompt is too long") {
		t.Errorf("too long: %v", err)
	}

	bad, err := anthropic.New(anthropic.Options{APIKey: "wrong-key", BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Complete(ctx, prompt("d", "doc", "x"))
	e = asError(t, err)
	if e.StatusCode != 401 || e.Type != "authentication_error" || e.Retryable() || e.RequestID == "" || strings.Contains(err.Error(), "wrong-key") {
		t.Errorf("bad key: %v", err)
	}

	nm := newClient(t, s, anthropic.Options{Model: "gpt-4o"})
	_, err = nm.Complete(ctx, prompt("d", "doc", "x"))
	if e = asError(t, err); e.StatusCode != 404 || !errors.Is(err, driver.ErrModelNotFound) {
		t.Errorf("unknown model: %v", err)
	}

	if _, err = c.Complete(ctx, driver.Prompt{DocID: "empty"}); !errors.Is(err, driver.ErrInvalid) || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty prompt: %v", err)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("%d requests sent, want 3 (the empty prompt is rejected locally)", n)
	}
	// Only a suffix: no empty block is sent (the API rejects those).
	if _, err := c.Complete(ctx, driver.Prompt{Suffix: "just the chunk"}); err != nil {
		t.Errorf("suffix-only prompt: %v", err)
	}
}

func TestHTTPErrorWithoutAnthropicShape(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("retry-after-ms", "1500")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html>502 Bad Gateway</html>"))
	}))
	defer srv.Close()
	c, _ := anthropic.New(anthropic.Options{APIKey: testKey, BaseURL: srv.URL})
	_, err := c.Complete(context.Background(), prompt("d", "doc", "x"))
	e := asError(t, err)
	if e.StatusCode != 502 || e.Type != anthropic.TypeHTTP || !e.Retryable() || e.RetryAfter() != 1500*time.Millisecond || !strings.Contains(e.Message, "Bad Gateway") {
		t.Errorf("502: %v", err)
	}
}

func TestShouldRetryHeaderOverrides(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-should-retry", "false")
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"api_error","message":"boom"}}`))
	}))
	defer srv.Close()
	c, _ := anthropic.New(anthropic.Options{APIKey: testKey, BaseURL: srv.URL})
	_, err := c.Complete(context.Background(), prompt("d", "doc", "x"))
	if e := asError(t, err); e.Retryable() {
		t.Errorf("x-should-retry: false ignored: %v", err)
	}
}

func TestCountTokens(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	c := newClient(t, s, anthropic.Options{})
	ctx := context.Background()
	text := "Ein kurzer deutscher Satz. 一个中文句子。"
	n, err := c.CountTokens(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	if want := anthropictest.CountTokens(text) + anthropictest.MessageOverhead; n != want {
		t.Errorf("CountTokens = %d, want %d", n, want)
	}
	if n, err := c.CountTokens(ctx, ""); n != 0 || err != nil {
		t.Errorf("empty: %d %v", n, err)
	}
	// Counting works beyond the context window (it is how callers check fit).
	big := doc(900000)
	if n, err := c.CountTokens(ctx, big); err != nil || n <= 200000 {
		t.Errorf("big text: %d %v", n, err)
	}
	reqs := s.Requests()
	if reqs[0].Path != "/v1/messages/count_tokens" || strings.Contains(string(reqs[0].Body), "max_tokens") {
		t.Errorf("count_tokens request %s %s", reqs[0].Path, reqs[0].Body)
	}
	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultTruncated, Path: "/count_tokens"})
	_, err = c.CountTokens(ctx, text)
	if e := asError(t, err); e.Type != anthropic.TypeStream || !e.Retryable() || e.Op != "count_tokens" {
		t.Errorf("truncated count: %v", err)
	}
	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultOverloaded, Path: "/count_tokens"})
	_, err = c.CountTokens(ctx, text)
	if e := asError(t, err); e.StatusCode != 529 || !e.Retryable() {
		t.Errorf("overloaded count: %v", err)
	}
	if st := s.Stats(); st.CountTokens != 3 {
		t.Errorf("CountTokens stat = %d", st.CountTokens)
	}
}

// TestConcurrentDocumentFanOut is the pattern package llm uses: one call
// per document first, the rest after Started. Every other chunk reads.
func TestConcurrentDocumentFanOut(t *testing.T) {
	s := newServer(t, anthropictest.Config{FirstTokenDelay: 20 * time.Millisecond, StreamDelay: 20 * time.Millisecond})
	c := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5"})
	ctx := context.Background()
	const docs, chunks = 4, 6
	var reads, writes atomic.Int64
	var wg sync.WaitGroup
	for d := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := doc(6000 + d)
			started := make(chan struct{})
			var inner sync.WaitGroup
			inner.Add(1)
			go func() {
				defer inner.Done()
				p := prompt("doc", text, "chunk 0")
				p.Started = func() { close(started) }
				comp, err := c.Complete(ctx, p)
				if err != nil {
					t.Error(err)
					return
				}
				writes.Add(int64(comp.Usage.CacheWriteTokens))
			}()
			<-started
			for i := 1; i < chunks; i++ {
				inner.Add(1)
				go func() {
					defer inner.Done()
					comp, err := c.Complete(ctx, prompt("doc", text, "chunk "+string(rune('0'+i))))
					if err != nil {
						t.Error(err)
						return
					}
					if comp.Usage.CacheReadTokens == 0 {
						t.Errorf("doc %d chunk %d missed the cache", d, i)
					}
					reads.Add(int64(comp.Usage.CacheReadTokens))
				}()
			}
			inner.Wait()
		}()
	}
	wg.Wait()
	st := s.Stats()
	if st.CacheWrites != docs || st.CacheReads != docs*(chunks-1) {
		t.Errorf("stats %+v, want %d writes and %d reads", st, docs, docs*(chunks-1))
	}
	if int64(st.CacheReadTokens) != reads.Load() || int64(st.CacheWriteTokens) != writes.Load() {
		t.Errorf("client-side usage (write %d read %d) disagrees with server (%d, %d)", writes.Load(), reads.Load(), st.CacheWriteTokens, st.CacheReadTokens)
	}
}

// TestNonStreamingFallback: a proxy that ignores "stream" and answers with
// a whole Message still works, and Started still fires.
func TestNonStreamingFallback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "application/json")
		_, _ = w.Write([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"Whole answer."}],"stop_reason":"end_turn","usage":{"input_tokens":5,"cache_read_input_tokens":4100,"cache_creation_input_tokens":0,"output_tokens":3}}`))
	}))
	defer srv.Close()
	c, _ := anthropic.New(anthropic.Options{APIKey: testKey, BaseURL: srv.URL})
	started := false
	comp, err := c.Complete(context.Background(), driver.Prompt{Prefix: "p", Suffix: "s", Started: func() { started = true }})
	if err != nil || comp.Text != "Whole answer." || comp.Usage.CacheReadTokens != 4100 || !started {
		t.Errorf("got %q %+v started=%v err=%v", comp.Text, comp.Usage, started, err)
	}
}

// TestConnectionReuse: sequential calls share one keep-alive connection
// (the stream is read to its end), parallel ones a small pool.
func TestConnectionReuse(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	c := newClient(t, s, anthropic.Options{})
	for i := range 10 {
		if _, err := c.Complete(context.Background(), prompt("d", "doc", string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Stats().Connections; n != 1 {
		t.Errorf("10 sequential calls used %d connections, want 1", n)
	}
}
