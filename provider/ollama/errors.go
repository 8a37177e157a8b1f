package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/internal/apiclient"
)

// Error types the client reports.
const (
	TypeServer     = "server_error"            // Ollama answered {"error": "..."}
	TypeConnection = apiclient.TypeConnection  // dial failure, reset, EOF before the response
	TypeTimeout    = apiclient.TypeTimeout     // Options.Timeout elapsed
	TypeStream     = "stream_error"            // broken NDJSON stream
	TypeCanceled   = apiclient.TypeCanceled    // the caller's context ended
	TypeResponse   = apiclient.TypeBadResponse // a 2xx answer that breaks the contract
	TypeTooLarge   = "prompt_too_large"        // refused before sending: the prompt does not fit
)

// Error is a failed Ollama call. It implements
// interface{ Retryable() bool; RetryAfter() time.Duration; RateLimited() bool }.
// A 401 or 403 (a reverse proxy's authentication) matches
// situate.ErrUnauthorized and an unknown model situate.ErrModelNotFound
// (errors.Is); neither is retryable. Message is the server's text with
// the proxy's credentials and anything like a credential removed.
//
// It is not the embedding adapters' apiclient.Error: Ollama fails inside
// a 200 NDJSON stream too (status 0, retryable), its only error shape is
// {"error": "..."}, and its 503 is a full queue (a rate limit).
type Error struct {
	// Op is "chat", "embed" or "show".
	Op    string
	Model string
	// StatusCode is the HTTP status, 0 if none was received.
	StatusCode int
	Type       string
	Message    string
	// Batch names the embedding batch ("batch 2 (texts 64-95)").
	Batch string
	// Err is the underlying error or a situate sentinel
	// (ErrPromptTooLarge, ErrModelNotFound, ErrUnauthorized, ErrInvalid).
	Err error

	retryable  bool
	retryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("ollama")
	if e.Model != "" {
		b.WriteString(" " + e.Model)
	}
	b.WriteString(": " + e.Op)
	if e.Batch != "" {
		b.WriteString(" " + e.Batch)
	}
	b.WriteString(": ")
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "status %d ", e.StatusCode)
	}
	b.WriteString(e.Type)
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	} else if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if e.retryAfter > 0 {
		b.WriteString(" [retry after " + e.retryAfter.String() + "]")
	}
	return apiclient.Redact(b.String())
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports 408, 429, 5xx (503 "server busy" when Ollama's queue
// is full), connection failures, timeouts and broken streams.
func (e *Error) Retryable() bool { return e.retryable }

// RetryAfter is the retry-after header's wait, 0 if none.
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

// RateLimited reports 429 and 503 (Ollama's full request queue): the
// caller should lower its concurrency.
func (e *Error) RateLimited() bool {
	return e.retryable && (e.StatusCode == http.StatusTooManyRequests || e.StatusCode == http.StatusServiceUnavailable)
}

func (c *Client) serverError(op string, status int, msg string) *Error {
	e := &Error{Op: op, Model: c.model, StatusCode: status, Type: TypeServer, Message: c.redact(msg)}
	// Ollama does not answer 409; 408, 429 and 5xx are
	// apiclient.RetryableStatus's.
	e.retryable = status != http.StatusConflict && apiclient.RetryableStatus(status)
	if status == 0 {
		// An {"error"} line inside a 200 stream: the runner failed mid-answer.
		e.retryable = true
	}
	m := strings.ToLower(msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Err, e.retryable = situate.ErrUnauthorized, false
	case status == http.StatusNotFound || strings.Contains(m, "not found"):
		e.Err = situate.ErrModelNotFound
		e.retryable = false
	case strings.Contains(m, "context length") || strings.Contains(m, "exceeds maximum context") || strings.Contains(m, "input length exceeds"):
		e.Err = situate.ErrPromptTooLarge
		e.retryable = false
	case status == http.StatusBadRequest:
		e.Err = situate.ErrInvalid
	}
	return e
}

// redact removes the credentials of the configured headers (a reverse
// proxy's authorization) and anything like a credential from a text.
func (c *Client) redact(s string) string {
	var secrets []string
	for k, vs := range c.headers {
		if k := strings.ToLower(k); strings.Contains(k, "auth") || strings.Contains(k, "key") || strings.Contains(k, "token") {
			for _, v := range vs {
				secrets = append(secrets, v)
				if _, cred, ok := strings.Cut(v, " "); ok {
					secrets = append(secrets, cred)
				}
			}
		}
	}
	return apiclient.Redact(s, secrets...)
}

func (c *Client) responseError(op string, resp *http.Response) *Error {
	f := apiclient.ResponseFault(resp)
	var env struct {
		Error string `json:"error"`
	}
	msg := apiclient.Clip(strings.TrimSpace(string(f.Body)))
	if json.Unmarshal(f.Body, &env) == nil && env.Error != "" {
		msg = env.Error
	}
	e := c.serverError(op, resp.StatusCode, msg)
	if e.retryable {
		e.retryAfter = f.RetryAfter
	}
	return e
}

func (c *Client) transportError(parent context.Context, op string, err error) *Error {
	f := apiclient.TransportFault(parent, err, c.timeout)
	e := &Error{Op: op, Model: c.model, Type: f.Type, Err: err, retryable: f.Retryable}
	switch f.Type {
	case TypeCanceled:
		e.Err = f.Err
	case TypeTimeout:
		e.Message = fmt.Sprintf("no complete answer within %s", c.timeout)
	}
	return e
}

func (c *Client) streamError(op, format string, args ...any) *Error {
	return &Error{Op: op, Model: c.model, Type: TypeStream, Message: c.redact(fmt.Sprintf(format, args...)), retryable: true}
}

func (c *Client) badResponse(op, batch, format string, args ...any) *Error {
	return &Error{Op: op, Model: c.model, Type: TypeResponse, Batch: batch, Message: fmt.Sprintf(format, args...)}
}
