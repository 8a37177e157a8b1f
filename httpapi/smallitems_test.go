package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/situate/situate/httpapi"
)

// TestRefusals: a wrong method answers 405 with Allow and the JSON error
// envelope; unknown languages and white-space ids are refused naming the
// field; no error names a Go type; a 403 carries its request id.
func TestRefusals(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	admin := e.key("t1", nil, true, true)
	reader := e.key("t1", []string{"alice"}, false, false)
	for _, c := range []struct {
		call   call
		status int
		field  string
		allow  string
	}{
		{call{method: "DELETE", path: "/v1/search", key: admin, invalid: true}, http.StatusMethodNotAllowed, "", "POST"},
		{call{method: "POST", path: "/v1/documents/a.md", key: admin, invalid: true}, http.StatusMethodNotAllowed, "", "GET, PUT, PATCH, DELETE"},
		{call{method: "PUT", path: "/v1/status", key: admin, invalid: true}, http.StatusMethodNotAllowed, "", "GET"},
		{call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: httpapi.DocumentRequest{Text: "x", Lang: "english"}, invalid: true}, http.StatusBadRequest, "lang", ""},
		{call{method: "PUT", path: "/v1/documents/a.md", key: admin, body: httpapi.DocumentRequest{Text: "x", Lang: "xx"}, invalid: true}, http.StatusBadRequest, "lang", ""},
		{call{method: "PUT", path: "/v1/documents/%20%20", key: admin, body: httpapi.DocumentRequest{Text: "x"}, invalid: true}, http.StatusBadRequest, "id", ""},
		{call{method: "POST", path: "/v1/search", key: admin, body: []byte(`["harbour"]`), contentType: "application/json", invalid: true}, http.StatusBadRequest, "body", ""},
		{call{method: "PUT", path: "/v1/documents/a.md", key: reader, body: httpapi.DocumentRequest{Text: "x"}}, http.StatusForbidden, "", ""},
	} {
		r := e.do(c.call)
		if r.status != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.call.method, c.call.path, r.status, r.body, c.status)
			continue
		}
		b := r.errBody(t)
		if b.Field != c.field || b.RequestID == "" || b.RequestID != r.header.Get("X-Request-Id") {
			t.Errorf("%s %s: %+v, want field %q and the request id", c.call.method, c.call.path, b, c.field)
		}
		if c.allow != "" && r.header.Get("Allow") != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.call.method, c.call.path, r.header.Get("Allow"), c.allow)
		}
		if strings.Contains(string(r.body), "struct") || strings.Contains(string(r.body), "json.RawMessage") || strings.Contains(string(r.body), "httpapi.") {
			t.Errorf("%s %s: the error names Go types: %s", c.call.method, c.call.path, r.body)
		}
	}
	if r := e.do(call{method: "PUT", path: "/v1/documents/de.md", key: admin, body: httpapi.DocumentRequest{Text: "Der Hafen", Lang: "de-AT"}}); r.status != http.StatusAccepted {
		t.Errorf("lang de-AT: %d %s", r.status, r.body)
	}
}

// TestExplanationSnakeCase: a search's explanation is a list of per-arm
// ranks and scores in snake_case, like every other field of the API.
func TestExplanationSnakeCase(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.wait("", e.upsert("", "a.md", httpapi.DocumentRequest{Text: "The harbour tide tables."}))
	r := e.do(call{method: "POST", path: "/v1/search", body: httpapi.SearchRequest{Query: "harbour", Explain: true}})
	for _, want := range []string{`"arms":[{"arm":"bm25","rank":1,"score":`, `{"arm":"lexical","rank":1,"score":`, `"fused_score":`, `"reranked":false`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("explanation lacks %s: %s", want, r.body)
		}
	}
	if strings.Contains(string(r.body), "BM25Rank") || strings.Contains(string(r.body), `"Arm"`) || strings.Contains(string(r.body), "FusedScore") {
		t.Errorf("explanation in Go names: %s", r.body)
	}
}
