package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
	"github.com/situate/situate/internal/batch"
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

// Error is a failed call to an OpenAI-compatible server, the adapters'
// shared error type (Provider the flavour; Op "chat", "embed", "rerank",
// "tokenize", "props" or "models"; Type the server's error.type —
// "rate_limit_error", "invalid_request_error", llama.cpp's
// "exceed_context_size_error" — or a Type* constant; Code error.code as a
// string; RequestID the x-request-id header). It is retryable for 408,
// 409, 429 (except an exhausted quota), 5xx, connection failures, timeouts
// and broken streams; RetryAfter is retry-after-ms, retry-after or, on a
// 429, OpenAI's x-ratelimit-reset-requests/-tokens; RateLimited reports
// 429, rate_limit_exceeded and a 503 "overloaded". A 401 or 403 matches
// situate.ErrUnauthorized and model_not_found or any 404
// situate.ErrModelNotFound (errors.Is): an unknown model, or a base URL or
// flavour whose server lacks the endpoint (llama.cpp's /props), which no
// retry fixes either; neither is retryable. Message is
// the server's text with the key and anything like a credential removed.
type Error = apiclient.Error

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
	e := &Error{Index: -1, Provider: c.flavor, Op: op, Model: c.model, StatusCode: status, Type: w.Type, Code: w.code(),
		Message: apiclient.Redact(w.Message, c.apiKey), RequestID: reqID}
	if status == http.StatusServiceUnavailable && strings.Contains(strings.ToLower(w.Message), "overload") {
		e.SetRateLimited(true)
	}
	if e.Type == "" {
		e.Type = TypeHTTP
	}
	if status != 0 {
		e.SetRetryable(apiclient.RetryableStatus(status))
	} else {
		// An error inside a 200 stream: the server failed mid-answer.
		e.SetRetryable(!strings.Contains(e.Type, "invalid_request") && !isContextLength(0, w))
	}
	if e.Code == "insufficient_quota" || e.Type == "insufficient_quota" {
		// Same 429 as a rate limit, but waiting does not help.
		e.SetRetryable(false)
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden || e.Code == "invalid_api_key":
		e.Err = driver.ErrUnauthorized
		e.SetRetryable(false)
	case isContextLength(status, w):
		e.Err = driver.ErrPromptTooLarge
		e.SetRetryable(false)
	case status == http.StatusNotFound || e.Code == "model_not_found":
		e.Err = driver.ErrModelNotFound
		e.SetRetryable(false)
	case status == http.StatusBadRequest || strings.Contains(e.Type, "invalid_request"):
		e.Err = driver.ErrInvalid
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
		e.SetRetryable(true)
	case "false":
		e.SetRetryable(false)
	}
	if e.Err == driver.ErrUnauthorized || e.Err == driver.ErrModelNotFound {
		e.SetRetryable(false) // whatever x-should-retry says: the same call cannot succeed
	}
	if e.Retryable() {
		e.SetRetryAfter(parseRetryAfter(resp.Header, resp.StatusCode, time.Now()))
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
// body (apiclient.TransportFault): final if the caller's context (parent)
// ended, retryable if only the client's own Timeout fired.
func (c *core) transportError(parent context.Context, op string, err error) *Error {
	return apiclient.Caller{Provider: c.flavor, Model: c.model}.Transport(parent, op, batch.Ref{}, err, c.timeout)
}

// streamError is a broken or malformed stream: retryable.
func (c *core) streamError(op, reqID, format string, args ...any) *Error {
	e := &Error{Index: -1, Provider: c.flavor, Op: op, Model: c.model, Type: TypeStream, Message: apiclient.Redact(fmt.Sprintf(format, args...), c.apiKey),
		RequestID: reqID}
	e.SetRetryable(true)
	return e
}

// badResponse is a well-formed answer that breaks the contract: not
// retryable (the same request would get the same answer).
func (c *core) badResponse(op string, ref batch.Ref, format string, args ...any) *Error {
	return &Error{Index: -1, Provider: c.flavor, Op: op, Model: c.model, Type: TypeResponse, Batch: ref.N, First: ref.First, Last: ref.Last,
		Message: fmt.Sprintf(format, args...)}
}
