package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OpenAPI is the OpenAPI 3 document of the API, served at /v1/openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

// routes lists every route. The OpenAPI document describes each; the API
// tests check that the two agree.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !s.isReady() {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting or shutting down"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(OpenAPI)))
		w.Write(OpenAPI)
	})
	mux.Handle("GET /metrics", s.authed(s.handleMetrics))
	mux.Handle("GET /v1/status", s.api(s.handleStatus))
	mux.Handle("POST /v1/search", s.api(s.handleSearch))
	mux.Handle("GET /v1/documents", s.api(s.handleList))
	mux.Handle("POST /v1/documents", s.api(s.handleCreate))
	mux.Handle("PUT /v1/documents/{id...}", s.api(s.handleUpsert))
	mux.Handle("PATCH /v1/documents/{id...}", s.api(s.handlePatch))
	mux.Handle("GET /v1/documents/{id...}", s.api(s.handleGet))
	mux.Handle("DELETE /v1/documents/{id...}", s.api(s.handleDelete))
	mux.Handle("GET /v1/jobs/{id}", s.api(s.handleJob))
	root := false
	for _, m := range s.opts.Mounts {
		h := m.Handler
		if !m.Public {
			h = s.authed(func(w http.ResponseWriter, r *http.Request, _ *Caller) *apiError {
				s.serveMount(m.Handler, w, r)
				return nil
			})
		}
		mux.Handle(m.Pattern, h)
		if m.Pattern == "/" || m.Pattern == "GET /" || m.Pattern == "/{path...}" || m.Pattern == "GET /{path...}" {
			root = true
		}
	}
	if !root {
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, r, notFound("route "+r.Method+" "+truncate(r.URL.Path, 200)))
		})
	}
	return s.observe(s.sameOrigin(s.methodNotAllowed(mux)))
}

// methodNotAllowed answers a request whose path a route serves under
// other methods with 405, an Allow header and the JSON error envelope (the
// catch-all routes would otherwise answer 404, or the mux plain text).
func (s *Server) methodNotAllowed(mux *http.ServeMux) http.Handler {
	catchAll := func(p string) bool {
		return p == "" || p == "/" || p == "GET /" || p == "/{path...}" || p == "GET /{path...}"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, p := mux.Handler(r); catchAll(p) {
			var allow []string
			for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
				if m == r.Method {
					continue
				}
				probe := r.Clone(r.Context())
				probe.Method = m
				if _, p := mux.Handler(probe); !catchAll(p) {
					allow = append(allow, m)
				}
			}
			if len(allow) > 0 {
				w.Header().Set("Allow", strings.Join(allow, ", "))
				s.writeError(w, r, &apiError{status: http.StatusMethodNotAllowed, code: "method_not_allowed",
					msg: fmt.Sprintf("%s %s: method not allowed (allowed: %s)", r.Method, truncate(r.URL.Path, 200), strings.Join(allow, ", "))})
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// sameOrigin refuses what a web page of another site could make a browser
// send: cross-origin state-changing requests (a form posting an upload to
// 127.0.0.1 needs no key on a server without keys), and, on a server
// without keys, any Host but a loopback one (DNS rebinding: evil.example
// resolving to 127.0.0.1 would otherwise be same-origin to the browser).
// Clients that are not browsers send neither Origin nor Sec-Fetch-Site and
// are not affected.
func (s *Server) sameOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &apiError{status: http.StatusForbidden, code: "forbidden", msg: "cross-origin request refused"})
	}))
	guarded := cop.Handler(next)
	if s.opts.Keys != nil {
		return guarded
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			s.writeError(w, r, &apiError{status: http.StatusForbidden, code: "forbidden",
				msg: "Host: a server without keys answers only loopback names (localhost, 127.0.0.1, [::1])"})
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names this machine by a
// loopback name or address.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// observe gives every request an id, logs it (route, status, duration,
// tenant and key id: never a key, a query or document text) and records
// its latency by route and status.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rid := r.Header.Get("X-Request-Id")
		if !validRequestID(rid) {
			var b [8]byte
			rand.Read(b[:])
			rid = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", rid)
		rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		info := &requestInfo{}
		r = r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))
		next.ServeHTTP(rw, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		d := time.Since(start)
		tenant := info.tenant
		if tenant == ServerTenant {
			tenant = "" // the operator's own requests belong to no tenant
		}
		s.metrics.requests.WithLabelValues(route, strconv.Itoa(rw.status), tenant).Observe(d.Seconds())
		s.log.Info("request", "request_id", rid, "method", r.Method, "route", route, "status", rw.status,
			"duration_ms", float64(d.Microseconds())/1000, "bytes", rw.bytes, "tenant", info.tenant, "key", info.key)
	})
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

type requestInfoKey struct{}

