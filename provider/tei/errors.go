package tei

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/internal/batch"
)

// Error types the client reports besides the HTTP status.
const (
	TypeConnection  = "connection_error" // dial failure, reset, EOF before the response
	TypeTimeout     = "timeout"          // Options.Timeout elapsed
	TypeHTTP        = "http_error"       // non-2xx answer
	TypeCanceled    = "canceled"         // the caller's context ended
	TypeBadResponse = "bad_response"     // 2xx answer that is malformed or fails the checks
	TypeTooLong     = "input_too_long"   // a text exceeds the model's input limit
	TypeInvalid     = "invalid_input"    // an empty text, an index out of range...
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
	var b strings.Builder
	b.WriteString(ProviderName)
	if e.Model != "" {
		b.WriteString(" " + e.Model)
	}
	b.WriteString(": " + e.Op)
	if e.Batch > 0 {
		fmt.Fprintf(&b, " batch %d (texts %d-%d)", e.Batch, e.First, e.Last)
	}
	b.WriteString(": ")
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "status %d ", e.StatusCode)
	}
	b.WriteString(e.Type)
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	} else if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if e.retryAfter > 0 {
		b.WriteString(" (retry after " + e.retryAfter.String() + ")")
	}
	return b.String()
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

func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// parseRetryAfter reads retry-after-ms or retry-after (seconds or an HTTP
// date).
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

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
func (c *Client) responseError(op string, b batch.Ref, resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var env struct {
		Error     string `json:"error"`
		ErrorType string `json:"error_type"`
	}
	e := c.newError(op, b, TypeHTTP, "")
	if err := json.Unmarshal(body, &env); err == nil && env.Error != "" {
		e.Message = env.Error
		if env.ErrorType != "" {
			e.Type = strings.ToLower(env.ErrorType)
		}
	} else {
		e.Message = strings.TrimSpace(string(body))
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
	}
	if len(e.Message) > 300 {
		e.Message = e.Message[:300] + "..."
	}
	e.StatusCode = resp.StatusCode
	e.retryable = retryableStatus(resp.StatusCode)
	e.retryAfter = parseRetryAfter(resp.Header, time.Now())
	switch {
	case batchLimit(e) > 0:
	case resp.StatusCode == http.StatusRequestEntityTooLarge && e.Type == TypeHTTP:
		// Not TEI's JSON: the body exceeded --payload-limit; run halves the batch.
	case resp.StatusCode == http.StatusRequestEntityTooLarge && strings.Contains(e.Message, "tokens"):
		e.Type, e.Err = TypeTooLong, situate.ErrPromptTooLarge
	case resp.StatusCode == http.StatusRequestEntityTooLarge || resp.StatusCode == http.StatusUnprocessableEntity ||
		resp.StatusCode == http.StatusBadRequest:
		e.Err = situate.ErrInvalid
	}
	return e
}

// transportError classifies an error from sending a request or reading its
// answer. If the caller's context ended the error is final; if only the
// client's Timeout fired, the call may be retried.
func (c *Client) transportError(parent context.Context, op string, b batch.Ref, err error) *Error {
	e := c.newError(op, b, "", "")
	e.Err = err
	switch {
	case parent.Err() != nil:
		e.Type, e.Err = TypeCanceled, parent.Err()
	case errors.Is(err, context.DeadlineExceeded) || isNetTimeout(err):
		e.Type, e.retryable = TypeTimeout, true
		e.Message = fmt.Sprintf("no answer within %s", c.timeout)
	default:
		e.Type, e.retryable = TypeConnection, true
	}
	return e
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
