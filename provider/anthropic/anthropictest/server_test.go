package anthropictest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/provider/anthropic/anthropictest"
)

func post(t *testing.T, s *anthropictest.Server, path, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("x-api-key", "k")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func body(doc, chunk string, ttl string, stream bool, maxTokens int) string {
	cc := `{"type":"ephemeral"}`
	if ttl != "" {
		cc = `{"type":"ephemeral","ttl":"` + ttl + `"}`
	}
	b, _ := json.Marshal(doc)
	c, _ := json.Marshal(chunk)
	s := "false"
	if stream {
		s = "true"
	}
	return `{"model":"claude-sonnet-4-5","max_tokens":` + itoa(maxTokens) + `,"stream":` + s +
		`,"messages":[{"role":"user","content":[{"type":"text","text":` + string(b) + `,"cache_control":` + cc +
		`},{"type":"text","text":` + string(c) + `}]}]}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

type event struct {
	name string
	data map[string]any
}

func readEvents(t *testing.T, r io.Reader) []event {
	t.Helper()
	var out []event
	sc := bufio.NewScanner(r)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("event %s: bad JSON %q", name, line)
			}
			out = append(out, event{name, d})
		}
	}
	return out
}

func TestStreamWireFormat(t *testing.T) {
	s := anthropictest.NewServer(anthropictest.Config{APIKey: "k"})
	defer s.Close()
	resp := post(t, s, "/v1/messages", body(strings.Repeat("word ", 1000), "<chunk>The chunk text here</chunk> situate it", "", true, 50), nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("content-type"), "text/event-stream") || resp.Header.Get("request-id") == "" {
		t.Fatalf("status %d headers %v", resp.StatusCode, resp.Header)
	}
	evs := readEvents(t, resp.Body)
	var names []string
	text := ""
	for _, e := range evs {
		names = append(names, e.name)
		if e.data["type"] != e.name {
			t.Errorf("event %s carries type %v", e.name, e.data["type"])
		}
		if e.name == "content_block_delta" {
			text += e.data["delta"].(map[string]any)["text"].(string)
		}
	}
	got := strings.Join(names, ",")
	if !strings.HasPrefix(got, "message_start,content_block_start,ping,content_block_delta") ||
		!strings.HasSuffix(got, "content_block_delta,content_block_stop,message_delta,message_stop") {
		t.Errorf("event order %s", got)
	}
	if text != "Context for: The chunk text here" {
		t.Errorf("text %q", text)
	}
	msg := evs[0].data["message"].(map[string]any)
	for _, k := range []string{"id", "type", "role", "model", "content", "usage"} {
		if _, ok := msg[k]; !ok {
			t.Errorf("message_start.message lacks %s", k)
		}
	}
	u := msg["usage"].(map[string]any)
	want := float64(anthropictest.MessageOverhead + anthropictest.CountTokens(strings.Repeat("word ", 1000)))
	if u["cache_creation_input_tokens"] != want || u["cache_read_input_tokens"] != 0.0 ||
		u["cache_creation"].(map[string]any)["ephemeral_5m_input_tokens"] != want {
		t.Errorf("usage %v, want a 5m write of %v", u, want)
	}
	md := evs[len(evs)-2].data
	if md["delta"].(map[string]any)["stop_reason"] != "end_turn" || md["usage"].(map[string]any)["output_tokens"] == 0.0 {
		t.Errorf("message_delta %v", md)
	}
}

func TestNonStreamingAndMaxTokens(t *testing.T) {
	s := anthropictest.NewServer(anthropictest.Config{})
	defer s.Close()
	resp := post(t, s, "/v1/messages", body("short doc", "<chunk>one two three four five six</chunk>", "1h", false, 3), nil)
	var m struct {
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
		Content    []struct{ Text string }
		Usage      map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "message" || m.StopReason != "max_tokens" || len(m.Content) != 1 || len(m.Content[0].Text) > 12 {
		t.Errorf("message %+v", m)
	}
	// Below the minimum: nothing written even with a breakpoint.
	if m.Usage["cache_creation_input_tokens"] != 0.0 {
		t.Errorf("usage %v", m.Usage)
	}
}

func TestErrorShapes(t *testing.T) {
	s := anthropictest.NewServer(anthropictest.Config{APIKey: "k"})
	defer s.Close()
	five := `{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"user","content":[` +
		strings.Repeat(`{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},`, 5) + `{"type":"text","text":"b"}]}]}`
	for _, tc := range []struct {
		name, body string
		hdr        map[string]string
		status     int
		typ, msg   string
	}{
		{"bad json", `{"model":`, nil, 400, "invalid_request_error", "invalid request body"},
		{"no max_tokens", `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]}`, nil, 400, "invalid_request_error", "max_tokens"},
		{"empty block", `{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`, nil, 400, "invalid_request_error", "non-empty"},
		{"bad ttl", body("d", "c", "2h", false, 5), nil, 400, "invalid_request_error", "ttl"},
		{"five breakpoints", five, nil, 400, "invalid_request_error", "maximum of 4"},
		{"assistant first", `{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"assistant","content":"hi"}]}`, nil, 400, "invalid_request_error", "first message"},
		{"unknown model", `{"model":"gpt-4o","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, nil, 404, "not_found_error", "gpt-4o"},
		{"no version", body("d", "c", "", false, 5), map[string]string{"anthropic-version": ""}, 400, "invalid_request_error", "anthropic-version"},
		{"bad key", body("d", "c", "", false, 5), map[string]string{"x-api-key": "nope"}, 401, "authentication_error", "x-api-key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, s, "/v1/messages", tc.body, tc.hdr)
			var env struct {
				Type  string `json:"type"`
				Error struct{ Type, Message string }
			}
			data, _ := io.ReadAll(resp.Body)
			if err := json.Unmarshal(data, &env); err != nil {
				t.Fatalf("body %q: %v", data, err)
			}
			if resp.StatusCode != tc.status || env.Type != "error" || env.Error.Type != tc.typ || !strings.Contains(env.Error.Message, tc.msg) {
				t.Errorf("%d %s", resp.StatusCode, data)
			}
		})
	}
}

