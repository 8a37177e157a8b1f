package gemini

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

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

// Error is a failed Gemini API call or a rejected input (Op "embed";
// Status is Google's error.status: "RESOURCE_EXHAUSTED",
// "INVALID_ARGUMENT", ...). It is the adapters' shared error type:
// Retryable (429 RESOURCE_EXHAUSTED, 5xx INTERNAL, UNAVAILABLE,
// DEADLINE_EXCEEDED, connection failures, timeouts, truncated answers),
// RetryAfter (a google.rpc.RetryInfo retryDelay in the error details, else
// a retry-after header), RateLimited; 401/403 and a 400 API_KEY_INVALID
// match situate.ErrUnauthorized, 404 situate.ErrModelNotFound.
type Error = apiclient.Error

// batchTooLarge reports a 400 that says the batch holds too many requests.
func batchTooLarge(e *Error) bool {
	return e.StatusCode == http.StatusBadRequest && strings.Contains(e.Message, "at most")
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

// detail reads google.rpc details: a RetryInfo retryDelay ("37s") and
// whether an ErrorInfo says the key is invalid (Google answers a bad key
// with 400 INVALID_ARGUMENT, reason API_KEY_INVALID).
func detail(details []json.RawMessage) (retry time.Duration, badKey bool) {
	for _, d := range details {
		var ri struct {
			Type       string `json:"@type"`
			RetryDelay string `json:"retryDelay"`
			Reason     string `json:"reason"`
		}
		if json.Unmarshal(d, &ri) != nil {
			continue
		}
		switch {
		case strings.HasSuffix(ri.Type, "google.rpc.RetryInfo"):
			if v, err := time.ParseDuration(ri.RetryDelay); err == nil && v > 0 {
				retry = v
			}
		case strings.HasSuffix(ri.Type, "google.rpc.ErrorInfo") && (ri.Reason == "API_KEY_INVALID" || ri.Reason == "API_KEY_SERVICE_BLOCKED"):
			badKey = true
		}
	}
	return retry, badKey
}

// responseError reads a non-2xx answer: {"error": {"code", "message",
// "status", "details"}}.
func responseError(c *Client, op string, b batch.Ref, f *apiclient.Fault) *Error {
	var env googleError
	if json.Unmarshal(f.Body, &env) != nil {
		env.Error.Message = ""
	}
	e := c.Errs().Answer(op, b, f, env.Error.Message)
	badKey := false
	if env.Error.Message != "" {
		e.Status = env.Error.Status
		var d time.Duration
		if d, badKey = detail(env.Error.Details); d > 0 {
			e.SetRetry(e.Retryable(), d)
		}
	}
	switch {
	case e.Err != nil: // 401, 403, 404
	case badKey:
		e.Err = driver.ErrUnauthorized
		e.SetRetry(false, 0)
	case f.StatusCode == http.StatusBadRequest && !batchTooLarge(e):
		e.Err = driver.ErrInvalid
	}
	return e
}
