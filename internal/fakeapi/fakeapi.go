package fakeapi

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"
)

// DefaultMaxBody is how much of a request's body a Server reads when
// Hooks.MaxBody is 0.
const DefaultMaxBody = 64 << 20

// Request is one request a fake received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Handler answers one endpoint: body is the request's body (at most
// Hooks.MaxBody+1 bytes) and f the fault taken for the request, nil if
// none.
type Handler[F any] func(w http.ResponseWriter, r *http.Request, body []byte, f *F)

// Hooks are what a fake tells its Server; every one may be nil.
type Hooks[F any] struct {
	// MaxBody bounds the body read: a longer one is read up to MaxBody+1
	// bytes so the fake can answer it as too large. 0 is DefaultMaxBody.
	MaxBody int64
	// Match reports whether queued fault f applies to request r; nil
	// applies every fault to every request.
	Match func(f *F, r *http.Request) bool
	// Skip returns f's count of matching requests to let pass first; nil
	// fires every fault at once.
	Skip func(f *F) *int
	// Arrive sees every request once recorded, with its sequence number
	// (from 1) and its fault, before any answer: counters, request ids.
	Arrive func(w http.ResponseWriter, r *http.Request, seq int, f *F)
	// ReadError answers a request whose body could not be read; nil hands
	// the handler what was read.
	ReadError func(w http.ResponseWriter, r *http.Request, err error)
	// Authorized reports whether r carries the key; Unauthorized answers
	// one that does not (nil Authorized lets every request in).
	Authorized   func(r *http.Request) bool
	Unauthorized func(w http.ResponseWriter, r *http.Request)
	// Intercept may answer a request before its handler (a status fault, a
	// body over the limit) and reports whether it did. f may be nil.
	Intercept func(w http.ResponseWriter, r *http.Request, body []byte, f *F) bool
}

// Server is the running skeleton of one fake. A fake embeds it, which
// gives it URL, Close, Inject, Requests and Handler.
type Server[F any] struct {
	// URL is the server's base URL (no trailing slash).
	URL string

	hooks     Hooks[F]
	mux       *http.ServeMux
	srv       *httptest.Server
	done      chan struct{}
	closeOnce sync.Once

	mu     sync.Mutex
	seq    int
	faults []F
	reqs   []Request
}

// New makes a server that is not yet listening: register the endpoints
// with Handle and HandleFunc, then Start it.
func New[F any](h Hooks[F]) *Server[F] {
	if h.MaxBody == 0 {
		h.MaxBody = DefaultMaxBody
	}
	s := &Server[F]{hooks: h, mux: http.NewServeMux(), done: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(s.mux)
	return s
}

// HTTPServer is the underlying server, for a fake that sets its
// http.Server fields (ConnState) before Start.
func (s *Server[F]) HTTPServer() *httptest.Server { return s.srv }

// Start starts listening and sets URL.
func (s *Server[F]) Start() {
	s.srv.Start()
	s.URL = s.srv.URL
}

// Handle serves pattern (an http.ServeMux pattern) with h behind the
// skeleton: the request is read and recorded, a fault taken, Arrive
// told, a read error answered, the credential checked and Intercept
// asked, in that order.
func (s *Server[F]) Handle(pattern string, h Handler[F]) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, s.hooks.MaxBody+1))
		s.mu.Lock()
		s.seq++
		seq := s.seq
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		var match func(*F) bool
		if s.hooks.Match != nil {
			match = func(f *F) bool { return s.hooks.Match(f, r) }
		}
		f := Take(&s.faults, match, s.hooks.Skip)
		s.mu.Unlock()
		if s.hooks.Arrive != nil {
			s.hooks.Arrive(w, r, seq, f)
		}
		if err != nil && s.hooks.ReadError != nil {
			s.hooks.ReadError(w, r, err)
			return
		}
		if s.hooks.Authorized != nil && !s.hooks.Authorized(r) {
			s.hooks.Unauthorized(w, r)
			return
		}
		if s.hooks.Intercept != nil && s.hooks.Intercept(w, r, body, f) {
			return
		}
		h(w, r, body, f)
	})
}

// HandleFunc serves pattern with a plain handler: no recording, faults or
// credential check (health checks, catch-all 404s that must not take a
// fault).
func (s *Server[F]) HandleFunc(pattern string, h http.HandlerFunc) { s.mux.HandleFunc(pattern, h) }

// Handler is the server's HTTP handler, for a test that serves the fake
// behind its own listener without a proxy hop.
func (s *Server[F]) Handler() http.Handler { return s.mux }

// Close stops the server, ending hung requests (Hang) first.
func (s *Server[F]) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Inject queues faults; each is used by the first request it matches.
func (s *Server[F]) Inject(faults ...F) {
	s.mu.Lock()
	s.faults = append(s.faults, faults...)
	s.mu.Unlock()
}

// Requests returns the requests received so far.
func (s *Server[F]) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Hang holds a request (ctx is its context) until its client gives up or
// the server closes: a server that never answers.
func (s *Server[F]) Hang(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.done:
	}
}

// Sleep waits d of wall time; false if the request (ctx) or the server
// ended first.
func (s *Server[F]) Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

// Bearer is an Authorized hook for an API that takes its key as
// "Authorization: Bearer <key>"; an empty key lets every request in.
func Bearer(key string) func(r *http.Request) bool {
	return func(r *http.Request) bool { return key == "" || r.Header.Get("Authorization") == "Bearer "+key }
}

// Take serves a fault queue: it finds the first fault in *queue that
// matches (a nil matches accepts any). If that fault's skip count
// (*skip(f), with skip not nil) is above 0 it counts it down and returns
// nil: the request passes. Otherwise it removes the fault from the queue
// and returns it. The caller holds the lock that guards the queue.
func Take[F any](queue *[]F, matches func(*F) bool, skip func(*F) *int) *F {
	q := *queue
	for i := range q {
		if matches != nil && !matches(&q[i]) {
			continue
		}
		if skip != nil {
			if n := skip(&q[i]); *n > 0 {
				*n--
				return nil
			}
		}
		f := q[i]
		*queue = append(q[:i:i], q[i+1:]...)
		return &f
	}
	return nil
}

// RetryAfter sets the retry-after header to d in whole seconds, rounded
// up; d <= 0 sets nothing.
func RetryAfter(w http.ResponseWriter, d time.Duration) {
	if d > 0 {
		w.Header().Set("retry-after", strconv.Itoa(int((d+time.Second-1)/time.Second)))
	}
}

// Reset closes the request's connection with a TCP RST (SO_LINGER 0)
// instead of an answer.
func Reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("fakeapi: the response writer cannot hijack the connection")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	conn.Close()
}
