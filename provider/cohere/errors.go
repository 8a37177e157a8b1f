package cohere

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/situate/situate/driver"
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

// Error is a failed Cohere call or a rejected input (Op "embed" or
// "rerank"; RequestID is Cohere's error id or x-trace-id). It is the
// adapters' shared error type: Retryable (408, 409, 429, 5xx including
// Cohere's 503 and 504, connection failures, timeouts, truncated answers;
// not 402 billing or 4xx input errors), RetryAfter, RateLimited; 401/403
// match situate.ErrUnauthorized and 404 situate.ErrModelNotFound.
type Error = apiclient.Error

// batchTooLarge reports a 400 that says the request carried too many
// texts or documents: the caller splits the batch.
func batchTooLarge(e *Error) bool {
	m := strings.ToLower(e.Message)
	return e.StatusCode == http.StatusBadRequest && (strings.Contains(m, "must be at most") || strings.Contains(m, "too many"))
}

// inputTooLong reports a 400 that says one text exceeds the context length.
func inputTooLong(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "too long") || strings.Contains(m, "context length") ||
		strings.Contains(m, "exceeds the maximum") || strings.Contains(m, "max tokens")
}

// responseError reads a non-2xx answer. Cohere's error body is
// {"id": "...", "message": "..."}.
func responseError(c *Client, op string, b batch.Ref, f *apiclient.Fault) *Error {
	var env struct {
		ID      string `json:"id"`
		Message string `json:"message"`
	}
	if json.Unmarshal(f.Body, &env) != nil {
		env.Message = ""
	}
	e := c.Errs().Answer(op, b, f, env.Message)
	e.RequestID = env.ID
	if e.RequestID == "" {
		e.RequestID = f.Header.Get("x-trace-id")
	}
	switch {
	case e.Err != nil: // 401, 403, 404
	case f.StatusCode == http.StatusBadRequest && inputTooLong(e.Message) && !batchTooLarge(e):
		e.Type, e.Err = TypeTooLong, driver.ErrPromptTooLarge
	case f.StatusCode == http.StatusBadRequest || f.StatusCode == http.StatusUnprocessableEntity:
		e.Err = driver.ErrInvalid
	}
	return e
}
