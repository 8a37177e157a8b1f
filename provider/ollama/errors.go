package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
	"github.com/situate/situate/internal/batch"
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

// Error is a failed Ollama call, the adapters' shared error type (Op
// "chat", "embed" or "show"; Type a Type* constant). It is retryable for
// 408, 429, 5xx (503 "server busy" when Ollama's queue is full),
// connection failures, timeouts and broken streams (an {"error"} line
// inside a 200 stream: the runner failed mid-answer); RetryAfter is the
// retry-after header's wait; RateLimited reports 429 and 503. A 401 or
// 403 (a reverse proxy's authentication) matches situate.ErrUnauthorized
// and an unknown model situate.ErrModelNotFound (errors.Is); neither is
// retryable. Message is the server's text with the proxy's credentials
// and anything like a credential removed.
type Error = apiclient.Error

func (c *Client) serverError(op string, status int, msg string) *Error {
	e := &Error{Index: -1, Provider: ProviderName, Op: op, Model: c.model, StatusCode: status, Type: TypeServer, Message: c.redact(msg)}
	e.SetRateLimited(status == http.StatusServiceUnavailable) // Ollama's full request queue
	// Ollama does not answer 409; 408, 429 and 5xx are
	// apiclient.RetryableStatus's.
	e.SetRetryable(status != http.StatusConflict && apiclient.RetryableStatus(status))
	if status == 0 {
		// An {"error"} line inside a 200 stream: the runner failed mid-answer.
		e.SetRetryable(true)
	}
	m := strings.ToLower(msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Err = driver.ErrUnauthorized
		e.SetRetryable(false)
	case status == http.StatusNotFound || strings.Contains(m, "not found"):
		e.Err = driver.ErrModelNotFound
		e.SetRetryable(false)
	case strings.Contains(m, "context length") || strings.Contains(m, "exceeds maximum context") || strings.Contains(m, "input length exceeds"):
		e.Err = driver.ErrPromptTooLarge
		e.SetRetryable(false)
	case status == http.StatusBadRequest:
		e.Err = driver.ErrInvalid
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
	if e.Retryable() {
		e.SetRetryAfter(f.RetryAfter)
	}
	return e
}

// transportError classifies an error from sending a request or reading its
// body (apiclient.TransportFault): final if the caller's context (parent)
// ended, retryable if only the client's own Timeout fired.
func (c *Client) transportError(parent context.Context, op string, err error) *Error {
	return apiclient.Caller{Provider: ProviderName, Model: c.model}.Transport(parent, op, batch.Ref{}, err, c.timeout)
}

func (c *Client) streamError(op, format string, args ...any) *Error {
	e := &Error{Index: -1, Provider: ProviderName, Op: op, Model: c.model, Type: TypeStream, Message: c.redact(fmt.Sprintf(format, args...))}
	e.SetRetryable(true)
	return e
}

func (c *Client) badResponse(op string, ref batch.Ref, format string, args ...any) *Error {
	return &Error{Index: -1, Provider: ProviderName, Op: op, Model: c.model, Type: TypeResponse, Batch: ref.N, First: ref.First, Last: ref.Last,
		Message: fmt.Sprintf(format, args...)}
}
