package tei

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
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

// Error is a failed Text Embeddings Inference call or a rejected input
// (Op "info", "embed" or "rerank"; Type is TEI's error_type in lower case
// — "validation", "overloaded", "backend", "tokenizer", "unhealthy" — or
// one of the Type* constants). It is the adapters' shared error type:
// Retryable (408, 409, 429 overloaded, 5xx including 503 unhealthy,
// connection failures, timeouts, truncated answers; not 424, backend:
// inference failed), RetryAfter, RateLimited (429 "Model is overloaded");
// 401/403 (a proxy in front of TEI, or its --api-key) match
// situate.ErrUnauthorized and 404 situate.ErrModelNotFound.
type Error = apiclient.Error

// batchSizeRe matches TEI's 413 for a batch above --max-client-batch-size:
// "batch size 40 > maximum allowed batch size 32".
var batchSizeRe = regexp.MustCompile(`batch size (\d+) > maximum allowed batch size (\d+)`)

// batchLimit returns the server's --max-client-batch-size named by a 413,
// or 0 if the error is not that one.
func batchLimit(e *Error) int {
	if e.StatusCode != http.StatusRequestEntityTooLarge {
		return 0
	}
	m := batchSizeRe.FindStringSubmatch(e.Message)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

// responseError reads a non-2xx answer. TEI's error body is
// {"error": "...", "error_type": "Validation"} (error_type Unhealthy 503,
// Backend 424, Overloaded 429, Validation 413, Tokenizer 422).
func responseError(c *apiclient.Hosted, op string, b batch.Ref, f *apiclient.Fault) *Error {
	var env struct {
		Error     string `json:"error"`
		ErrorType string `json:"error_type"`
	}
	if json.Unmarshal(f.Body, &env) != nil || env.Error == "" {
		env.Error, env.ErrorType = "", ""
		if len(bytes.TrimSpace(f.Body)) == 0 { // a bare status: TEI's --api-key check
			env.Error = http.StatusText(f.StatusCode)
		}
	}
	e := c.Errs().Answer(op, b, f, env.Error)
	if env.ErrorType != "" {
		e.Type = strings.ToLower(env.ErrorType)
	}
	switch {
	case e.Err != nil: // 401, 403, 404
	case batchLimit(e) > 0:
	case f.StatusCode == http.StatusRequestEntityTooLarge && e.Type == TypeHTTP:
		// Not TEI's JSON: the body exceeded --payload-limit; run halves the batch.
	case f.StatusCode == http.StatusRequestEntityTooLarge && strings.Contains(e.Message, "tokens"):
		e.Type, e.Err = TypeTooLong, driver.ErrPromptTooLarge
	case f.StatusCode == http.StatusRequestEntityTooLarge || f.StatusCode == http.StatusUnprocessableEntity ||
		f.StatusCode == http.StatusBadRequest:
		e.Err = driver.ErrInvalid
	}
	return e
}
