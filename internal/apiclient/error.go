package apiclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Error is a failed provider call, or an input refused before sending.
// Every adapter exports it as its own Error (type Error =
// apiclient.Error), as pebble re-exports internal/base. It implements
// interface{ Retryable() bool; RetryAfter() time.Duration; RateLimited()
// bool } so callers (package llm, the engine) can retry without knowing
// the adapter.
//
// Errors for HTTP 401 and 403 match situate.ErrUnauthorized and those for
// 404 situate.ErrModelNotFound (errors.Is); neither is retryable. Message
// is the server's text with credentials removed (Redact).
type Error struct {
	// Provider is the adapter ("anthropic", "cohere", "voyage", "gemini",
	// "tei", "ollama") or the OpenAI-compatible flavour ("openai", "vllm",
	// "llamacpp", "generic").
	Provider string
	// Op is the operation: "messages", "chat", "embed", "rerank",
	// "contextualized_embed", "count_tokens", "batches.get", ...
	Op    string
	Model string
	// Item names the request within a call the error is about: an
	// Anthropic batch request's custom_id.
	Item string
	// Batch is the 1-based request number within one call, 0 if the error
	// is not about one batch; First and Last are the indexes (inclusive) of
	// the texts (or documents) it carried.
	Batch       int
	First, Last int
	// Index is the text the error is about, -1 if none.
	Index int
	// StatusCode is the HTTP status, 0 if none was received.
	StatusCode int
	// Type is one of the Type* constants, or the provider's own error
	// type where it sends one (Anthropic's and OpenAI's error.type, TEI's
	// error_type in lower case).
	Type string
	// Code is the provider's error code beside its type (OpenAI's
	// error.code: "context_length_exceeded", "invalid_api_key", ...).
	Code string
	// Status is the provider's status name where it sends one (Google's
	// error.status: "RESOURCE_EXHAUSTED", "INVALID_ARGUMENT", ...).
	Status  string
	Message string
	// RequestID is the provider's id of the request (Anthropic's
	// request-id, OpenAI's x-request-id, Cohere's error id or x-trace-id),
	// for support tickets.
	RequestID string
	// Err is the underlying error: a transport or context error, or a
	// situate sentinel (ErrPromptTooLarge, ErrInvalid, ErrUnauthorized,
	// ErrModelNotFound).
	Err error

	retryable   bool
	retryAfter  time.Duration
	rateLimited bool
}

func (e *Error) Error() string {
	return Redact(Text{Provider: e.Provider, Model: e.Model, Op: e.Op, Item: e.Item, Batch: e.Batch, First: e.First, Last: e.Last,
		StatusCode: e.StatusCode, Type: e.Type, Status: e.Status, Code: e.Code, Message: e.Message, Err: e.Err,
		RequestID: e.RequestID, RetryAfter: e.retryAfter}.String())
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed later: 408, 409,
// 429, 5xx, connection failures, timeouts and truncated answers; not 401,
// 403, 404 or other 4xx input errors (each adapter documents its own).
func (e *Error) Retryable() bool { return e.retryable }

// RetryAfter is the wait the server asked for, 0 if it gave none.
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

// RateLimited reports a retryable rate limit or overload, after which the
// caller should also lower its concurrency: 429, 529, an error type or
// code saying so (rate_limit_error, overloaded_error,
// rate_limit_exceeded), or what the adapter marked (SetRateLimited).
func (e *Error) RateLimited() bool {
	if !e.retryable {
		return false
	}
	switch {
	case e.rateLimited, e.StatusCode == http.StatusTooManyRequests, e.StatusCode == 529:
		return true
	}
	for _, s := range []string{e.Type, e.Code} {
		if s == "rate_limit_error" || s == "overloaded_error" || s == "rate_limit_exceeded" {
			return true
		}
	}
	return false
}

// SetRetry sets whether the error is retryable and the wait the server
// asked for.
func (e *Error) SetRetry(retryable bool, after time.Duration) {
	e.retryable, e.retryAfter = retryable, after
}

// SetRetryable sets whether the error is retryable.
func (e *Error) SetRetryable(retryable bool) { e.retryable = retryable }

// SetRetryAfter sets the wait the server asked for.
func (e *Error) SetRetryAfter(after time.Duration) { e.retryAfter = after }

// SetRateLimited marks a retryable error as a rate limit (an adapter's
// own signal: Ollama's full queue, a 503 "overloaded").
func (e *Error) SetRateLimited(rateLimited bool) { e.rateLimited = rateLimited }

// StatusSentinel is the situate sentinel an HTTP status means whatever
// the provider: 401 and 403 ErrUnauthorized, 404 ErrModelNotFound (the
// adapters' endpoints are per model, so an unknown path is an unknown
// model or a wrong base URL, which retrying cannot fix either); nil for
// the others.
func StatusSentinel(status int) error {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return driver.ErrUnauthorized
	case http.StatusNotFound:
		return driver.ErrModelNotFound
	}
	return nil
}

