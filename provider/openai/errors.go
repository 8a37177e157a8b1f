package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/internal/apiclient"
)

// Error types the client reports when the server's own error.type is not
// available: the request never got an answer, or the answer broke off.
const (
	TypeConnection = apiclient.TypeConnection  // dial failure, reset, EOF before the response
	TypeTimeout    = apiclient.TypeTimeout     // Options.Timeout elapsed
	TypeStream     = "stream_error"            // broken SSE stream, truncated or malformed JSON
	TypeHTTP       = apiclient.TypeHTTP        // non-2xx without the OpenAI error shape
	TypeCanceled   = apiclient.TypeCanceled    // the caller's context ended
	TypeResponse   = apiclient.TypeBadResponse // a 2xx answer that breaks the contract (vector count, NaN...)
)

// Error is a failed call to an OpenAI-compatible server. It implements
// interface{ Retryable() bool; RetryAfter() time.Duration; RateLimited() bool }
// so package llm can retry without knowing this package. A 401 or 403
// matches situate.ErrUnauthorized and a 404 or model_not_found
// situate.ErrModelNotFound (errors.Is); neither is retryable. Message is
// the server's text with the key and anything like a credential removed.
//
// It is not the embedding adapters' apiclient.Error: OpenAI-compatible
// servers also fail inside a 200 stream (status 0), name the flavor
// (Provider), carry error.code beside error.type (Code), and their 429s
// carry x-ratelimit-reset-* headers and insufficient_quota.
type Error struct {
	// Provider is the flavor ("openai", "vllm", "llamacpp", "generic").
	Provider string
	// Op is the operation: "chat", "embed", "rerank", "tokenize", "props", "models".
	Op    string
	Model string
	// StatusCode is the HTTP status, 0 if none was received.
	StatusCode int
	// Type is the server's error.type ("rate_limit_error",
	// "invalid_request_error", llama.cpp's "exceed_context_size_error", ...)
	// or one of the Type* constants; Code is error.code as a string
	// ("context_length_exceeded", "rate_limit_exceeded", "400", ...).
	Type, Code string
	Message    string
	// RequestID is the x-request-id header, for support tickets.
	RequestID string
	// Batch names the embedding or rerank batch ("batch 3 (texts 192-255)").
	Batch string
	// Err is the underlying error (transport error, context error, or a
	// situate sentinel such as situate.ErrPromptTooLarge).
	Err error

	retryable  bool
	retryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
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
	if e.Code != "" && e.Code != e.Type && e.Code != strconv.Itoa(e.StatusCode) {
		b.WriteString(" (" + e.Code + ")")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	} else if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	var extra []string
	if e.RequestID != "" {
		extra = append(extra, "request_id "+e.RequestID)
	}
	if e.retryAfter > 0 {
		extra = append(extra, "retry after "+e.retryAfter.String())
	}
	if len(extra) > 0 {
		b.WriteString(" [" + strings.Join(extra, "; ") + "]")
	}
	return apiclient.Redact(b.String())
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed later: 408, 409,
// 429 (except an exhausted quota), 5xx, connection failures, timeouts and
// broken streams.
func (e *Error) Retryable() bool { return e.retryable }

// RetryAfter is the wait the server asked for: retry-after-ms, retry-after
// or, on a 429, OpenAI's x-ratelimit-reset-requests/-tokens; 0 if none.
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

// RateLimited reports a rate limit (429, or a 503 "overloaded" answer):
// the caller should lower its concurrency, not only wait.
func (e *Error) RateLimited() bool {
	if !e.retryable {
		return false
	}
	return e.StatusCode == http.StatusTooManyRequests || e.Code == "rate_limit_exceeded" ||
		e.Type == "rate_limit_error" || e.Type == "rate_limit_exceeded" ||
		(e.StatusCode == http.StatusServiceUnavailable && strings.Contains(strings.ToLower(e.Message), "overload"))
}

// wireError is the OpenAI error object; llama.cpp sends code as a number
// and adds n_prompt_tokens and n_ctx.
type wireError struct {
	Message       string          `json:"message"`
	Type          string          `json:"type"`
	Code          json.RawMessage `json:"code"`
	Param         json.RawMessage `json:"param"`
	NPromptTokens int             `json:"n_prompt_tokens"`
	NCtx          int             `json:"n_ctx"`
}

func (w wireError) code() string {
	if len(w.Code) == 0 || string(w.Code) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(w.Code, &s) == nil {
		return s
	}
	return string(w.Code)
}

// errorBody is the OpenAI error envelope {"error":{...}}; vLLM and older
// servers may also answer {"object":"error","message":...,"type":...,"code":...}.
type errorBody struct {
	Error  *wireError      `json:"error"`
	Object string          `json:"object"`
	Msg    string          `json:"message"`
	Type   string          `json:"type"`
	Code   json.RawMessage `json:"code"`
}

func (b errorBody) wire() (wireError, bool) {
	if b.Error != nil && (b.Error.Message != "" || b.Error.Type != "") {
		return *b.Error, true
	}
	if b.Object == "error" || (b.Msg != "" && b.Type != "") {
		return wireError{Message: b.Msg, Type: b.Type, Code: b.Code}, true
	}
	return wireError{}, false
}

// isContextLength recognises "prompt too large" answers: OpenAI's
// context_length_exceeded, vLLM's "maximum context length is N tokens",
// llama.cpp's exceed_context_size_error ("exceeds the available context
// size"), and 413.
func isContextLength(status int, w wireError) bool {
	if status == http.StatusRequestEntityTooLarge {
		return true
	}
	code := w.code()
	if code == "context_length_exceeded" || w.Type == "exceed_context_size_error" || w.Type == "context_length_exceeded" {
		return true
	}
	m := strings.ToLower(w.Message)
	for _, s := range []string{"maximum context length", "exceeds the available context size", "context length exceeded",
		"context_length_exceeded", "too many tokens", "input is too long", "is longer than the model's context length",
		"exceeds maximum input length", "input is larger than the max context size"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// fromWire builds an Error from an error object.
func (c *core) fromWire(op string, status int, w wireError, reqID string) *Error {
	e := &Error{Provider: c.flavor, Op: op, Model: c.model, StatusCode: status, Type: w.Type, Code: w.code(),
		Message: apiclient.Redact(w.Message, c.apiKey), RequestID: reqID}
	if e.Type == "" {
		e.Type = TypeHTTP
	}
	if status != 0 {
		e.retryable = apiclient.RetryableStatus(status)
	} else {
		// An error inside a 200 stream: the server failed mid-answer.
		e.retryable = !strings.Contains(e.Type, "invalid_request") && !isContextLength(0, w)
	}
	if e.Code == "insufficient_quota" || e.Type == "insufficient_quota" {
		// Same 429 as a rate limit, but waiting does not help.
		e.retryable = false
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden || e.Code == "invalid_api_key":
		e.Err, e.retryable = situate.ErrUnauthorized, false
	case isContextLength(status, w):
		e.Err = situate.ErrPromptTooLarge
		e.retryable = false
	case status == http.StatusNotFound || e.Code == "model_not_found":
		e.Err, e.retryable = situate.ErrModelNotFound, false
	case status == http.StatusBadRequest || strings.Contains(e.Type, "invalid_request"):
		e.Err = situate.ErrInvalid
	}
	return e
}

// responseError reads a non-2xx response into an Error.
func (c *core) responseError(op string, resp *http.Response) *Error {
	body := apiclient.ResponseFault(resp).Body
	reqID := resp.Header.Get("x-request-id")
	var env errorBody
	var e *Error
	if err := json.Unmarshal(body, &env); err == nil {
		if w, ok := env.wire(); ok {
			e = c.fromWire(op, resp.StatusCode, w, reqID)
		}
	}
	if e == nil {
		msg := apiclient.Clip(strings.TrimSpace(string(body)))
		e = c.fromWire(op, resp.StatusCode, wireError{Type: TypeHTTP, Message: msg}, reqID)
	}
	switch strings.ToLower(resp.Header.Get("x-should-retry")) {
	case "true":
		e.retryable = true
	case "false":
		e.retryable = false
	}
	if e.Err == situate.ErrUnauthorized || e.Err == situate.ErrModelNotFound {
		e.retryable = false // whatever x-should-retry says: the same call cannot succeed
	}
	if e.retryable {
		e.retryAfter = parseRetryAfter(resp.Header, resp.StatusCode, time.Now())
	}
	return e
}

// parseRetryAfter reads retry-after-ms and retry-after
// (apiclient.ParseRetryAfter) and, for a 429 without them, OpenAI's own
// x-ratelimit-reset-requests and x-ratelimit-reset-tokens ("1s", "6m0s",
// "20ms"): the reset of an exhausted limit (remaining 0), else the sooner
// reset.
func parseRetryAfter(h http.Header, status int, now time.Time) time.Duration {
	if d := apiclient.ParseRetryAfter(h, now); d > 0 {
		return d
	}
	if status != http.StatusTooManyRequests {
		return 0
	}
	var exhausted, any time.Duration
	for _, kind := range []string{"requests", "tokens"} {
		d, err := time.ParseDuration(strings.TrimSpace(h.Get("x-ratelimit-reset-" + kind)))
		if err != nil || d <= 0 {
			continue
		}
		if strings.TrimSpace(h.Get("x-ratelimit-remaining-"+kind)) == "0" {
			exhausted = max(exhausted, d)
		}
		if any == 0 || d < any {
			any = d
		}
	}
	if exhausted > 0 {
		return exhausted
	}
	return any
}

// transportError classifies an error from sending a request or reading its
// body. parent is the caller's context: if it ended, the error is final;
// if only the client's own Timeout fired, the call may be retried.
func (c *core) transportError(parent context.Context, op string, err error) *Error {
	f := apiclient.TransportFault(parent, err, c.timeout)
	e := &Error{Provider: c.flavor, Op: op, Model: c.model, Type: f.Type, Err: err, retryable: f.Retryable}
	switch f.Type {
	case TypeCanceled:
		e.Err = f.Err
	case TypeTimeout:
		e.Message = fmt.Sprintf("no complete answer within %s", c.timeout)
	}
	return e
}

// streamError is a broken or malformed stream: retryable.
func (c *core) streamError(op, reqID, format string, args ...any) *Error {
	return &Error{Provider: c.flavor, Op: op, Model: c.model, Type: TypeStream, Message: apiclient.Redact(fmt.Sprintf(format, args...), c.apiKey),
		RequestID: reqID, retryable: true}
}

// badResponse is a well-formed answer that breaks the contract: not
// retryable (the same request would get the same answer).
func (c *core) badResponse(op, batch, format string, args ...any) *Error {
	return &Error{Provider: c.flavor, Op: op, Model: c.model, Type: TypeResponse, Batch: batch,
		Message: fmt.Sprintf(format, args...)}
}