// requestInfo carries what the log line needs from inner handlers.
type requestInfo struct{ tenant, key string }

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// Flush lets streaming handlers (MCP's event streams) flush through.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type handler func(w http.ResponseWriter, r *http.Request, c *Caller) *apiError

// authed authenticates and rate-limits a request, then calls h with its
// caller in the context.
func (s *Server) authed(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, e := s.authenticate(r)
		if e != nil {
			s.writeError(w, r, e)
			return
		}
		if info, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
			info.tenant, info.key = c.Tenant, c.KeyID
		}
		limitKey := c.KeyID
		if limitKey == "" {
			limitKey = c.Tenant
		}
		if ok, wait := s.rates.allow(limitKey); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
			s.writeError(w, r, &apiError{status: http.StatusTooManyRequests, code: "rate_limited",
				msg: "rate limit exceeded for this key; retry after the Retry-After header's seconds"})
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), callerKey{}, c))
		s.freshen(r.Context(), c)
		if e := h(w, r, c); e != nil {
			s.writeError(w, r, e)
		}
	})
}

// freshen brings a tenant over a shared store up to what every process
// committed before this request (situate.Engine.SyncIfChanged: one read of
// the store's change stamp when nothing changed), so that a change another
// server accepted, an access list narrowed above all, holds for this
// request; the periodic sync is then only a fallback. A failure is logged
// and the request answered from what the tenant holds.
func (s *Server) freshen(ctx context.Context, c *Caller) {
	if c.tenant == nil || c.tenant.Engine == nil {
		return
	}
	if _, err := c.tenant.Engine.SyncIfChanged(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("sync with the shared store before a request", "tenant", c.tenant.name, "err", err)
	}
}

// api is authed with the request timeout.
func (s *Server) api(h handler) http.Handler {
	return s.authed(func(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
		ctx, cancel := context.WithTimeout(r.Context(), s.limits.RequestTimeout)
		defer cancel()
		return h(w, r.WithContext(ctx), c)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The body is encoded into a pooled buffer (json.Marshal would copy it
	// into a new slice each time: a tenth of what a search allocated), then
	// written as it is with its length, so the server does not send it in
	// chunks. Encode ends it with a newline.
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledJSON {
			jsonBuffers.Put(buf)
		}
	}()
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"code":"internal","message":"encode response"}}`))
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledJSON is the largest buffer kept for the next response: a rare
// large one (a document with its chunks) is not held for small ones.
const maxPooledJSON = 1 << 20

// serveMount serves a mounted handler (MCP at /mcp) within the API's rules:
// its request body is bounded by Limits.MaxBodyBytes (413 past it), and a
// refusal it writes as plain text is answered in the JSON error envelope
// with the request id, as every route's.
func (s *Server) serveMount(h http.Handler, w http.ResponseWriter, r *http.Request) {
	body := &limitedBody{ReadCloser: r.Body, left: s.limits.MaxBodyBytes}
	r.Body = body
	ew := &envelopeWriter{ResponseWriter: w}
	h.ServeHTTP(ew, r)
	if ew.refused == 0 {
		return
	}
	e := &apiError{status: ew.refused, code: "bad_request", msg: strings.TrimSpace(truncate(ew.msg.String(), 300))}
	switch {
	case body.exceeded:
		e = &apiError{status: http.StatusRequestEntityTooLarge, code: "too_large", field: "body",
			msg: fmt.Sprintf("body: larger than %d bytes", s.limits.MaxBodyBytes)}
	case ew.refused == http.StatusMethodNotAllowed:
		e.code = "method_not_allowed"
	case ew.refused == http.StatusUnsupportedMediaType:
		e.code = "unsupported_media_type"
	case ew.refused == http.StatusNotAcceptable:
		e.code = "not_acceptable"
	case ew.refused >= 500:
		e.code = "internal"
	}
	if e.msg == "" {
		e.msg = http.StatusText(ew.refused)
	}
	s.writeError(w, r, e)
}

// limitedBody fails a read past its limit and remembers it.
type limitedBody struct {
	io.ReadCloser
	left     int64
	exceeded bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		b.exceeded = true
		return 0, errors.New("request body too large")
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		b.exceeded = true
		return 0, errors.New("request body too large")
	}
	return n, err
}

// envelopeWriter passes a handler's answer through, except a refusal (a
// status of 400 or more) in anything but JSON: that it holds back, for the
// caller to answer in the JSON envelope.
type envelopeWriter struct {
	http.ResponseWriter
	wrote   bool
	refused int
	msg     strings.Builder
}

func (w *envelopeWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if code >= 400 && !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.refused = code
		w.Header().Del("Content-Type")
		w.Header().Del("Content-Length")
		w.Header().Del("X-Content-Type-Options")
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *envelopeWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.refused != 0 {
		if w.msg.Len() < 1024 {
			w.msg.Write(b)
		}
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets streaming answers through.
func (w *envelopeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.refused == 0 {
		f.Flush()
	}
}

func (w *envelopeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