// Caller makes the errors of one adapter's client.
type Caller struct {
	Provider, Model string
	// Secret is the client's API key: removed from every message.
	Secret string
}

// New is an error about request b of a call (batch.Ref{} for none).
func (c Caller) New(op string, b batch.Ref, typ, msg string) *Error {
	return &Error{Provider: c.Provider, Op: op, Model: c.Model, Batch: b.N, First: b.First, Last: b.Last, Index: -1,
		Type: typ, Message: Redact(msg, c.Secret)}
}

// Fault copies a Fault into an Error about request b. A non-2xx answer's
// body becomes Message (clipped, redacted) for the adapter's responseError
// to refine, and its status's sentinel (StatusSentinel) becomes Err.
func (c Caller) Fault(op string, b batch.Ref, f *Fault) *Error {
	e := c.New(op, b, f.Type, f.Message)
	e.StatusCode, e.Err, e.retryable, e.retryAfter = f.StatusCode, f.Err, f.Retryable, f.RetryAfter
	if f.Type == TypeHTTP {
		if s := StatusSentinel(f.StatusCode); s != nil {
			e.Err, e.retryable = s, false
		}
	}
	return e
}

// Transport is an error from sending a request or reading its answer
// (TransportFault): final if the caller's context (parent) ended,
// retryable if only the request's timeout fired or the connection failed.
func (c Caller) Transport(parent context.Context, op string, b batch.Ref, err error, timeout time.Duration) *Error {
	return c.Fault(op, b, TransportFault(parent, err, timeout))
}

// Answer is Fault for a non-2xx answer whose error body the adapter has
// read: Message is the server's msg, or the body's text when msg is ""
// (not the provider's format: a proxy's page, a bare status), clipped and
// redacted.
func (c Caller) Answer(op string, b batch.Ref, f *Fault, msg string) *Error {
	e := c.Fault(op, b, f)
	if msg == "" {
		msg = strings.TrimSpace(string(f.Body))
	}
	c.SetMessage(e, msg)
	return e
}

// SetMessage sets e's Message to the server's msg, clipped and with the
// caller's key and anything like a credential removed.
func (c Caller) SetMessage(e *Error, msg string) {
	e.Message = Clip(Redact(msg, c.Secret))
}

// Input is a text refused before sending.
func (c Caller) Input(op string, p *batch.Problem) *Error {
	e := c.New(op, batch.Ref{}, TypeInvalid, p.Message)
	e.Index, e.Err = p.Index, driver.ErrInvalid
	if p.TooLong {
		e.Type, e.Err = TypeTooLong, driver.ErrPromptTooLarge
	}
	return e
}

// BadResponse is a 2xx answer that cannot be used. A truncated or
// malformed body is retryable; a well-formed wrong answer is not.
func (c Caller) BadResponse(op string, b batch.Ref, retry bool, format string, args ...any) *Error {
	e := c.New(op, b, TypeBadResponse, fmt.Sprintf(format, args...))
	e.retryable = retry
	return e
}

// CallError turns what Do returned into an *Error: a non-2xx answer goes
// through response (the adapter's reading of its error body), other
// faults are copied, and an error from before sending is wrapped with the
// provider and operation.
func (c Caller) CallError(op string, b batch.Ref, err error, response func(op string, b batch.Ref, f *Fault) *Error) error {
	var f *Fault
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &f):
		return fmt.Errorf("%s: %s: %w", c.Provider, op, err)
	case f.Type == TypeHTTP:
		return response(op, b, f)
	}
	return c.Fault(op, b, f)
}
