package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate/driver"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// spec is the OpenAPI document every request and response of the suite is
// validated against.
var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

func loadSpec(t testing.TB) routers.Router {
	t.Helper()
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(httpapi.OpenAPI)
		if err != nil {
			specErr = err
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			specErr = err
			return
		}
		specRouter, specErr = legacy.NewRouter(doc)
	})
	if specErr != nil {
		t.Fatalf("openapi.json: %v", specErr)
	}
	return specRouter
}

// env is a server over real SQLite stores, one per tenant, in a temp dir.
type env struct {
	t      testing.TB
	dir    string
	srv    *httpapi.Server
	ts     *httptest.Server
	keys   *sqlite.Store
	stores map[string]*sqlite.Store
	// engines are the tenants' engines, for reads through another front
	// end (MCP) beside the HTTP API.
	engines map[string]*situate.Engine
	mu      sync.Mutex
	// validated counts requests and responses checked against the spec.
	validatedReq, validatedResp int
}

type envOptions struct {
	auth   bool
	limits httpapi.Limits
	// logs receives the server's log, when set.
	logs io.Writer
	// contextualizer replaces the offline one.
	contextualizer situate.Contextualizer
	tenants        []string
	// parse replaces parseSource.
	parse func(context.Context, driver.Upload) (situate.Document, error)
	// mounts are served beside the API (MCP at /mcp).
	mounts []httpapi.Mount
}

func parseSource(ctx context.Context, src driver.Upload) (situate.Document, error) {
	if src.Name == "" {
		f := src.Format
		if f == "" {
			f = situate.FormatText
		}
		return situate.Document{ID: src.DocID, Title: src.DocID, Text: string(src.Data), Format: f}, nil
	}
	doc, err := ingest.Parse(ctx, src.Data, src.DocID, src.Name, ingest.Options{})
	if err != nil {
		if strings.Contains(err.Error(), "unsupported") || strings.Contains(err.Error(), "binary") {
			return doc, httpapiUnsupported(err)
		}
		return doc, err
	}
	return doc, nil
}

func httpapiUnsupported(err error) error {
	return &wrapped{httpapi.ErrUnsupportedFormat, err}
}

type wrapped struct{ sentinel, err error }

