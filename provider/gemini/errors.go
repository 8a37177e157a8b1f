package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/internal/apiclient"
	"github.com/situate/situate/internal/batch"
)

// Error types the client reports besides the HTTP status.
const (
	TypeConnection  = apiclient.TypeConnection  // dial failure, reset, EOF before the response
	TypeTimeout     = apiclient.TypeTimeout     // Options.Timeout elapsed
	TypeHTTP        = apiclient.TypeHTTP        // non-2xx answer
	TypeCanceled    = apiclient.TypeCanceled    // the caller's context ended
	TypeBadResponse = apiclient.TypeBadResponse // 2xx answer that is malformed or fails the checks
	TypeTooLong     = apiclient.TypeTooLong     // a text exceeds the model's input limit
	TypeInvalid     = apiclient.TypeInvalid     // an empty text, an index out of range...
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
	return apiclient.Text{Provider: ProviderName, Model: e.Model, Op: e.Op, Batch: e.Batch, First: e.First, Last: e.Last,
		StatusCode: e.StatusCode, Type: e.Type, Status: e.Status, Message: e.Message, Err: e.Err, RetryAfter: e.retryAfter}.String()
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
func (c *Client) responseError(op string, b batch.Ref, f *apiclient.Fault) *Error {
	var env googleError
	e := c.fault(op, b, f)
	if err := json.Unmarshal(f.Body, &env); err == nil && env.Error.Message != "" {
		e.Message, e.Status = env.Error.Message, env.Error.Status
		if d := retryDelay(env.Error.Details); d > 0 {
			e.retryAfter = d
		}
	} else {
		e.Message = strings.TrimSpace(string(f.Body))
	}
	e.Message = apiclient.Clip(e.Message)
	switch {
	case f.StatusCode == http.StatusBadRequest && !batchTooLarge(e):
		e.Err = situate.ErrInvalid
	case f.StatusCode == http.StatusNotFound:
		e.Err = situate.ErrNotFound
	}
	return e
}

// callError turns what apiclient.Do returned into this package's error.
func (c *Client) callError(op string, b batch.Ref, err error) error {
	var f *apiclient.Fault
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &f):
		return fmt.Errorf("gemini: %s: %w", op, err)
	case f.Type == TypeHTTP:
		return c.responseError(op, b, f)
	}
	return c.fault(op, b, f)
}

// fault copies a Fault into an Error about request b.
func (c *Client) fault(op string, b batch.Ref, f *apiclient.Fault) *Error {
	e := c.newError(op, b, f.Type, f.Message)
	e.StatusCode, e.Err, e.retryable, e.retryAfter = f.StatusCode, f.Err, f.Retryable, f.RetryAfter
	return e
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
