package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/situate/situate/httpapi"
)

// TestMetricsPerTenant: a tenant's administrator sees only its tenant's
// series on /metrics (no other tenant's requests, jobs or documents, and
// no process-wide series); a server key sees them all and no document;
// other keys see nothing.
func TestMetricsPerTenant(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	adminA, adminB := e.key("ta", nil, true, true), e.key("tb", nil, true, true)
	readerA := e.key("ta", []string{"alice"}, false, false)
	secret, k, err := httpapi.NewServerKey("ops")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.keys.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	e.wait(adminA, e.upsert(adminA, "a.md", httpapi.DocumentRequest{Text: "Harbour tide tables for the west quay."}))
	e.wait(adminB, e.upsert(adminB, "b.md", httpapi.DocumentRequest{Text: "Orchard pruning in late winter."}))
	e.search(adminA, httpapi.SearchRequest{Query: "harbour"})
	e.search(adminB, httpapi.SearchRequest{Query: "orchard"})

	metrics := func(key string) (int, string) {
		r := e.do(call{method: "GET", path: "/metrics", key: key})
		return r.status, string(r.body)
	}
	status, body := metrics(adminA)
	if status != http.StatusOK {
		t.Fatalf("tenant admin: %d", status)
	}
	for _, want := range []string{`tenant="ta"`, `situate_http_request_duration_seconds_bucket{route="POST /v1/search",status="200",tenant="ta"`} {
		if !strings.Contains(body, want) {
			t.Errorf("tenant admin's metrics lack %s", want)
		}
	}
	for _, leak := range []string{`tenant="tb"`, `tenant=""`, "go_goroutines", "process_", "situate_search_queue_waiting"} {
		if strings.Contains(body, leak) {
			t.Errorf("tenant admin's metrics show %s", leak)
		}
	}
	status, body = metrics(secret)
	if status != http.StatusOK {
		t.Fatalf("server key: %d", status)
	}
	for _, want := range []string{`tenant="ta"`, `tenant="tb"`, "go_goroutines", "situate_search_queue_waiting"} {
		if !strings.Contains(body, want) {
			t.Errorf("server key's metrics lack %s", want)
		}
	}
	if status, _ := metrics(readerA); status != http.StatusForbidden {
		t.Errorf("reader: %d, want 403", status)
	}
	for _, c := range []call{{method: "GET", path: "/v1/status", key: secret}, {method: "GET", path: "/v1/documents/a.md", key: secret},
		{method: "POST", path: "/v1/search", key: secret, body: httpapi.SearchRequest{Query: "harbour"}}} {
		if r := e.do(c); r.status != http.StatusForbidden {
			t.Errorf("server key on %s %s: %d %s, want 403", c.method, c.path, r.status, r.body)
		}
	}
}
