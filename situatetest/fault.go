package situatetest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate"
)

// Fault is a refusal a provider suite provokes through the backend's
// harness.
type Fault int

const (
	// FaultUnauthorized: the server refuses the key (HTTP 401).
	FaultUnauthorized Fault = iota + 1
	// FaultForbidden: the key may not use the model (HTTP 403).
	FaultForbidden
	// FaultModelNotFound: the server does not serve the model (HTTP 404).
	FaultModelNotFound
	// FaultRateLimited: HTTP 429 with retry-after: 1.
	FaultRateLimited
	// FaultServerError: HTTP 500.
	FaultServerError
	// FaultEchoKey: HTTP 401 whose message repeats the credential the
	// request carried, as some gateways and proxies do.
	FaultEchoKey
	// FaultHang: the server never answers.
	FaultHang
	// FaultEchoServerError: HTTP 500 whose message repeats the
	// credential: retryable, so every attempt's error is recorded.
	FaultEchoServerError
)

// Faults lists every Fault.
var Faults = []Fault{FaultUnauthorized, FaultForbidden, FaultModelNotFound, FaultRateLimited, FaultServerError, FaultEchoKey, FaultHang, FaultEchoServerError}

func (f Fault) String() string {
	switch f {
	case FaultUnauthorized:
		return "unauthorized"
	case FaultForbidden:
		return "forbidden"
	case FaultModelNotFound:
		return "model-not-found"
	case FaultRateLimited:
		return "rate-limited"
	case FaultServerError:
		return "server-error"
	case FaultEchoKey:
		return "echo-key"
	case FaultHang:
		return "hang"
	case FaultEchoServerError:
		return "echo-server-error"
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// Status is the HTTP status FaultServer answers f with (0 for FaultHang).
func (f Fault) Status() int {
	switch f {
	case FaultUnauthorized, FaultEchoKey:
		return http.StatusUnauthorized
	case FaultForbidden:
		return http.StatusForbidden
	case FaultModelNotFound:
		return http.StatusNotFound
	case FaultRateLimited:
		return http.StatusTooManyRequests
	case FaultServerError, FaultEchoServerError:
		return http.StatusInternalServerError
	}
	return 0
}

// Key is the API key the provider suites configure clients with. It has no
// credential-like shape (no sk- prefix, no long random run), so only a
// redaction that knows the request's own key removes it.
const Key = "conformance-key-of-the-situatetest-suite"

// ErrorBody writes a provider's error answer: the status and a message,
// in the provider's wire format (content type and JSON shape).
type ErrorBody func(w http.ResponseWriter, status int, message string)

// FaultServer starts a server, closed at the test's end, that answers
// every request with fault f through body, standing in for the provider's
// API refusing the call. For FaultEchoKey the message repeats the
// credential the request carried (authorization, x-api-key,
// x-goog-api-key or a key query parameter), as it does for
// FaultEchoServerError; FaultHang holds every request
// until the client gives up.
func FaultServer(t testing.TB, f Fault, body ErrorBody) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch f {
		case FaultHang:
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		case FaultRateLimited:
			w.Header().Set("retry-after", "1")
		}
		msg := map[Fault]string{
			FaultUnauthorized:  "invalid api key",
			FaultForbidden:     "this key may not use the model",
			FaultModelNotFound: "the model does not exist or you do not have access to it",
			FaultRateLimited:   "rate limit exceeded, slow down",
			FaultServerError:   "internal server error",
		}[f]
		if f == FaultEchoKey || f == FaultEchoServerError {
			cred := r.Header.Get("authorization")
			for _, h := range []string{"x-api-key", "x-goog-api-key"} {
				if v := r.Header.Get(h); v != "" {
					cred = v
				}
			}
			if v := r.URL.Query().Get("key"); v != "" {
				cred = v
			}
			_, bare, _ := strings.Cut(cred, " ")
			msg = fmt.Sprintf("Incorrect API key provided: %s (you sent %q, %s)", cred, cred, bare)
		}
		body(w, f.Status(), msg)
	}))
	t.Cleanup(func() { close(done); srv.CloseClientConnections(); srv.Close() })
	return srv
}

