package httpapi_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/mcpserver"
)

// TestMCPMountRefusals: the MCP endpoint (the SDK's Streamable HTTP
// handler mounted at /mcp, as situate serve mounts it) answers its
// refusals in the API's JSON error envelope with the request id, and a
// body over --max-body gets 413.
func TestMCPMountRefusals(t *testing.T) {
	h := mcpserver.Handler(func(r *http.Request) (mcpserver.Scope, error) {
		c, ok := httpapi.CallerFrom(r.Context())
		if !ok {
			return mcpserver.Scope{}, errors.New("no caller")
		}
		return mcpserver.Scope{Engine: c.Engine(), Principals: c.Principals, Unrestricted: c.ReadsAll()}, nil
	}, mcpserver.Options{})
	e := newEnv(t, envOptions{auth: true, limits: httpapi.Limits{MaxBodyBytes: 4096}, mounts: []httpapi.Mount{{Pattern: "/mcp", Handler: h}}})
	admin := e.key("t1", nil, true, false)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	accept := map[string]string{"Accept": "application/json, text/event-stream"}
	for _, c := range []struct {
		name   string
		call   call
		status int
	}{
		{"initialize", call{method: "POST", path: "/mcp", key: admin, body: []byte(init), contentType: "application/json", header: accept, invalid: true}, http.StatusOK},
		{"wrong content type", call{method: "POST", path: "/mcp", key: admin, body: []byte(init), contentType: "text/plain", header: accept, invalid: true}, http.StatusUnsupportedMediaType},
		{"body over the limit", call{method: "POST", path: "/mcp", key: admin, contentType: "application/json", header: accept, invalid: true,
			body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 8000) + `"}}`)}, http.StatusRequestEntityTooLarge},
		{"no key", call{method: "POST", path: "/mcp", body: []byte(init), contentType: "application/json", header: accept, invalid: true}, http.StatusUnauthorized},
	} {
		r := e.do(c.call)
		if r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
			continue
		}
		if c.status == http.StatusOK {
			continue
		}
		b := r.errBody(t)
		if b.Code == "" || b.RequestID == "" || b.RequestID != r.header.Get("X-Request-Id") || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %+v (Content-Type %q), want the JSON envelope with the request id", c.name, b, r.header.Get("Content-Type"))
		}
	}
}