// TestLongestBreakpointWins: a cached system prompt is read even when the
// document after it is new, and the document part is written.
func TestLongestBreakpointWins(t *testing.T) {
	s := anthropictest.NewServer(anthropictest.Config{})
	defer s.Close()
	sys := strings.Repeat("You write contexts for chunks. ", 200) // ~1550 tokens
	req := func(doc string) map[string]any {
		b, _ := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 20,
			"system": []map[string]any{{"type": "text", "text": sys, "cache_control": map[string]string{"type": "ephemeral", "ttl": "1h"}}},
			"messages": []map[string]any{{"role": "user", "content": []map[string]any{
				{"type": "text", "text": doc, "cache_control": map[string]string{"type": "ephemeral"}},
				{"type": "text", "text": "<chunk>x</chunk>"}}}}})
		resp := post(t, s, "/v1/messages", string(b), nil)
		var m struct{ Usage map[string]any }
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return m.Usage
	}
	sysTok := float64(anthropictest.MessageOverhead + anthropictest.CountTokens(sys))
	docTok := float64(anthropictest.CountTokens(strings.Repeat("a", 4000)))
	u := req(strings.Repeat("a", 4000))
	cc := u["cache_creation"].(map[string]any)
	if cc["ephemeral_1h_input_tokens"] != sysTok || cc["ephemeral_5m_input_tokens"] != docTok {
		t.Errorf("first: %v, want 1h %v + 5m %v", u, sysTok, docTok)
	}
	u = req(strings.Repeat("b", 4000))
	if u["cache_read_input_tokens"] != sysTok || u["cache_creation_input_tokens"] != docTok {
		t.Errorf("new document: %v, want read %v write %v", u, sysTok, docTok)
	}
	u = req(strings.Repeat("a", 4000))
	if u["cache_read_input_tokens"] != sysTok+docTok || u["cache_creation_input_tokens"] != 0.0 {
		t.Errorf("repeat: %v, want read %v", u, sysTok+docTok)
	}
}

func TestHangEndsOnClose(t *testing.T) {
	s := anthropictest.NewServer(anthropictest.Config{})
	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultHang})
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/messages", bytes.NewReader([]byte(body("d", "c", "", true, 5))))
		req.Header.Set("anthropic-version", "2023-06-01")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	time.Sleep(50 * time.Millisecond)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked by a hung request")
	}
	<-done
}

func TestMinCacheTokens(t *testing.T) {
	for model, want := range map[string]int{"claude-haiku-4-5-20251001": 4096, "claude-opus-4-5": 4096, "claude-opus-4-6": 4096,
		"claude-3-5-haiku-latest": 2048, "claude-3-haiku-20240307": 2048, "claude-sonnet-4-5": 1024, "claude-opus-4-1": 1024, "claude-3-7-sonnet": 1024} {
		if got := anthropictest.MinCacheTokens(model); got != want {
			t.Errorf("MinCacheTokens(%s) = %d, want %d", model, got, want)
		}
	}
}
