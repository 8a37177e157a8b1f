package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
	"github.com/situate/situate/internal/batch"
)

// Error types the client reports when Anthropic's own error.type is not
// available: the request never got an answer, or the answer broke off.
const (
	TypeConnection = apiclient.TypeConnection // dial failure, reset, EOF before the response
	TypeTimeout    = apiclient.TypeTimeout    // Options.Timeout elapsed
	TypeStream     = "stream_error"           // broken SSE stream or truncated JSON
	TypeHTTP       = apiclient.TypeHTTP       // non-2xx without Anthropic's error shape
	TypeCanceled   = apiclient.TypeCanceled   // the caller's context ended
)

// ErrBatchInProgress is wrapped by BatchResults when the batch has not ended.
var ErrBatchInProgress = errors.New("anthropic: batch still in progress")

// Error is a failed Anthropic API call, the adapters' shared error type
// (Op "messages", "count_tokens", "batches.create", "batches.get",
// "batches.cancel", "batches.results" or "batch result"; Type Anthropic's
// error.type or a Type* constant; Item the batch request's custom_id;
// RequestID Anthropic's request-id). It is retryable for 408, 409, 429
// (except a reached spend limit), 5xx and 529, connection failures,
// timeouts and broken streams, an x-should-retry header overriding;
// RetryAfter is retry-after-ms or retry-after; RateLimited reports 429,
// 529 and overloaded_error events. A 401 or 403 (authentication_error,
// permission_error) matches situate.ErrUnauthorized and a 404 for the
// model situate.ErrModelNotFound (errors.Is); neither is retryable.
// Message is Anthropic's text with the key and anything like a credential
// removed.
type Error = apiclient.Error

// errorEnvelope is Anthropic's error body:
// {"type":"error","error":{"type":"...","message":"..."},"request_id":"..."}.
type errorEnvelope struct {
	Type  string    `json:"type"`
	Error wireError `json:"error"`
	// RequestID is present in newer responses.
	RequestID string `json:"request_id"`
}

type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Details *struct {
		ErrorCode string `json:"error_code"`
	} `json:"details,omitempty"`
}

// retryableType classifies an error.type seen without a status (an SSE
// error event or an errored batch result).
func retryableType(t string) bool {
	switch t {
	case "rate_limit_error", "overloaded_error", "api_error", "timeout_error":
		return true
	}
	return false
}

// statusForType maps an error.type seen in a stream to the status the same
// error would have had as a plain response.
func statusForType(t string) int {
	switch t {
	case "invalid_request_error":
		return 400
	case "authentication_error":
		return 401
	case "billing_error":
		return 402
	case "permission_error":
		return 403
	case "not_found_error":
		return 404
	case "request_too_large":
		return 413
	case "rate_limit_error":
		return 429
	case "api_error":
		return 500
	case "timeout_error":
		return 504
	case "overloaded_error":
		return 529
	}
	return 0
}

// fromWire builds an Error from Anthropic's error object.
func (c *Client) fromWire(op string, status int, we wireError, requestID string) *Error {
	e := &Error{Index: -1, Provider: ProviderName, Op: op, Model: c.model, StatusCode: status, Type: we.Type, Message: c.redact(we.Message), RequestID: requestID}
	if status != 0 {
		// The official SDKs' rule (408, 409, 429, >=500) covers Anthropic's
		// 500, 502, 503, 504 and 529.
		e.SetRetryable(apiclient.RetryableStatus(status))
	} else {
		e.SetRetryable(retryableType(we.Type))
	}
	if we.Details != nil && we.Details.ErrorCode == "enforced_spend_limit_reached" {
		// Same 429 rate_limit_error as a rate limit, but waiting does not help.
		e.SetRetryable(false)
	}
	if status == 0 {
		status = statusForType(we.Type)
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Err = driver.ErrUnauthorized
		e.SetRetryable(false)
	case status == http.StatusNotFound && modelOp(op):
		e.Err = driver.ErrModelNotFound
		e.SetRetryable(false)
	case status == http.StatusRequestEntityTooLarge || we.Type == "request_too_large",
		strings.Contains(strings.ToLower(we.Message), "prompt is too long"):
		e.Err = driver.ErrPromptTooLarge
	case we.Type == "invalid_request_error":
		e.Err = driver.ErrInvalid
	case we.Type == "not_found_error":
		e.Err = driver.ErrNotFound
	}
	return e
}

// modelOp reports the operations whose 404 means the model does not
// exist; elsewhere (a batch id) it is situate.ErrNotFound.
func modelOp(op string) bool { return op == "messages" || op == "count_tokens" || op == "batch result" }

// redact removes the client's key and anything like a credential from a
// server's text.
func (c *Client) redact(s string) string { return apiclient.Redact(s, c.apiKey) }

// responseError reads a non-2xx response into an Error.
func (c *Client) responseError(op string, resp *http.Response) *Error {
	f := apiclient.ResponseFault(resp)
	reqID := resp.Header.Get("request-id")
	var env errorEnvelope
	var e *Error
	if err := json.Unmarshal(f.Body, &env); err == nil && env.Type == "error" && env.Error.Type != "" {
		if reqID == "" {
			reqID = env.RequestID
		}
		e = c.fromWire(op, resp.StatusCode, env.Error, reqID)
	} else {
		e = c.fromWire(op, resp.StatusCode, wireError{Type: TypeHTTP, Message: apiclient.Clip(strings.TrimSpace(string(f.Body)))}, reqID)
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
	e.SetRetryAfter(f.RetryAfter)
	return e
}

// transportError classifies an error from sending a request or reading its
// body (apiclient.TransportFault): final if the caller's context (parent)
// ended, retryable if only the client's own Timeout fired.
func (c *Client) transportError(parent context.Context, op string, err error) *Error {
	return apiclient.Caller{Provider: ProviderName, Model: c.model}.Transport(parent, op, batch.Ref{}, err, c.timeout)
}

// streamError is a broken or malformed stream: retryable.
func (c *Client) streamError(op, requestID, format string, args ...any) *Error {
	e := &Error{Index: -1, Provider: ProviderName, Op: op, Model: c.model, Type: TypeStream, Message: c.redact(fmt.Sprintf(format, args...)),
		RequestID: requestID}
	e.SetRetryable(true)
	return e
}

// isDialError reports a failure to connect: the request was never sent.
func isDialError(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}
