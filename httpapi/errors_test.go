package httpapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/httpapi"
)

// TestErrors sends bad and hostile requests: each gets a clear 4xx whose
// body names the field, and none reaches the store (no upload, no job).
func TestErrors(t *testing.T) {
	e := newEnv(t, envOptions{auth: true, limits: httpapi.Limits{MaxBodyBytes: 4096, MaxUploadBytes: 8192, MaxK: 50, MaxQueryBytes: 1000}})
	admin := e.key("acme", nil, true, false)
	reader := e.key("acme", []string{"alice"}, false, false)
	revoked := e.key("acme", nil, true, false)
	revokedID := strings.Split(revoked, "_")[1]
	if err := e.keys.RevokeKey(context.Background(), revokedID); err != nil {
		t.Fatal(err)
	}
	other := e.key("globex", nil, true, false)
	e.wait(admin, e.upsert(admin, "kept.md", httpapi.DocumentRequest{Text: "The lighthouse keeper logs the fog.", Access: []string{"bob"}}))

	big := strings.Repeat("x", 5000)
	upload, uct := multipartBody(t, httpapi.DocumentRequest{Title: "t"}, "big.txt", []byte(strings.Repeat("y", 9000)))
	exe, ect := multipartBody(t, nil, "tool.exe", []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00"+strings.Repeat("\x00", 64)))
	noFile, nct := multipartBody(t, httpapi.DocumentRequest{Title: "t"}, "", nil)
	cases := []struct {
		name   string
		c      call
		status int
		code   string
		field  string
	}{
		// 400: malformed, wrong types, unknown fields, invalid UTF-8.
		{"malformed JSON", call{method: "POST", path: "/v1/search", key: admin, body: `{"query": "x",`}, 400, "bad_request", "body"},
		{"not an object", call{method: "POST", path: "/v1/search", key: admin, body: `[1,2]`}, 400, "bad_request", "body"},
		{"empty body", call{method: "POST", path: "/v1/search", key: admin, body: ``, contentType: "application/json"}, 400, "bad_request", "body"},
		{"trailing data", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x"} {}`}, 400, "bad_request", "body"},
		{"k wrong type", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","k":"ten"}`}, 400, "bad_request", "k"},
		{"query wrong type", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":7}`}, 400, "bad_request", "query"},
		{"unknown field", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","top_k":3}`}, 400, "bad_request", "top_k"},
		{"invalid UTF-8", call{method: "POST", path: "/v1/search", key: admin, body: []byte("{\"query\":\"caf\xe9\"}")}, 400, "bad_request", "body"},
		{"empty query", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"  "}`}, 400, "bad_request", "query"},
		{"long query", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"` + strings.Repeat("q ", 600) + `"}`}, 400, "bad_request", "query"},
		{"k too large", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","k":51}`}, 400, "bad_request", "k"},
		{"k negative", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","k":-1}`}, 400, "bad_request", "k"},
		{"k fractional", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","k":2.5}`}, 400, "bad_request", "k"},
		{"bad mode", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","mode":"fuzzy"}`}, 400, "bad_request", "mode"},
		{"dense without embedder", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","mode":"dense"}`}, 400, "bad_request", "mode"},
		{"rerank without reranker", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","rerank":true}`}, 400, "bad_request", "rerank"},
		{"filter value wrong type", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","filters":{"metadata":{"year":2024}}}`}, 400, "bad_request", "filters.metadata.year"},
		{"filter in wrong type", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","filters":{"metadata":{"team":{"in":"ops"}}}}`}, 400, "bad_request", "filters.metadata.team.in"},
		{"filter bound not a date", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","filters":{"metadata":{"d":{"gte":"yesterday"}}}}`}, 400, "bad_request", "filters.metadata.d.gte"},
		{"filter mixed bounds", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","filters":{"metadata":{"d":{"gte":"2024-01-01","lt":5}}}}`}, 400, "bad_request", "filters.metadata.d"},
		{"filter unknown test", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","filters":{"metadata":{"d":{"like":"a%"}}}}`}, 400, "bad_request", "filters.metadata.d.like"},
		{"filter empty test", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","filters":{"metadata":{"d":{}}}}`}, 400, "bad_request", "filters.metadata.d"},
		{"filter docs wrong type", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","filters":{"docs":"a.md"}}`}, 400, "bad_request", "filters.docs"},
		{"filter doc traversal", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x","filters":{"docs":["../etc/passwd"]}}`}, 400, "bad_request", "filters.docs[0]"},
		{"upsert unknown field", call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: `{"text":"x","acl":["a"]}`}, 400, "bad_request", "acl"},
		{"upsert empty text", call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: `{"text":""}`}, 400, "bad_request", "text"},
		{"upsert metadata wrong type", call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: `{"text":"x","metadata":{"year":2024}}`}, 400, "bad_request", "metadata.year"},
		{"upsert access wrong type", call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: `{"text":"x","access":"alice"}`}, 400, "bad_request", "access"},
		{"upsert bad principal", call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: `{"text":"x","access":["a\u0000b"]}`}, 400, "bad_request", "access[0]"},
		{"upsert bad format", call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: `{"text":"x","format":"pdf"}`}, 400, "bad_request", "format"},
		{"upsert id mismatch", call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: `{"id":"b.md","text":"x"}`}, 400, "bad_request", "id"},
		{"id traversal", call{method: "PUT", path: "/v1/documents/a/%2E%2E/b", key: admin, body: `{"text":"x"}`}, 400, "bad_request", "id"},
		{"id dot segment", call{method: "PUT", path: "/v1/documents/a/%2E/b", key: admin, body: `{"text":"x"}`}, 400, "bad_request", "id"},
		{"id control character", call{method: "PUT", path: "/v1/documents/a%0Ab", key: admin, body: `{"text":"x"}`}, 400, "bad_request", "id"},
		{"id NUL", call{method: "PUT", path: "/v1/documents/a%00b", key: admin, body: `{"text":"x"}`}, 400, "bad_request", "id"},
		{"id invalid UTF-8", call{method: "PUT", path: "/v1/documents/a%FFb", key: admin, body: `{"text":"x"}`}, 400, "bad_request", "id"},
		{"id backslash", call{method: "PUT", path: "/v1/documents/a%5C..%5Cb", key: admin, body: `{"text":"x"}`}, 400, "bad_request", "id"},
		{"id empty segment", call{method: "PUT", path: "/v1/documents/a%2F%2Fb", key: admin, body: `{"text":"x"}`}, 400, "bad_request", "id"},
		{"create without id", call{method: "POST", path: "/v1/documents", key: admin, body: `{"text":"x"}`}, 400, "bad_request", "id"},
		{"create id traversal", call{method: "POST", path: "/v1/documents", key: admin, body: `{"id":"../../x","text":"x"}`}, 400, "bad_request", "id"},
		{"upload without file", call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: noFile, contentType: nct}, 400, "bad_request", "file"},
		{"get bad chunks flag", call{method: "GET", path: "/v1/documents/kept.md?chunks=maybe", key: admin}, 400, "bad_request", "chunks"},
		{"list bad limit", call{method: "GET", path: "/v1/documents?limit=0", key: admin}, 400, "bad_request", "limit"},
		{"list bad cursor", call{method: "GET", path: "/v1/documents?cursor=%25%25", key: admin}, 400, "bad_request", "cursor"},
		{"list unknown parameter", call{method: "GET", path: "/v1/documents?sort=id", key: admin}, 400, "bad_request", "sort"},
		{"list bad filter", call{method: "GET", path: "/v1/documents?filter=%7B%22metadata%22%3A1%7D", key: admin}, 400, "bad_request", "filter.metadata"},
		{"job id not a number", call{method: "GET", path: "/v1/jobs/abc", key: admin}, 400, "bad_request", "id"},
		// 401: missing, wrong, revoked keys; a key of another shape.
		{"missing key", call{method: "POST", path: "/v1/search", body: `{"query":"x"}`}, 401, "unauthenticated", "Authorization"},
		{"wrong key", call{method: "POST", path: "/v1/search", key: admin[:len(admin)-2] + "xx", body: `{"query":"x"}`}, 401, "unauthenticated", "Authorization"},
		{"unknown key id", call{method: "POST", path: "/v1/search", key: "sk_0123456789abcdef_secret", body: `{"query":"x"}`}, 401, "unauthenticated", "Authorization"},
		{"garbage key", call{method: "POST", path: "/v1/search", key: "hunter2", body: `{"query":"x"}`}, 401, "unauthenticated", "Authorization"},
		{"revoked key", call{method: "POST", path: "/v1/search", key: revoked, body: `{"query":"x"}`}, 401, "unauthenticated", "Authorization"},
		{"basic auth", call{method: "GET", path: "/v1/status", header: map[string]string{"Authorization": "Basic YTpi"}}, 401, "unauthenticated", "Authorization"},
		// 403: a reader may not write.
		{"reader writes", call{method: "PUT", path: "/v1/documents/a.md", key: reader, body: `{"text":"x"}`}, 403, "forbidden", ""},
		// 404: unknown, unreadable and other tenants' documents and jobs.
		{"unknown document", call{method: "GET", path: "/v1/documents/nope.md", key: admin}, 404, "not_found", ""},
		{"unreadable document", call{method: "GET", path: "/v1/documents/kept.md", key: reader}, 404, "not_found", ""},
		{"unreadable delete", call{method: "DELETE", path: "/v1/documents/kept.md", key: reader}, 404, "not_found", ""},
		{"other tenant's document", call{method: "GET", path: "/v1/documents/kept.md", key: other}, 404, "not_found", ""},
		{"unreadable job", call{method: "GET", path: "/v1/jobs/1", key: reader}, 404, "not_found", ""},
		{"other tenant's job", call{method: "GET", path: "/v1/jobs/1", key: other}, 404, "not_found", ""},
		{"unknown job", call{method: "GET", path: "/v1/jobs/999", key: admin}, 404, "not_found", ""},
		{"unknown route", call{method: "GET", path: "/v2/search", key: admin, invalid: true}, 404, "not_found", ""},
		// 409: create over an existing id.
		{"create existing", call{method: "POST", path: "/v1/documents", key: admin, body: `{"id":"kept.md","text":"x"}`}, 409, "conflict", "id"},
		// 413: body, text and upload limits.
		{"huge body", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"` + big + `"}`}, 413, "too_large", "body"},
		{"huge upload", call{method: "PUT", path: "/v1/documents/big.txt", key: admin, body: upload, contentType: uct}, 413, "too_large", ""},
		// 415: content types and formats.
		{"no content type", call{method: "POST", path: "/v1/search", key: admin, body: `{"query":"x"}`, contentType: "text/plain"}, 415, "unsupported_media_type", "Content-Type"},
		{"form upsert", call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: "text=x", contentType: "application/x-www-form-urlencoded"}, 415, "unsupported_media_type", "Content-Type"},
		{"binary upload", call{method: "PUT", path: "/v1/documents/tool.exe", key: admin, body: exe, contentType: ect}, 415, "unsupported_media_type", "file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			if tc.status == 400 || tc.status == 413 || tc.status == 415 {
				c.invalid = true
			}
			r := e.do(c)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			eb := r.errBody(t)
			if eb.Code != tc.code || (tc.field != "" && eb.Field != tc.field) || eb.Message == "" || eb.RequestID == "" {
				t.Errorf("error %+v, want code %s field %q", eb, tc.code, tc.field)
			}
			if tc.field != "" && !strings.Contains(eb.Message, tc.field) {
				t.Errorf("message %q does not name the field %s", eb.Message, tc.field)
			}
			if strings.Contains(string(r.body), "lighthouse") {
				t.Errorf("error body reveals document text: %s", r.body)
			}
		})
	}
	// Nothing reached the store: one upload and one job, from the setup.
	counts, err := e.stores["acme"].JobCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if total := counts["queued"] + counts["running"] + counts["done"] + counts["failed"]; total != 1 {
		t.Errorf("jobs after bad requests: %v, want the setup's 1", counts)
	}
	for _, id := range []string{"a.md", "big.txt", "tool.exe", "b", "a/../b", "x"} {
		if _, err := e.stores["acme"].Upload(context.Background(), id); err == nil {
			t.Errorf("upload %q reached the store", id)
		}
	}
	if docs := e.srvDocs("acme"); len(docs) != 1 {
		t.Errorf("documents after bad requests: %v", docs)
	}
}

// keyCacheWait outlasts the server's key cache.
const keyCacheWait = httpapi.KeyCacheTTL + 100*time.Millisecond

func TestRateLimit(t *testing.T) {
	e := newEnv(t, envOptions{auth: true, limits: httpapi.Limits{RatePerSecond: 1, Burst: 3}})
	a := e.key("acme", nil, true, false)
	b := e.key("acme", nil, true, false)
	var statuses []int
	for range 5 {
		statuses = append(statuses, e.do(call{method: "GET", path: "/v1/status", key: a}).status)
	}
	if statuses[0] != 200 || statuses[2] != 200 || statuses[4] != 429 {
		t.Fatalf("statuses %v: want 3 allowed then 429", statuses)
	}
	r := e.do(call{method: "GET", path: "/v1/status", key: a})
	if r.status != 429 || r.header.Get("Retry-After") == "" || r.errBody(t).Code != "rate_limited" {
		t.Errorf("429 reply: %d %q %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	// Limits are per key.
	if r := e.do(call{method: "GET", path: "/v1/status", key: b}); r.status != 200 {
		t.Errorf("second key limited too: %d", r.status)
	}
}

func TestNoKeysLocalTenant(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.do(call{method: "PUT", path: "/v1/documents/a.md", body: httpapi.DocumentRequest{Text: "Local tide notes."}})
	if r.status != 202 {
		t.Fatalf("local upsert: %d %s", r.status, r.body)
	}
	var st httpapi.Status
	e.do(call{method: "GET", path: "/v1/status"}).json(t, &st)
	if st.Tenant != httpapi.LocalTenant || !st.Admin {
		t.Errorf("local status: %+v", st)
	}
}
