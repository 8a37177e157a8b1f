package tei

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
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

// Error is a failed Text Embeddings Inference call or a rejected input. It implements
// interface{ Retryable() bool; RetryAfter() time.Duration; RateLimited() bool }
// so callers (package llm, the engine) can retry without knowing this
// package.
type Error struct {
	// Op is "info", "embed" or "rerank".
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
	// Type is TEI's error_type in lower case ("validation", "overloaded",
	// "backend", "tokenizer", "unhealthy") or one of the Type* constants.
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
		StatusCode: e.StatusCode, Type: e.Type, Message: e.Message, Err: e.Err, RetryAfter: e.retryAfter}.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed later: 408, 409,
// 429 (overloaded), 5xx (503 unhealthy), connection failures, timeouts and
// truncated answers. 424 (backend: inference failed) is not.
func (e *Error) Retryable() bool { return e.retryable }

// RetryAfter is the wait the server asked for (retry-after header), 0 if
// it gave none.
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

// RateLimited reports a 429 ("Model is overloaded"): the caller should
// also lower its concurrency.
func (e *Error) RateLimited() bool { return e.retryable && e.StatusCode == http.StatusTooManyRequests }

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
func (c *Client) responseError(op string, b batch.Ref, f *apiclient.Fault) *Error {
	var env struct {
		Error     string `json:"error"`
		ErrorType string `json:"error_type"`
	}
	e := c.fault(op, b, f)
	if err := json.Unmarshal(f.Body, &env); err == nil && env.Error != "" {
		e.Message = env.Error
		if env.ErrorType != "" {
			e.Type = strings.ToLower(env.ErrorType)
		}
	} else {
		e.Message = strings.TrimSpace(string(f.Body))
		if e.Message == "" {
			e.Message = http.StatusText(f.StatusCode)
		}
	}
	e.Message = apiclient.Clip(e.Message)
	switch {
	case batchLimit(e) > 0:
	case f.StatusCode == http.StatusRequestEntityTooLarge && e.Type == TypeHTTP:
		// Not TEI's JSON: the body exceeded --payload-limit; run halves the batch.
	case f.StatusCode == http.StatusRequestEntityTooLarge && strings.Contains(e.Message, "tokens"):
		e.Type, e.Err = TypeTooLong, situate.ErrPromptTooLarge
	case f.StatusCode == http.StatusRequestEntityTooLarge || f.StatusCode == http.StatusUnprocessableEntity ||
		f.StatusCode == http.StatusBadRequest:
		e.Err = situate.ErrInvalid
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
		return fmt.Errorf("tei: %s: %w", op, err)
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
