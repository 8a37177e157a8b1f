package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
)

func TestRoutes(t *testing.T) {
	var logs syncBuffer
	e := newEnv(t, envOptions{auth: true, logs: &logs})
	admin := e.key("acme", nil, true, false)
	reader := e.key("acme", []string{"alice"}, false, false)

	for _, p := range []string{"/healthz", "/readyz", "/v1/openapi.json"} {
		if r := e.do(call{method: "GET", path: p}); r.status != http.StatusOK {
			t.Errorf("GET %s: %d %s", p, r.status, r.body)
		}
	}

	// Create (POST) with an id, then a JSON upsert and a file upload.
	r := e.do(call{method: "POST", path: "/v1/documents", key: admin, body: httpapi.DocumentRequest{ID: "notes/tide.md",
		Text: "# Tide tables\n\nThe Brennick tide gauge reads high water at 06:12.", Format: "markdown",
		Metadata: map[string]string{"year": "2024", "team": "ops"}}})
	if r.status != http.StatusAccepted {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	var created httpapi.UpsertResponse
	r.json(t, &created)
	if created.Job.State != situate.JobQueued || created.Document != "notes/tide.md" || r.header.Get("Location") == "" {
		t.Errorf("create: %+v, Location %q", created, r.header.Get("Location"))
	}
	if j := e.wait(admin, created.Job.ID); j.State != situate.JobDone || j.Change != "added" || j.Chunks != 1 || j.ChunksDone != 1 {
		t.Errorf("create job: %+v", j)
	}
	secret := e.upsert(admin, "secret.txt", httpapi.DocumentRequest{Text: "The quartermaster's ledger lists the tide money.",
		Access: []string{"bob"}, Metadata: map[string]string{"year": "2019"}})
	e.wait(admin, secret)
	body, ct := multipartBody(t, httpapi.DocumentRequest{Title: "Uploaded", Metadata: map[string]string{"year": "2025"}},
		"upload.md", []byte("# Harbour\n\nThe harbour master publishes the tide tables every Monday.\n"))
	r = e.do(call{method: "PUT", path: "/v1/documents/up/load.md", key: admin, body: body, contentType: ct})
	if r.status != http.StatusAccepted {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	var up httpapi.UpsertResponse
	r.json(t, &up)
	if j := e.wait(admin, up.Job.ID); j.State != situate.JobDone {
		t.Fatalf("upload job: %+v", j)
	}

	// Get, with chunks; a changed upsert re-situates as a whole.
	r = e.do(call{method: "GET", path: "/v1/documents/up/load.md?chunks=true", key: reader})
	var doc httpapi.Document
	r.json(t, &doc)
	if r.status != 200 || doc.Title != "Uploaded" || doc.Format != "markdown" || len(doc.ChunkList) != 1 ||
		doc.ChunkList[0].Context == "" || doc.ChunkList[0].Contextualizer != "offline" || doc.Version != 1 {
		t.Errorf("get: %d %+v", r.status, doc)
	}
	j := e.wait(admin, e.upsert(admin, "notes/tide.md", httpapi.DocumentRequest{Text: "# Tide tables\n\nHigh water at 06:40 now.", Format: "markdown",
		Metadata: map[string]string{"year": "2024", "team": "ops"}}))
	if j.Change != "updated" {
		t.Errorf("changed upsert: %+v", j)
	}
	// The same text again: nothing to index, so no job (200, the record).
	same, _ := json.Marshal(httpapi.DocumentRequest{Text: "# Tide tables\n\nHigh water at 06:40 now.", Format: "markdown",
		Metadata: map[string]string{"year": "2024", "team": "ops"}})
	if r := e.do(call{method: "PUT", path: "/v1/documents/notes/tide.md", key: admin, body: same, contentType: "application/json"}); r.status != http.StatusOK {
		t.Errorf("same upsert: %d %s, want 200 without a job", r.status, r.body)
	}
	r = e.do(call{method: "GET", path: "/v1/documents/notes/tide.md", key: reader})
	doc = httpapi.Document{}
	r.json(t, &doc)
	if doc.Version != 2 || doc.ChunkList != nil {
		t.Errorf("after update: %+v", doc)
	}

	// Search: the same shape as situate search --json, access applied.
	sr := e.search(reader, httpapi.SearchRequest{Query: "tide", K: 10, Explain: true})
	if len(sr.Results) != 2 {
		t.Fatalf("reader search: %+v", sr)
	}
	for _, res := range sr.Results {
		if res.Doc == "secret.txt" || res.Explain == nil || res.Explain.Arm("lexical").Rank == 0 || res.Contextualizer != "offline" {
			t.Errorf("reader result: %+v", res)
		}
	}
	if sr := e.search(admin, httpapi.SearchRequest{Query: "tide"}); len(sr.Results) != 3 {
		t.Errorf("admin search: %d results", len(sr.Results))
	}
	filtered := e.search(admin, httpapi.SearchRequest{Query: "tide", Filters: &httpapi.Filter{Metadata: map[string]httpapi.Condition{
		"year": {Gte: num(2020)}, "team": {Ne: str("ops")}}}})
	if len(filtered.Results) != 1 || filtered.Results[0].Doc != "up/load.md" {
		t.Errorf("filtered search: %+v", filtered.Results)
	}
	r = e.do(call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"tide","filters":{"metadata":{"year":{"in":["2019","2025"]},"team":{"exists":false}}}}`})
	var raw httpapi.SearchResponse
	r.json(t, &raw)
	if r.status != 200 || len(raw.Results) != 2 {
		t.Errorf("set membership + negation: %d %+v", r.status, raw.Results)
	}

	// List, paged.
	var page httpapi.DocumentList
	r = e.do(call{method: "GET", path: "/v1/documents?limit=1", key: reader})
	r.json(t, &page)
	if len(page.Documents) != 1 || page.Next == "" || page.Documents[0].ID != "notes/tide.md" {
		t.Fatalf("list page 1: %+v", page)
	}
	r = e.do(call{method: "GET", path: "/v1/documents?limit=1&cursor=" + page.Next, key: reader})
	page = httpapi.DocumentList{}
	r.json(t, &page)
	if len(page.Documents) != 1 || page.Documents[0].ID != "up/load.md" || page.Next != "" {
		t.Fatalf("list page 2: %+v", page)
	}
	r = e.do(call{method: "GET", path: `/v1/documents?filter=` + urlq(`{"metadata":{"year":{"lt":2020}}}`), key: admin})
	page = httpapi.DocumentList{}
	r.json(t, &page)
	if len(page.Documents) != 1 || page.Documents[0].ID != "secret.txt" {
		t.Errorf("list filtered: %+v", page)
	}

	// Status and metrics.
	var st httpapi.Status
	r = e.do(call{method: "GET", path: "/v1/status", key: reader})
	r.json(t, &st)
	if st.Documents != 2 || st.Tenant != "acme" || st.Jobs != nil || st.Contextualizer != "offline" {
		t.Errorf("reader status: %+v", st)
	}
	r = e.do(call{method: "GET", path: "/v1/status", key: admin})
	st = httpapi.Status{}
	r.json(t, &st)
	if st.Documents != 3 || st.Jobs[situate.JobDone] != 4 { // the unchanged upsert queued none
		t.Errorf("admin status: %+v", st)
	}
	r = e.do(call{method: "GET", path: "/metrics", key: admin})
	for _, want := range []string{`situate_index_documents{tenant="acme"} 3`, `situate_jobs{state="queued",tenant="acme"} 0`,
		`situate_http_request_duration_seconds_bucket{route="POST /v1/search",status="200"`, `situate_jobs_finished_total{state="done",tenant="acme"} 4`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if r := e.do(call{method: "GET", path: "/metrics", key: reader}); r.status != http.StatusForbidden {
		t.Errorf("reader metrics: %d", r.status)
	}

	// Delete; the document and its source are gone.
	if r := e.do(call{method: "DELETE", path: "/v1/documents/notes/tide.md", key: admin}); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := e.do(call{method: "GET", path: "/v1/documents/notes/tide.md", key: admin}); r.status != http.StatusNotFound {
		t.Errorf("get after delete: %d", r.status)
	}
	if _, err := e.stores["acme"].Upload(context.Background(), "notes/tide.md"); err == nil {
		t.Errorf("source kept after delete")
	}
	t.Logf("validated %d requests and %d responses against openapi.json", e.validatedReq, e.validatedResp)

	// The request log has ids, routes and statuses, never a key, a query
	// or document text.
	log := logs.String()
	if !strings.Contains(log, `"route":"POST /v1/search"`) || !strings.Contains(log, `"request_id"`) {
		t.Errorf("request log lacks routes or request ids:\n%s", log)
	}
	for _, secret := range []string{admin, reader, strings.SplitN(admin, "_", 3)[2], "quartermaster", "Brennick", "harbour", "tide"} {
		if strings.Contains(log, secret) {
			t.Errorf("the log contains %q", secret)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func num(f float64) *httpapi.Bound { return &httpapi.Bound{Number: &f} }
func str(s string) *string         { return &s }
func urlq(s string) string {
	return strings.NewReplacer("%", "%25", "{", "%7B", "}", "%7D", `"`, "%22", ":", "%3A", ",", "%2C", "[", "%5B", "]", "%5D", " ", "%20").Replace(s)
}
