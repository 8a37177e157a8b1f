package apiclient

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

func TestRedact(t *testing.T) {
	const key = "conformance-Key-42"
	for _, c := range []struct{ in, want string }{
		{"invalid key " + key, "invalid key [redacted]"},
		{"got " + strings.ReplaceAll(key, "-", "%2D"), "got " + strings.ReplaceAll(key, "-", "%2D")}, // not a form a server writes
		{"authorization: Bearer abcdef123456", "authorization: Bearer [redacted]"},
		{`{"x-api-key":"whatever-it-is"}`, `{"x-api-key":"[redacted]"}`},
		{"x-goog-api-key: zzzzzzzz", "x-goog-api-key: [redacted]"},
		{"?key=AIzaSyA1234567890abcdefghijklmnopqrstu&alt=json", "?key=[redacted]&alt=json"},
		{"Incorrect API key provided: sk-proj-abcDEF1234567890. You can find", "Incorrect API key provided: [redacted]. You can find"},
		{"api_key=hunter22", "api_key=[redacted]"},
		{"password: s3cret!!", "password: [redacted]"},
		{"token 0123456789abcdef0123456789abcdef01", "token [redacted]"},
		{"secret in prose a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7 here", "secret in prose [redacted] here"},
		{"hash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "hash [redacted]"},
		// ordinary text survives
		{"model: text-embedding-3-large not found", "model: text-embedding-3-large not found"},
		{"max_tokens: 1024 exceeds the limit", "max_tokens: 1024 exceeds the limit"},
		{"key: value expected", "key: value expected"},
		{"/v1/models/gemini-embedding-001:batchEmbedContents not found", "/v1/models/gemini-embedding-001:batchEmbedContents not found"},
		{"input is too long: 9000 tokens > 8192", "input is too long: 9000 tokens > 8192"},
	} {
		if got := Redact(c.in, key); got != c.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if got := Redact("abc", "abc"); got != "abc" {
		t.Errorf("a 3-byte secret was searched for: %q", got)
	}
}

// A server that echoes the key: neither the error's text, nor its Message,
// nor what Record stores carries it; 401 and 404 match the sentinels and
// are not retryable.
func TestCallerRedactsAndClassifies(t *testing.T) {
	const key = "plain-key-without-shape"
	c := Caller{Provider: "p", Model: "m", Secret: key}
	for status, want := range map[int]error{401: driver.ErrUnauthorized, 403: driver.ErrUnauthorized, 404: driver.ErrModelNotFound, 400: nil} {
		f := &Fault{StatusCode: status, Type: TypeHTTP, Body: []byte(`{"message":"bad key ` + key + `"}`), Header: http.Header{}}
		e := c.CallError("embed", batch.Ref{N: 1}, f, func(op string, b batch.Ref, f *Fault) *Error {
			e := c.Fault(op, b, f)
			c.SetMessage(e, string(f.Body))
			return e
		})
		if strings.Contains(e.Error(), key) || strings.Contains(e.(*Error).Message, key) {
			t.Errorf("%d: key in %q", status, e.Error())
		}
		if want != nil && (!errors.Is(e, want) || e.(*Error).Retryable()) {
			t.Errorf("%d: %v does not match %v or is retryable", status, e, want)
		}
	}
}