func (w *wrapped) Error() string   { return w.err.Error() }
func (w *wrapped) Unwrap() []error { return []error{w.sentinel, w.err} }

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	loadSpec(t)
	e := &env{t: t, dir: t.TempDir(), stores: map[string]*sqlite.Store{}}
	ctx := context.Background()
	var err error
	e.keys, err = sqlite.Open(ctx, filepath.Join(e.dir, "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.keys.Close() })
	open := func(ctx context.Context, name string) (*httpapi.Tenant, error) {
		dir := filepath.Join(e.dir, name)
		store, err := sqlite.Open(ctx, filepath.Join(dir+".db"))
		if err != nil {
			return nil, err
		}
		opts := situate.DefaultOptions()
		opts.Contextualizer = offline.New(offline.DefaultOptions())
		if o.contextualizer != nil {
			opts.Contextualizer = o.contextualizer
		}
		eng, err := situate.Open(ctx, "", store, opts)
		if err != nil {
			store.Close()
			return nil, err
		}
		e.mu.Lock()
		e.stores[name] = store
		if e.engines == nil {
			e.engines = map[string]*situate.Engine{}
		}
		e.engines[name] = eng
		e.mu.Unlock()
		return &httpapi.Tenant{Engine: eng, Jobs: store, Close: func() error { eng.Close(); return store.Close() }}, nil
	}
	opts := httpapi.Options{OpenTenant: open, Parse: parseSource, Limits: o.limits, Tenants: o.tenants, Mounts: o.mounts}
	if o.parse != nil {
		opts.Parse = o.parse
	}
	if o.logs != nil {
		opts.Logger = slog.New(slog.NewJSONHandler(o.logs, nil))
	}
	if o.auth {
		opts.Keys = e.keys
	}
	e.srv, err = httpapi.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.ts = httptest.NewServer(e.srv.Handler())
	t.Cleanup(func() {
		e.ts.Close()
		e.srv.Close()
	})
	return e
}

// key creates a key and returns its secret.
func (e *env) key(tenant string, principals []string, admin, write bool) string {
	e.t.Helper()
	secret, k, err := httpapi.NewKey(tenant, "", principals, admin, write)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.keys.CreateKey(context.Background(), k); err != nil {
		e.t.Fatal(err)
	}
	return secret
}

// call is one request of the suite.
type call struct {
	method, path, key string
	// body is JSON-encoded unless it is []byte or string (sent as is).
	body        any
	contentType string
	header      map[string]string
	// invalid marks a request the test knows the spec rejects; every other
	// request must validate.
	invalid bool
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the body into v, which must be fresh (a zero value).
func (r reply) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

func (r reply) errBody(t testing.TB) httpapi.ErrorBody {
	t.Helper()
	var er httpapi.ErrorResponse
	r.json(t, &er)
	return er.Error
}

// do sends c, validates the request and the response against the spec.
func (e *env) do(c call) reply {
	e.t.Helper()
	var body []byte
	switch b := c.body.(type) {
	case nil:
	case []byte:
		body = b
	case string:
		body = []byte(b)
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			e.t.Fatal(err)
		}
	}
	ct := c.contentType
	if ct == "" && body != nil {
		ct = "application/json"
	}
	req, err := http.NewRequest(c.method, e.ts.URL+c.path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	reqInput := e.validateRequest(c, req, body)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	// writeJSON sends a length, so a body is not sent in chunks.
	if c.method != "HEAD" && resp.Header.Get("Content-Type") == "application/json" && resp.ContentLength != int64(len(rb)) {
		e.t.Errorf("%s %s: Content-Length %d, body of %d bytes", c.method, c.path, resp.ContentLength, len(rb))
	}
	if reqInput != nil {
		in := &openapi3filter.ResponseValidationInput{RequestValidationInput: reqInput, Status: resp.StatusCode,
			Header: resp.Header, Body: io.NopCloser(bytes.NewReader(rb)),
			Options: &openapi3filter.Options{IncludeResponseStatus: true}}
		if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
			e.t.Errorf("%s %s: response %d does not match openapi.json: %v\n%s", c.method, c.path, resp.StatusCode, err, truncate(rb))
		}
		e.mu.Lock()
		e.validatedResp++
		e.mu.Unlock()
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: rb}
}

// validateRequest checks req against the spec (on a copy, so the body is
// sent unchanged) and returns the input response validation needs. Every
// route the server has is in the spec, so a request the spec cannot route
// is an error unless the test says the route does not exist.
func (e *env) validateRequest(c call, req *http.Request, body []byte) *openapi3filter.RequestValidationInput {
	e.t.Helper()
	vreq := req.Clone(context.Background())
	vreq.Body = io.NopCloser(bytes.NewReader(body))
	// The spec's {id} is one path segment; ids with '/' travel escaped.
	vreq.URL.Path = specPath(req.URL.Path)
	vreq.URL.RawPath = ""
	route, params, err := loadSpec(e.t).FindRoute(vreq)
	if err != nil {
		if !c.invalid {
			e.t.Errorf("%s %s: not a route of openapi.json: %v", c.method, c.path, err)
		}
		return nil
	}
	if id, ok := params["id"]; ok && strings.HasPrefix(route.Path, "/v1/documents/") {
		params["id"] = id
	}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	err = openapi3filter.ValidateRequest(context.Background(), in)
	if err != nil && !c.invalid {
		e.t.Errorf("%s %s: request does not match openapi.json: %v", c.method, c.path, err)
	}
	e.mu.Lock()
	e.validatedReq++
	e.mu.Unlock()
	// Responses are validated against the same route.
	vreq.Body = io.NopCloser(bytes.NewReader(body))
	return in
}

// specPath maps a document path with '/' in its id to one the spec's
// single-segment {id} routes.
func specPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "/v1/documents/"); ok && rest != "" {
		return "/v1/documents/" + url.PathEscape(strings.ReplaceAll(rest, "/", "_"))
	}
	return p
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

func truncate(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

// upsert puts a text document and returns its job id.
func (e *env) upsert(key, id string, d httpapi.DocumentRequest) int64 {
	e.t.Helper()
	r := e.do(call{method: "PUT", path: "/v1/documents/" + id, key: key, body: d})
	if r.status != http.StatusAccepted {
		e.t.Fatalf("upsert %s: %d %s", id, r.status, r.body)
	}
	var ur httpapi.UpsertResponse
	r.json(e.t, &ur)
	return ur.Job.ID
}

// wait polls a job until it is done or failed.
func (e *env) wait(key string, job int64) httpapi.JobView {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.do(call{method: "GET", path: "/v1/jobs/" + itoa(job), key: key})
		if r.status != http.StatusOK {
			e.t.Fatalf("job %d: %d %s", job, r.status, r.body)
		}
		var j httpapi.JobView
		r.json(e.t, &j)
		if j.State == situate.JobDone || j.State == situate.JobFailed {
			return j
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("job %d still %s after 30 s", job, j.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func itoa(n int64) string { return strings.TrimSpace(strings.Replace(jsonNum(n), "\n", "", -1)) }

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }

// multipartBody builds an upload with a document part and a file part.
func multipartBody(t testing.TB, doc any, name string, data []byte) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if doc != nil {
		b, _ := json.Marshal(doc)
		mw.WriteField("document", string(b))
	}
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

func (e *env) search(key string, req httpapi.SearchRequest) httpapi.SearchResponse {
	e.t.Helper()
	r := e.do(call{method: "POST", path: "/v1/search", key: key, body: req})
	if r.status != http.StatusOK {
		e.t.Fatalf("search %+v: %d %s", req, r.status, r.body)
	}
	var sr httpapi.SearchResponse
	r.json(e.t, &sr)
	return sr
}

// srvDocs lists a tenant's indexed document ids through the admin view of
// its store.
func (e *env) srvDocs(tenant string) []string {
	e.t.Helper()
	recs, err := e.stores[tenant].Documents(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	return ids
}
