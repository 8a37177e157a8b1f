package apiclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestDo(t *testing.T) {
	var got *http.Request
	var gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b := make([]byte, 1024)
		n, _ := r.Body.Read(b)
		gotBody = string(b[:n])
		switch r.URL.Path {
		case "/ok":
			w.Header().Set("x-compute-tokens", "7")
			w.Write([]byte(`{"a":1}`))
		case "/429":
			w.Header().Set("retry-after", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"message":"slow down"}`))
		case "/400":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`bad`))
		case "/trunc":
			w.Write([]byte(`{"a":`))
		case "/slow":
			time.Sleep(200 * time.Millisecond)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	h := http.Header{}
	h.Set("authorization", "Bearer k")

	var out struct{ A int }
	hdr, err := Do(ctx, srv.Client(), time.Second, Request{Method: http.MethodPost, URL: srv.URL + "/ok", Header: h, In: map[string]string{"q": "<&>"}}, &out)
	if err != nil || out.A != 1 || hdr.Get("x-compute-tokens") != "7" {
		t.Fatalf("ok: %v %+v %v", err, out, hdr)
	}
	if gotBody != `{"q":"<&>"}` || got.Header.Get("authorization") != "Bearer k" ||
		got.Header.Get("content-type") != "application/json" || got.Header.Get("accept") != "application/json" {
		t.Errorf("request: body %q header %v", gotBody, got.Header)
	}

	if _, err := Do(ctx, srv.Client(), time.Second, Request{Method: http.MethodGet, URL: srv.URL + "/ok"}, &out); err != nil || got.Header.Get("content-type") != "" {
		t.Errorf("GET without body: %v, content-type %q", err, got.Header.Get("content-type"))
	}

	for _, c := range []struct {
		path      string
		timeout   time.Duration
		typ       string
		status    int
		retryable bool
		after     time.Duration
		msg       string
	}{
		{"/429", time.Second, TypeHTTP, 429, true, 2 * time.Second, ""},
		{"/400", time.Second, TypeHTTP, 400, false, 0, ""},
		{"/trunc", time.Second, TypeBadResponse, 0, true, 0, "malformed or truncated JSON (5 bytes): unexpected end of JSON input"},
		{"/slow", 20 * time.Millisecond, TypeTimeout, 0, true, 0, "no complete answer within 20ms"},
	} {
		_, err := Do(ctx, srv.Client(), c.timeout, Request{Method: http.MethodPost, URL: srv.URL + c.path, In: struct{}{}}, &out)
		var f *Fault
		if !errors.As(err, &f) {
			t.Errorf("%s: %v, want a *Fault", c.path, err)
			continue
		}
		if f.Type != c.typ || f.StatusCode != c.status || f.Retryable != c.retryable || f.RetryAfter != c.after || f.Message != c.msg {
			t.Errorf("%s: %+v", c.path, f)
		}
	}
	_, err = Do(ctx, srv.Client(), time.Second, Request{Method: http.MethodPost, URL: srv.URL + "/429"}, &out)
	if f := err.(*Fault); string(f.Body) != `{"message":"slow down"}` {
		t.Errorf("429 body %q", f.Body)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Do(cctx, srv.Client(), time.Second, Request{Method: http.MethodGet, URL: srv.URL + "/ok"}, &out)
	if f, ok := err.(*Fault); !ok || f.Type != TypeCanceled || f.Retryable || !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}

	_, err = Do(ctx, srv.Client(), time.Second, Request{Method: http.MethodPost, URL: srv.URL, In: func() {}}, &out)
	if err == nil || !strings.HasPrefix(err.Error(), "encode request: ") {
		t.Errorf("unencodable input: %v", err)
	}

	srv.Close()
	_, err = Do(ctx, http.DefaultClient, time.Second, Request{Method: http.MethodGet, URL: srv.URL}, &out)
	if f, ok := err.(*Fault); !ok || f.Type != TypeConnection || !f.Retryable {
		t.Errorf("closed server: %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		k, v string
		want time.Duration
	}{
		{"retry-after", "3", 3 * time.Second},
		{"retry-after", "0.5", 500 * time.Millisecond},
		{"retry-after", "-1", 0},
		{"retry-after", "soon", 0},
		{"retry-after", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"retry-after", now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"retry-after-ms", "250", 250 * time.Millisecond},
	} {
		h := http.Header{}
		h.Set(c.k, c.v)
		if got := ParseRetryAfter(h, now); got != c.want {
			t.Errorf("%s: %s = %v, want %v", c.k, c.v, got, c.want)
		}
	}
	if got := ParseRetryAfter(http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, now); got != 250*time.Millisecond {
		t.Errorf("retry-after-ms before retry-after: %v", got)
	}
}

func TestRetryableStatus(t *testing.T) {
	for code, want := range map[int]bool{400: false, 401: false, 402: false, 404: false, 408: true, 409: true, 413: false, 422: false, 424: false, 429: true, 500: true, 503: true} {
		if RetryableStatus(code) != want {
			t.Errorf("RetryableStatus(%d) = %v", code, !want)
		}
	}
}

func TestTextAndClip(t *testing.T) {
	s := Text{Provider: "gemini", Model: "m", Op: "embed", Batch: 2, First: 100, Last: 199, StatusCode: 429,
		Type: TypeHTTP, Status: "RESOURCE_EXHAUSTED", Message: "quota", RetryAfter: time.Second}.String()
	if want := "gemini m: embed batch 2 (texts 100-199): status 429 http_error RESOURCE_EXHAUSTED: quota (retry after 1s)"; s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	s = Text{Provider: "tei", Op: "info", Type: TypeConnection, Err: errors.New("refused")}.String()
	if want := "tei: info: connection_error: refused"; s != want {
		t.Errorf("got %q, want %q", s, want)
	}
	if c := Clip(strings.Repeat("x", 301)); len(c) != 303 || !strings.HasSuffix(c, "x...") {
		t.Errorf("Clip: %d bytes", len(c))
	}
	if EstimateTokens("hello world 北京 Москва") != 4+2+3 { // 13 ASCII bytes, 2 Han, 6 Cyrillic
		t.Errorf("EstimateTokens = %d", EstimateTokens("hello world 北京 Москва"))
	}
}
