package voyage

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

// Error is a failed Voyage AI call or a rejected input (Op "embed",
// "contextualized_embed" or "rerank"). It is the adapters' shared error
// type: Retryable (408, 409, 429, 5xx, connection failures, timeouts,
// truncated answers), RetryAfter, RateLimited; 401/403 match
// situate.ErrUnauthorized and 404 situate.ErrModelNotFound.
type Error = apiclient.Error

// batchTooLarge reports a 400 that says the request carried too many
// tokens or texts: the caller splits the batch.
func batchTooLarge(e *Error) bool {
	if e.StatusCode != http.StatusBadRequest {
		return false
	}
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "per submitted batch") || strings.Contains(m, "per batch") ||
		strings.Contains(m, "list") && strings.Contains(m, "length") && strings.Contains(m, "1000") ||
		strings.Contains(m, "total number of tokens")
}

// inputTooLong reports a 400 that says one text exceeds the context length.
func inputTooLong(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "context length") || strings.Contains(m, "too long") ||
		strings.Contains(m, "exceeds the maximum") || strings.Contains(m, "max allowed tokens per text")
}

// responseError reads a non-2xx answer. Voyage's error body is
// {"detail": "..."}.
func responseError(c *Client, op string, b batch.Ref, f *apiclient.Fault) *Error {
	var env struct {
		Detail json.RawMessage `json:"detail"`
	}
	msg := ""
	if err := json.Unmarshal(f.Body, &env); err == nil && len(env.Detail) > 0 {
		if json.Unmarshal(env.Detail, &msg) != nil {
			msg = string(env.Detail)
		}
	}
	e := c.Errs().Answer(op, b, f, msg)
	switch {
	case e.Err != nil: // 401, 403, 404
	case f.StatusCode == http.StatusBadRequest && inputTooLong(e.Message) && !batchTooLarge(e):
		e.Type, e.Err = TypeTooLong, driver.ErrPromptTooLarge
	case f.StatusCode == http.StatusRequestEntityTooLarge:
		e.Err = driver.ErrPromptTooLarge
	case f.StatusCode == http.StatusBadRequest || f.StatusCode == http.StatusUnprocessableEntity:
		e.Err = driver.ErrInvalid
	}
	return e
}
