package gemini

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
	"github.com/situate/situate/internal/batch"
)

// Error types the client reports besides the HTTP status.
const (
	TypeConnection  = "connection_error" // dial failure, reset, EOF before the response
	TypeTimeout     = "timeout"          // Options.Timeout elapsed
	TypeHTTP        = "http_error"       // non-2xx answer
	TypeCanceled    = "canceled"         // the caller's context ended
	TypeBadResponse = "bad_response"     // 2xx answer that is malformed or fails the checks
	TypeTooLong     = "input_too_long"   // a text exceeds the model's input limit
	TypeInvalid     = "invalid_input"    // an empty text, an index out of range...
)

// Error is a failed Gemini API call or a rejected input. It implements
// interface{ Retryable() bool; RetryAfter() time.Duration; RateLimited() bool }
// so callers (package llm, the engine) can retry without knowing this
// package.
type Error struct {
	// Op is "embed".
	Op    string
	Model string
	// Batch is the 1-based request number within one call, 0 if the error
	// is not about one batch; First and Last are the indexes (inclusive) of
	// the texts (or documents) it carried.
	Batch       int
	First, Last int
	// Index is the text the error is about, -1 if none.
	Index int
	// StatusCode is the HTTP status, 0 if none was received.
	StatusCode int
	// Type is one of the Type* constants.
	// Status is Google's error.status ("RESOURCE_EXHAUSTED",
	// "INVALID_ARGUMENT", ...).
	Status  string
	Type    string
	Message string
	// Err is the underlying error: a transport or context error, or a
	// situate sentinel (ErrPromptTooLarge, ErrInvalid).
	Err error

	retryable  bool
	retryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(ProviderName)
	if e.Model != "" {
		b.WriteString(" " + e.Model)
	}
	b.WriteString(": " + e.Op)
	if e.Batch > 0 {
		fmt.Fprintf(&b, " batch %d (texts %d-%d)", e.Batch, e.First, e.Last)
	}
	b.WriteString(": ")
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "status %d ", e.StatusCode)
	}
	b.WriteString(e.Type)
	if e.Status != "" {
		b.WriteString(" " + e.Status)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	} else if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if e.retryAfter > 0 {
		b.WriteString(" (retry after " + e.retryAfter.String() + ")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed later: 408, 409,
// 429 (RESOURCE_EXHAUSTED), 5xx (INTERNAL, UNAVAILABLE, DEADLINE_EXCEEDED),
// connection failures, timeouts and truncated answers.
func (e *Error) Retryable() bool { return e.retryable }

// RetryAfter is the wait the server asked for (a google.rpc.RetryInfo
// retryDelay in the error details, else a retry-after header), 0 if it
// gave none.
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

// RateLimited reports a 429: the caller should also lower its concurrency.
func (e *Error) RateLimited() bool { return e.retryable && e.StatusCode == http.StatusTooManyRequests }

func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// parseRetryAfter reads retry-after-ms or retry-after (seconds or an HTTP
// date).
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// batchTooLarge reports a 400 that says the batch holds too many requests.
func batchTooLarge(e *Error) bool {
	return e.StatusCode == http.StatusBadRequest && strings.Contains(e.Message, "at most")
}

// tooLarge reports an error batch.Run answers by splitting the batch.
func tooLarge(err error) bool {
	var e *Error
	return errors.As(err, &e) && batchTooLarge(e)
}

// googleError is Google's error body.
type googleError struct {
	Error struct {
		Code    int               `json:"code"`
		Message string            `json:"message"`
		Status  string            `json:"status"`
		Details []json.RawMessage `json:"details"`
	} `json:"error"`
}

// retryDelay reads a google.rpc.RetryInfo detail ("retryDelay": "37s").
func retryDelay(details []json.RawMessage) time.Duration {
	for _, d := range details {
		var ri struct {
			Type       string `json:"@type"`
			RetryDelay string `json:"retryDelay"`
		}
		if json.Unmarshal(d, &ri) == nil && strings.HasSuffix(ri.Type, "google.rpc.RetryInfo") {
			if v, err := time.ParseDuration(ri.RetryDelay); err == nil && v > 0 {
				return v
			}
		}
	}
	return 0
}

// responseError reads a non-2xx answer: {"error": {"code", "message",
// "status", "details"}}.
func (c *Client) responseError(op string, b batch.Ref, resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var env googleError
	e := c.newError(op, b, TypeHTTP, "")
	if err := json.Unmarshal(body, &env); err == nil && env.Error.Message != "" {
		e.Message, e.Status = env.Error.Message, env.Error.Status
		e.retryAfter = retryDelay(env.Error.Details)
	} else {
		e.Message = strings.TrimSpace(string(body))
	}
	if len(e.Message) > 300 {
		e.Message = e.Message[:300] + "..."
	}
	e.StatusCode = resp.StatusCode
	e.retryable = retryableStatus(resp.StatusCode)
	if e.retryAfter == 0 {
		e.retryAfter = parseRetryAfter(resp.Header, time.Now())
	}
	switch {
	case resp.StatusCode == http.StatusBadRequest && !batchTooLarge(e):
		e.Err = situate.ErrInvalid
	case resp.StatusCode == http.StatusNotFound:
		e.Err = situate.ErrNotFound
	}
	return e
}

// transportError classifies an error from sending a request or reading its
// answer. If the caller's context ended the error is final; if only the
// client's Timeout fired, the call may be retried.
func (c *Client) transportError(parent context.Context, op string, b batch.Ref, err error) *Error {
	e := c.newError(op, b, "", "")
	e.Err = err
	switch {
	case parent.Err() != nil:
		e.Type, e.Err = TypeCanceled, parent.Err()
	case errors.Is(err, context.DeadlineExceeded) || isNetTimeout(err):
		e.Type, e.retryable = TypeTimeout, true
		e.Message = fmt.Sprintf("no answer within %s", c.timeout)
	default:
		e.Type, e.retryable = TypeConnection, true
	}
	return e
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// newError is an error about request b of a call (batch.Ref{} for none).
func (c *Client) newError(op string, b batch.Ref, typ, msg string) *Error {
	return &Error{Op: op, Model: c.model, Batch: b.N, First: b.First, Last: b.Last, Index: -1, Type: typ, Message: msg}
}

// inputError is a text refused before sending.
func (c *Client) inputError(op string, p *batch.Problem) *Error {
	e := c.newError(op, batch.Ref{}, TypeInvalid, p.Message)
	e.Index, e.Err = p.Index, situate.ErrInvalid
	if p.TooLong {
		e.Type, e.Err = TypeTooLong, situate.ErrPromptTooLarge
	}
	return e
}

// badResponse is a 2xx answer that cannot be used. A truncated or
// malformed body is retryable; a well-formed wrong answer is not.
func (c *Client) badResponse(op string, b batch.Ref, retry bool, format string, args ...any) *Error {
	e := c.newError(op, b, TypeBadResponse, fmt.Sprintf(format, args...))
	e.retryable = retry
	return e
}