// Recorder is a situate.UsageRecorder that keeps what it is given, for
// the provider suites to inspect.
type Recorder struct {
	mu  sync.Mutex
	got []situate.Usage
}

// RecordUsage keeps u.
func (r *Recorder) RecordUsage(_ context.Context, u situate.Usage) error {
	r.mu.Lock()
	r.got = append(r.got, u)
	r.mu.Unlock()
	return nil
}

// Usage returns what was recorded.
func (r *Recorder) Usage() []situate.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]situate.Usage(nil), r.got...)
}

// retryable is the interface package llm retries by (llm.Retryable); a
// provider's error implements it, wrapped or not.
type retryable interface {
	Retryable() bool
	RetryAfter() time.Duration
}

// checkFault asserts what an error provoked by f must be: typed for
// 401/403/404, retryable for 429/500, final for a hang ended by the
// caller's deadline, and free of the key. what names the call.
func checkFault(t *testing.T, f Fault, what string, err error, recorded ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: %s: no error", f, what)
	}
	msg := err.Error()
	for _, s := range append([]string{msg}, recorded...) {
		if strings.Contains(s, Key) {
			t.Errorf("%s: %s: the key appears in %q", f, what, s)
		}
	}
	var r retryable
	isRetryable := errors.As(err, &r) && r.Retryable()
	switch f {
	case FaultUnauthorized, FaultForbidden, FaultEchoKey:
		if !errors.Is(err, situate.ErrUnauthorized) {
			t.Errorf("%s: %s: %v does not match situate.ErrUnauthorized", f, what, err)
		}
	case FaultModelNotFound:
		if !errors.Is(err, situate.ErrModelNotFound) {
			t.Errorf("%s: %s: %v does not match situate.ErrModelNotFound", f, what, err)
		}
	case FaultRateLimited, FaultServerError, FaultEchoServerError:
		if !errors.As(err, &r) {
			t.Errorf("%s: %s: %v (%T) does not implement Retryable", f, what, err, err)
		} else if !r.Retryable() {
			t.Errorf("%s: %s: %v is not retryable", f, what, err)
		}
		if f == FaultRateLimited && r != nil && r.RetryAfter() != time.Second {
			t.Errorf("%s: %s: RetryAfter %v, want the server's 1s", f, what, r.RetryAfter())
		}
	case FaultHang:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %s: %v does not match the caller's context.DeadlineExceeded", f, what, err)
		}
	}
	if f != FaultRateLimited && f != FaultServerError && f != FaultEchoServerError && isRetryable {
		t.Errorf("%s: %s: %v says it is retryable; repeating it cannot succeed", f, what, err)
	}
	if errors.Is(err, situate.ErrUnauthorized) && errors.Is(err, situate.ErrModelNotFound) {
		t.Errorf("%s: %s: %v matches both ErrUnauthorized and ErrModelNotFound", f, what, err)
	}
}

// hangTimeout bounds a call to a hanging server.
const hangTimeout = 300 * time.Millisecond

// faultContext is the context a fault call runs under: a FaultHang call
// has a short deadline, the others a generous one.
func faultContext(t *testing.T, f Fault) (context.Context, context.CancelFunc) {
	if f == FaultHang {
		return context.WithTimeout(t.Context(), hangTimeout)
	}
	return context.WithTimeout(t.Context(), 30*time.Second)
}

// timed runs call and fails the test if it does not return within limit.
func timed(t *testing.T, what string, limit time.Duration, call func()) {
	t.Helper()
	start := time.Now()
	call()
	if d := time.Since(start); d > limit {
		t.Errorf("%s took %v, more than %v", what, d, limit)
	}
}
