package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Fault types; the adapters export them under the same names.
const (
	TypeConnection  = "connection_error" // dial failure, reset, EOF before the response
	TypeTimeout     = "timeout"          // the request's timeout elapsed
	TypeHTTP        = "http_error"       // non-2xx answer
	TypeCanceled    = "canceled"         // the caller's context ended
	TypeBadResponse = "bad_response"     // 2xx answer that is malformed or fails the checks
	TypeTooLong     = "input_too_long"   // a text exceeds the model's input limit
	TypeInvalid     = "invalid_input"    // an empty text, an index out of range...
)

// MaxErrorBody is how much of a non-2xx answer's body Do keeps.
const MaxErrorBody = 64 << 10

// Request is one call.
type Request struct {
	Method string
	URL    string
	// Header is sent as is (authorization, client name...). Do adds
	// accept: application/json, and content-type: application/json when
	// In is not nil.
	Header http.Header
	// In is encoded as JSON without HTML escaping; nil sends no body.
	In any
}

// Fault is a call that got no usable answer. An adapter copies it into
// its own typed error.
type Fault struct {
	// StatusCode is the HTTP status of a non-2xx answer, 0 if none.
	StatusCode int
	// Type is TypeConnection, TypeTimeout, TypeCanceled, TypeHTTP (a
	// non-2xx answer) or TypeBadResponse (a 2xx body that is not JSON).
	Type    string
	Message string
	// Err is the transport or context error, nil for an answer.
	Err error
	// Retryable: the same request may succeed later.
	Retryable bool
	// RetryAfter is the wait a non-2xx answer asked for (ParseRetryAfter).
	RetryAfter time.Duration
	// Header and Body (at most MaxErrorBody bytes) are a non-2xx answer's,
	// for the adapter to read its provider's error format from.
	Header http.Header
	Body   []byte
}

func (f *Fault) Error() string {
	switch {
	case f.StatusCode != 0:
		return Redact(fmt.Sprintf("status %d %s: %s", f.StatusCode, f.Type, strings.TrimSpace(string(f.Body))))
	case f.Message != "":
		return f.Type + ": " + f.Message
	case f.Err != nil:
		return f.Type + ": " + f.Err.Error()
	}
	return f.Type
}

func (f *Fault) Unwrap() error { return f.Err }

// Do sends r, bounded by timeout, and decodes a 2xx answer's JSON into out.
// It returns the answer's header whenever a 2xx answer was read. An error
// is a *Fault if the request was sent, else the error of encoding
// ("encode request: ...") or building it.
func Do(ctx context.Context, hc *http.Client, timeout time.Duration, r Request, out any) (http.Header, error) {
	var body io.Reader
	if r.In != nil {
		data, err := Marshal(r.In)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(data)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, r.Method, r.URL, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if r.In != nil {
		req.Header.Set("content-type", "application/json")
	}
	req.Header.Set("accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, TransportFault(ctx, err, timeout)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, ResponseFault(resp)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, TransportFault(ctx, err, timeout)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return resp.Header, &Fault{Type: TypeBadResponse, Retryable: true,
			Message: fmt.Sprintf("malformed or truncated JSON (%d bytes): %v", len(data), err)}
	}
	return resp.Header, nil
}

// ResponseFault reads a non-2xx answer (at most MaxErrorBody bytes of its
// body) into a Fault: retryable for 408, 409, 429 and 5xx, with the wait
// its headers ask for. The caller closes the body.
func ResponseFault(resp *http.Response) *Fault {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	return &Fault{StatusCode: resp.StatusCode, Type: TypeHTTP, Retryable: RetryableStatus(resp.StatusCode),
		RetryAfter: ParseRetryAfter(resp.Header, time.Now()), Header: resp.Header, Body: b}
}

// TransportFault classifies an error from sending a request or reading its
// answer. If the caller's context (parent) ended the fault is final; if
// only the request's timeout fired, or the connection failed, the call may
// be retried.
func TransportFault(parent context.Context, err error, timeout time.Duration) *Fault {
	var ne net.Error
	switch {
	case parent.Err() != nil:
		return &Fault{Type: TypeCanceled, Err: parent.Err()}
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return &Fault{Type: TypeTimeout, Err: err, Retryable: true, Message: fmt.Sprintf("no complete answer within %s", timeout)}
	}
	return &Fault{Type: TypeConnection, Err: err, Retryable: true}
}

// Marshal encodes v as JSON without HTML escaping and without the
// trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// RetryableStatus reports the statuses worth retrying: 408, 409, 429 and
// 5xx.
func RetryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// ParseRetryAfter reads retry-after-ms or retry-after (seconds or an HTTP
// date, measured from now); 0 if absent, unparsable or not in the future.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
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

// Clip cuts an error message from a server to 300 bytes, marking the cut
// with "...".
func Clip(msg string) string {
	if len(msg) > 300 {
		return msg[:300] + "..."
	}
	return msg
}

// Text is the message of an adapter's typed error:
//
//	<provider> <model>: <op> <item> batch <n> (texts <first>-<last>): status <code> <type> <status> (<error code>): <message> (request_id <id>; retry after <d>)
//
// leaving out what is empty or zero (and an error code that repeats the
// type or the status); Err's text stands in for an empty Message.
type Text struct {
	Provider, Model, Op, Item string
	Batch, First, Last        int
	StatusCode                int
	Type, Status, Code        string
	Message                   string
	Err                       error
	RequestID                 string
	RetryAfter                time.Duration
}

func (t Text) String() string {
	var b strings.Builder
	b.WriteString(t.Provider)
	if t.Model != "" {
		b.WriteString(" " + t.Model)
	}
	b.WriteString(": " + t.Op)
	if t.Item != "" {
		b.WriteString(" " + t.Item)
	}
	if t.Batch > 0 {
		fmt.Fprintf(&b, " batch %d (texts %d-%d)", t.Batch, t.First, t.Last)
	}
	b.WriteString(": ")
	if t.StatusCode != 0 {
		fmt.Fprintf(&b, "status %d ", t.StatusCode)
	}
	b.WriteString(t.Type)
	if t.Status != "" {
		b.WriteString(" " + t.Status)
	}
	if t.Code != "" && t.Code != t.Type && t.Code != strconv.Itoa(t.StatusCode) {
		b.WriteString(" (" + t.Code + ")")
	}
	if t.Message != "" {
		b.WriteString(": " + t.Message)
	} else if t.Err != nil {
		b.WriteString(": " + t.Err.Error())
	}
	var extra []string
	if t.RequestID != "" {
		extra = append(extra, "request_id "+t.RequestID)
	}
	if t.RetryAfter > 0 {
		extra = append(extra, "retry after "+t.RetryAfter.String())
	}
	if len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, "; ") + ")")
	}
	return b.String()
}

// EstimateTokens estimates a text's tokens without a tokenizer: a token
// per 4 ASCII bytes, per Han/kana/Hangul character, and per 2 other
// characters (Cyrillic, accented Latin...). It errs on the high side for
// the languages situate serves.
func EstimateTokens(s string) int {
	ascii, cjk, other := 0, 0, 0
	for _, r := range s {
		switch {
		case r < 0x80:
			ascii++
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			cjk++
		default:
			other++
		}
	}
	return (ascii+3)/4 + cjk + (other+1)/2
}
