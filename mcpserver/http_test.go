package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/situate/situate"
	"github.com/situate/situate/internal/mcptest"
	"github.com/situate/situate/mcpserver"
)

// keyAuth stands in for httpapi's authentication in front of /mcp: a bearer
// key maps to principals, anything else is a 401 before the MCP handler
// runs. httpapi's own tests run the same client against the real server.
func keyAuth(eng *situate.Engine, keys map[string][]string) http.Handler {
	return keyAuthFunc(eng, func(k string) ([]string, bool) { p, ok := keys[k]; return p, ok })
}

func keyAuthFunc(eng *situate.Engine, lookup func(key string) ([]string, bool)) http.Handler {
	type principalsKey struct{}
	var h http.Handler = mcpserver.Handler(func(r *http.Request) (mcpserver.Scope, error) {
		p, ok := r.Context().Value(principalsKey{}).([]string)
		if !ok {
			return mcpserver.Scope{}, errors.New("unauthenticated request reached the handler")
		}
		return mcpserver.Scope{Engine: eng, Principals: p}, nil
	}, mcpserver.Options{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		p, known := lookup(key)
		if !ok || !known {
			w.Header().Set("WWW-Authenticate", `Bearer realm="situate"`)
			http.Error(w, `{"error":"missing or invalid API key"}`, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r.WithContext(contextWith(r, principalsKey{}, p)))
	})
}

func searchDocs(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var out mcpserver.SearchOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("structured search result: %v: %s", err, raw)
	}
	return docsOf(out.Results)
}

// TestTypeScriptClientOverHTTP: the official TypeScript SDK's client lists
// the tools and searches over Streamable HTTP with a valid key (seeing only
// what the key's principals may read), and is refused without one.
func TestTypeScriptClientOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node (about 1 s)")
	}
	mcptest.SDKDir(t)
	eng := newEngine(t)
	srv := httptest.NewServer(keyAuth(eng, map[string][]string{"key-finance": {"finance"}, "key-legal": {"legal"}}))
	defer srv.Close()
	calls := []mcptest.Call{
		{Tool: "search", Arguments: map[string]any{"query": "harbour", "k": 10}},
		{Tool: "fetch", Arguments: map[string]any{"doc": "legal/lease.md"}},
	}

	for _, c := range []struct {
		key  string
		docs []string
	}{
		{"key-finance", []string{"finance/q3.md", "public/welcome.md", "shared/budget.md"}},
		{"key-legal", []string{"legal/lease.md", "public/welcome.md", "shared/budget.md"}},
	} {
		out := mcptest.Run(t, mcptest.Spec{Transport: "http", URL: srv.URL + "/mcp",
			Headers: map[string]string{"Authorization": "Bearer " + c.key}, Calls: calls})
		if out.Error != "" {
			t.Fatalf("%s: %s", c.key, out.Error)
		}
		var names []string
		for _, tool := range out.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"fetch", "list_documents", "search"}) || out.Server == nil || out.Server.Name != "situate" {
			t.Fatalf("%s: server %+v tools %v", c.key, out.Server, names)
		}
		if got := searchDocs(t, out.Results[0].Structured); !slices.Equal(got, c.docs) {
			t.Errorf("%s: search saw %v, want %v", c.key, got, c.docs)
		}
		if !strings.Contains(out.Results[0].Text, "generated context (written by offline") {
			t.Errorf("%s: text content lacks the labelled context:\n%s", c.key, out.Results[0].Text)
		}
		lease := out.Results[1]
		if readable := slices.Contains(c.docs, "legal/lease.md"); readable == lease.IsError {
			t.Errorf("%s: fetch legal/lease.md: error %v (%s)", c.key, lease.IsError, lease.Text)
		}
		if lease.IsError && !strings.Contains(lease.Text, "not found") {
			t.Errorf("%s: fetch of an unreadable document: %q, want not found", c.key, lease.Text)
		}
	}

	for name, headers := range map[string]map[string]string{
		"no key":    nil,
		"wrong key": {"Authorization": "Bearer key-wrong"},
	} {
		out := mcptest.Run(t, mcptest.Spec{Transport: "http", URL: srv.URL + "/mcp", Headers: headers, Calls: calls})
		if out.Error == "" || out.Status != http.StatusUnauthorized || len(out.Tools) > 0 || len(out.Results) > 0 {
			t.Errorf("%s: error %q status %d tools %d results %d, want a 401 before any tool", name, out.Error, out.Status, len(out.Tools), len(out.Results))
		}
	}
}

func contextWith(r *http.Request, key, value any) context.Context {
	return context.WithValue(r.Context(), key, value)
}

type bearer struct {
	key  *string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+*b.key)
	return b.next.RoundTrip(r)
}

// The handler resolves the caller on every HTTP request (it keeps no MCP
// session): a key revoked in the middle of a client's session is refused
// at its next call, and a key's principals apply to each call.
func TestHandlerResolvesEveryRequest(t *testing.T) {
	eng := newEngine(t)
	var mu sync.Mutex
	keys := map[string][]string{"key-finance": {"finance"}}
	auth := keyAuthFunc(eng, func(k string) ([]string, bool) {
		mu.Lock()
		defer mu.Unlock()
		p, ok := keys[k]
		return p, ok
	})
	srv := httptest.NewServer(auth)
	defer srv.Close()
	key := "key-finance"
	ctx := context.Background()
	tr := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: bearer{&key, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out, res := call[mcpserver.SearchOutput](t, cs, "search", map[string]any{"query": "harbour", "k": 10})
	if res.IsError || !slices.Equal(docsOf(out.Results), []string{"finance/q3.md", "public/welcome.md", "shared/budget.md"}) {
		t.Fatalf("finance key: %s %v", text(res), docsOf(out.Results))
	}
	// The same key now reads as legal.
	mu.Lock()
	keys["key-finance"] = []string{"legal"}
	mu.Unlock()
	out, _ = call[mcpserver.SearchOutput](t, cs, "search", map[string]any{"query": "harbour", "k": 10})
	if got := docsOf(out.Results); !slices.Equal(got, []string{"legal/lease.md", "public/welcome.md", "shared/budget.md"}) {
		t.Fatalf("after the key's principals changed: %v", got)
	}
	mu.Lock()
	delete(keys, "key-finance")
	mu.Unlock()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "harbour"}}); err == nil {
		t.Fatalf("a revoked key's call succeeded: %+v", res)
	}
}

// A resolver that fails answers 500 and runs no tool.
func TestHandlerResolverError(t *testing.T) {
	h := mcpserver.Handler(func(*http.Request) (mcpserver.Scope, error) {
		return mcpserver.Scope{}, errors.New("tenant store unreadable")
	}, mcpserver.Options{})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "unreadable") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
