package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/situate/situate"
)

// Error types the client reports.
const (
	TypeServer     = "server_error"     // Ollama answered {"error": "..."}
	TypeConnection = "connection_error" // dial failure, reset, EOF before the response
	TypeTimeout    = "timeout"          // Options.Timeout elapsed
	TypeStream     = "stream_error"     // broken NDJSON stream
	TypeCanceled   = "canceled"         // the caller's context ended
	TypeResponse   = "bad_response"     // a 2xx answer that breaks the contract
	TypeTooLarge   = "prompt_too_large" // refused before sending: the prompt does not fit
)

// Error is a failed Ollama call. It implements
// interface{ Retryable() bool; RetryAfter() time.Duration; RateLimited() bool }.
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
	// (ErrPromptTooLarge, ErrNotFound, ErrInvalid).
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
	return b.String()
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
	e := &Error{Op: op, Model: c.model, StatusCode: status, Type: TypeServer, Message: msg}
	e.retryable = status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
	if status == 0 {
		// An {"error"} line inside a 200 stream: the runner failed mid-answer.
		e.retryable = true
	}
	m := strings.ToLower(msg)
	switch {
	case status == http.StatusNotFound || strings.Contains(m, "not found"):
		e.Err = situate.ErrNotFound
		e.retryable = false
	case strings.Contains(m, "context length") || strings.Contains(m, "exceeds maximum context") || strings.Contains(m, "input length exceeds"):
		e.Err = situate.ErrPromptTooLarge
		e.retryable = false
	case status == http.StatusBadRequest:
		e.Err = situate.ErrInvalid
	}
	return e
}

func (c *Client) responseError(op string, resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var env struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &env) == nil && env.Error != "" {
		msg = env.Error
	} else if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	e := c.serverError(op, resp.StatusCode, msg)
	if e.retryable {
		if s, err := strconv.ParseFloat(strings.TrimSpace(resp.Header.Get("retry-after")), 64); err == nil && s > 0 {
			e.retryAfter = time.Duration(s * float64(time.Second))
		}
	}
	return e
}

func (c *Client) transportError(parent context.Context, op string, err error) *Error {
	e := &Error{Op: op, Model: c.model, Err: err}
	var ne net.Error
	switch {
	case parent.Err() != nil:
		e.Type, e.Err = TypeCanceled, parent.Err()
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		e.Type, e.retryable = TypeTimeout, true
		e.Message = fmt.Sprintf("no complete answer within %s", c.timeout)
	default:
		e.Type, e.retryable = TypeConnection, true
	}
	return e
}

func (c *Client) streamError(op, format string, args ...any) *Error {
	return &Error{Op: op, Model: c.model, Type: TypeStream, Message: fmt.Sprintf(format, args...), retryable: true}
}

func (c *Client) badResponse(op, batch, format string, args ...any) *Error {
	return &Error{Op: op, Model: c.model, Type: TypeResponse, Batch: batch, Message: fmt.Sprintf(format, args...)}
}
