package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/mcpserver"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
)

// llmGate stands between the contextualizer and the fake Anthropic server
// (anthropictest speaks the Messages API's wire format): open, it forwards;
// stopped, it drops every connection, as a server that went away.
type llmGate struct {
	*httptest.Server
	stopped atomic.Bool
}

func newLLMGate(t *testing.T, upstream string) *llmGate {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	g := &llmGate{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // calls cut short by a stopped job
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.stopped.Load() {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
			http.Error(w, "stopped", http.StatusBadGateway)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Close)
	return g
}

// newLLMContextualizer is the LLM contextualizer over the fake Anthropic
// server behind a gate, failing fast when the gate is stopped.
func newLLMContextualizer(t *testing.T, delay time.Duration) (*llm.Contextualizer, *anthropictest.Server, *llmGate) {
	t.Helper()
	srv := anthropictest.NewServer(anthropictest.Config{FirstTokenDelay: delay})
	t.Cleanup(srv.Close)
	gate := newLLMGate(t, srv.URL)
	client, err := anthropic.New(anthropic.Options{APIKey: "sk-ant-test", BaseURL: gate.URL, Model: "claude-haiku-4-5"})
	if err != nil {
		t.Fatal(err)
	}
	o := llm.DefaultOptions()
	o.MaxRetries, o.BaseBackoff, o.MaxBackoff, o.CallTimeout = 1, time.Millisecond, 5*time.Millisecond, 5*time.Second
	cz, err := llm.New(client, o)
	if err != nil {
		t.Fatal(err)
	}
	return cz, srv, gate
}

// TestAttributeChangesMakeNoCall: a change of access, metadata or title
// alone — by PATCH, or by a PUT whose text is unchanged — makes no model
// call (counted by the fake Anthropic server), queues no job and is what
// the next read sees.
func TestAttributeChangesMakeNoCall(t *testing.T) {
	cz, llmSrv, _ := newLLMContextualizer(t, 0)
	e := newEnv(t, envOptions{auth: true, contextualizer: cz})
	admin := e.key("t1", nil, true, true)
	alice := e.key("t1", []string{"alice"}, false, false)
	// Long enough for two chunks: a one-chunk document is its own
	// context and makes no call.
	text := "# Lakeside plan\n\nThe lakeside office opens in spring. Staff move in March.\n\n" +
		strings.Repeat("Parking is behind the boathouse, beside the old ferry landing and the rowing club. ", 60)
	e.wait(admin, e.upsert(admin, "hr/plan.md", httpapi.DocumentRequest{Text: text, Format: "markdown"}))
	calls := llmSrv.Stats().Messages
	if calls == 0 {
		t.Fatal("the first indexing made no model call: the test would prove nothing")
	}
	get := func(key string) (int, httpapi.Document) {
		t.Helper()
		r := e.do(call{method: "GET", path: "/v1/documents/hr/plan.md", key: key})
		var d httpapi.Document
		if r.status == http.StatusOK {
			r.json(t, &d)
		}
		return r.status, d
	}

	for _, tc := range []struct {
		name  string
		req   call
		check func(status int, d httpapi.Document) bool
	}{
		{"patch access", call{method: "PATCH", path: "/v1/documents/hr/plan.md", key: admin, body: []byte(`{"access":["hr"]}`), contentType: "application/json"},
			func(status int, _ httpapi.Document) bool { return status == http.StatusNotFound }},
		{"patch metadata and title", call{method: "PATCH", path: "/v1/documents/hr/plan.md", key: admin, body: []byte(`{"access":[],"metadata":{"team":"hr"},"title":"Plan"}`), contentType: "application/json"},
			func(status int, d httpapi.Document) bool {
				return status == http.StatusOK && d.Title == "Plan" && d.Metadata["team"] == "hr"
			}},
		{"put same text, other access", call{method: "PUT", path: "/v1/documents/hr/plan.md", key: admin,
			body: mustJSON(t, httpapi.DocumentRequest{Text: text, Format: "markdown", Access: []string{"hr"}}), contentType: "application/json"},
			func(status int, _ httpapi.Document) bool { return status == http.StatusNotFound }},
		{"put same text, title", call{method: "PUT", path: "/v1/documents/hr/plan.md", key: admin,
			body: mustJSON(t, httpapi.DocumentRequest{Text: text, Format: "markdown", Title: "Lakeside"}), contentType: "application/json"},
			func(status int, d httpapi.Document) bool {
				return status == http.StatusOK && d.Title == "Lakeside" && len(d.Access) == 0
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.req)
			if r.status != http.StatusOK {
				t.Fatalf("%s: %d %s, want 200 (applied, no job)", tc.name, r.status, r.body)
			}
			if status, d := get(alice); !tc.check(status, d) {
				t.Errorf("%s: alice's next GET: %d %+v", tc.name, status, d)
			}
			if n := llmSrv.Stats().Messages; n != calls {
				t.Errorf("%s: %d model calls, want none", tc.name, n-calls)
			}
		})
	}
	var st httpapi.Status
	e.do(call{method: "GET", path: "/v1/status", key: admin}).json(t, &st)
	if n := st.Jobs["done"] + st.Jobs["queued"] + st.Jobs["running"] + st.Jobs["failed"]; n != 1 {
		t.Errorf("jobs: %v, want only the first indexing's", st.Jobs)
	}
	if r := e.do(call{method: "PATCH", path: "/v1/documents/hr/none.md", key: admin, body: []byte(`{"access":["hr"]}`), contentType: "application/json"}); r.status != http.StatusNotFound {
		t.Errorf("patch of an unknown document: %d %s", r.status, r.body)
	}
	if r := e.do(call{method: "PATCH", path: "/v1/documents/hr/plan.md", key: alice, body: []byte(`{"access":[]}`), contentType: "application/json"}); r.status != http.StatusForbidden {
		t.Errorf("patch by a reader: %d %s", r.status, r.body)
	}
	if r := e.do(call{method: "PATCH", path: "/v1/documents/hr/plan.md", key: admin, body: []byte(`{"access":["a,b"]}`), contentType: "application/json"}); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "access[0]") {
		t.Errorf("patch with a bad principal: %d %s, want 400 naming access[0]", r.status, r.body)
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAccessHoldsAtOnce is a property test over random interleavings of
// access changes (PATCH, PUT of the same text), text changes (PUT of new
// text, whose job runs against a model that is slow or stopped, so it
// fails), deletes and reads: from the moment a change request returns, no
// GET, search, listing or MCP fetch by a principal outside the document's
// new access returns the document, a chunk of it, or its existence.
func TestAccessHoldsAtOnce(t *testing.T) {
	ops := 2000
	if testing.Short() {
		ops = 300
	}
	cz, _, gate := newLLMContextualizer(t, 20*time.Millisecond)
	e := newEnv(t, envOptions{auth: true, contextualizer: cz})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(28, 1))
	admin := e.key("t1", nil, true, true)
	principals := []string{"alice", "bob", "hr"}
	keys := map[string]string{}
	for _, p := range principals {
		keys[p] = e.key("t1", []string{p}, false, false)
	}
	type docState struct {
		id, marker string
		exists     bool
		access     []string
		version    int
	}
	docs := make([]*docState, 4)
	randomAccess := func() []string {
		var out []string
		for _, p := range principals {
			if rng.IntN(3) == 0 {
				out = append(out, p)
			}
		}
		return out
	}
	// Two chunks or more, so that indexing a text calls the model.
	text := func(d *docState) string {
		return fmt.Sprintf("# %s\n\n%s harbour ledger version %d.\n\n%s\n\nThe tide tables list %s again.", d.marker, d.marker, d.version,
			strings.Repeat("The harbour master keeps the ledger of every vessel, its cargo and its berth. ", 50), d.marker)
	}
	for i := range docs {
		d := &docState{id: fmt.Sprintf("d%d.md", i), marker: fmt.Sprintf("zq%dmarker", i), exists: true}
		docs[i] = d
		e.wait(admin, e.upsert(admin, d.id, httpapi.DocumentRequest{Text: text(d), Format: "markdown"}))
	}
	e.mu.Lock()
	eng := e.engines["t1"]
	e.mu.Unlock()
	mcpClients := map[string]*mcp.ClientSession{}
	for _, p := range principals {
		st, ct := mcp.NewInMemoryTransports()
		srv := mcpserver.New(mcpserver.Scope{Engine: eng, Principals: []string{p}}, mcpserver.Options{})
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "access-test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		mcpClients[p] = cs
	}
	allowed := func(d *docState, p string) bool {
		return d.exists && (len(d.access) == 0 || slices.Contains(d.access, p))
	}
	var reads int
	check := func(op string, d *docState) {
		t.Helper()
		for _, p := range principals {
			if allowed(d, p) {
				continue
			}
			reads += 4
			if r := e.do(call{method: "GET", path: "/v1/documents/" + d.id, key: keys[p]}); r.status != http.StatusNotFound {
				t.Fatalf("after %s: %s GETs %s (access %v, exists %v): %d %s", op, p, d.id, d.access, d.exists, r.status, truncate(r.body))
			}
			if sr := e.search(keys[p], httpapi.SearchRequest{Query: d.marker, K: 10}); slices.ContainsFunc(sr.Results, func(h httpapi.SearchResult) bool { return h.Doc == d.id }) {
				t.Fatalf("after %s: %s finds %s (access %v, exists %v)", op, p, d.id, d.access, d.exists)
			}
			if r := e.do(call{method: "GET", path: "/v1/documents?limit=100", key: keys[p]}); strings.Contains(string(r.body), `"`+d.id+`"`) {
				t.Fatalf("after %s: %s lists %s (access %v, exists %v): %s", op, p, d.id, d.access, d.exists, truncate(r.body))
			}
			res, err := mcpClients[p].CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"doc": d.id}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || strings.Contains(fmt.Sprint(res.Content[0].(*mcp.TextContent).Text), d.marker) {
				t.Fatalf("after %s: %s fetches %s over MCP (access %v, exists %v): %v", op, p, d.id, d.access, d.exists, res.Content)
			}
		}
	}
	var counts [6]int
	for i := range ops {
		d := docs[rng.IntN(len(docs))]
		var op string
		switch k := rng.IntN(10); {
		case k == 0:
			gate.stopped.Store(!gate.stopped.Load())
			op = fmt.Sprintf("model stopped=%v", gate.stopped.Load())
			counts[0]++
		case k <= 3:
			a := randomAccess()
			r := e.do(call{method: "PATCH", path: "/v1/documents/" + d.id, key: admin, body: mustJSON(t, map[string]any{"access": orEmpty(a)}), contentType: "application/json"})
			op = fmt.Sprintf("PATCH %s access %v", d.id, a)
			switch {
			case r.status == http.StatusOK || r.status == http.StatusAccepted:
				d.access = a
			case r.status == http.StatusNotFound && !d.exists:
			default:
				t.Fatalf("%s: %d %s", op, r.status, r.body)
			}
			counts[1]++
		case k <= 5:
			a := randomAccess()
			r := e.do(call{method: "PUT", path: "/v1/documents/" + d.id, key: admin,
				body: mustJSON(t, httpapi.DocumentRequest{Text: text(d), Format: "markdown", Access: a}), contentType: "application/json"})
			op = fmt.Sprintf("PUT %s same text, access %v", d.id, a)
			if r.status != http.StatusOK && r.status != http.StatusAccepted {
				t.Fatalf("%s: %d %s", op, r.status, r.body)
			}
			d.access, d.exists = a, true
			counts[2]++
		case k <= 7:
			a := randomAccess()
			d.version++
			r := e.do(call{method: "PUT", path: "/v1/documents/" + d.id, key: admin,
				body: mustJSON(t, httpapi.DocumentRequest{Text: text(d), Format: "markdown", Access: a}), contentType: "application/json"})
			op = fmt.Sprintf("PUT %s new text, access %v", d.id, a)
			if r.status != http.StatusAccepted {
				t.Fatalf("%s: %d %s", op, r.status, r.body)
			}
			d.access, d.exists = a, true
			counts[3]++
		case k == 8:
			r := e.do(call{method: "DELETE", path: "/v1/documents/" + d.id, key: admin})
			op = "DELETE " + d.id
			if r.status >= 300 && r.status != http.StatusNotFound {
				t.Fatalf("%s: %d %s", op, r.status, r.body)
			}
			d.exists = false
			counts[4]++
		default:
			// Let the jobs run a while (slow model, or failing ones).
			time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
			op = fmt.Sprintf("wait (op %d)", i)
			counts[5]++
		}
		for _, d := range docs {
			check(op, d)
		}
	}
	t.Logf("%d operations (%d model toggles, %d PATCH, %d PUT same text, %d PUT new text, %d DELETE, %d waits), %d reads by principals outside the access",
		ops, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], reads)
}

func orEmpty(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

// TestSameTextPutSupersedesQueuedText: a PUT of the stored text while a
// job for another text is still running replaces that upload, so the job
// is superseded and the last accepted text stays indexed.
func TestSameTextPutSupersedesQueuedText(t *testing.T) {
	cz, _, _ := newLLMContextualizer(t, 300*time.Millisecond)
	e := newEnv(t, envOptions{auth: true, contextualizer: cz})
	admin := e.key("t1", nil, true, true)
	text := func(word string) string {
		return "# Plan\n\nThe " + word + " office opens in spring.\n\n" + strings.Repeat("Parking is behind the boathouse, beside the old ferry landing. ", 60)
	}
	e.wait(admin, e.upsert(admin, "plan.md", httpapi.DocumentRequest{Text: text("lakeside"), Format: "markdown"}))
	slow := e.upsert(admin, "plan.md", httpapi.DocumentRequest{Text: text("harbour"), Format: "markdown"}) // its job calls the slow model
	r := e.do(call{method: "PUT", path: "/v1/documents/plan.md", key: admin, body: mustJSON(t, httpapi.DocumentRequest{Text: text("lakeside"), Format: "markdown"}), contentType: "application/json"})
	if r.status != http.StatusAccepted {
		t.Fatalf("the stored text again while another text is queued: %d %s, want 202 (replacing the queued text)", r.status, r.body)
	}
	var up httpapi.UpsertResponse
	r.json(t, &up)
	e.wait(admin, slow)
	e.wait(admin, up.Job.ID)
	if res := e.search(admin, httpapi.SearchRequest{Query: "harbour office", K: 5}); slices.ContainsFunc(res.Results, func(h httpapi.SearchResult) bool { return strings.Contains(h.Text, "harbour office") }) {
		t.Error("the superseded text was indexed after the request that replaced it")
	}
}

// TestJobReadUnderCurrentAccess: a job is read under its document's access
// as it is now, so after a PATCH shuts a key out, the job no longer names
// the document to it.
func TestJobReadUnderCurrentAccess(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	admin := e.key("t1", nil, true, true)
	alice := e.key("t1", []string{"alice"}, false, false)
	job := e.upsert(admin, "plan.md", httpapi.DocumentRequest{Text: "The lakeside office opens in spring."})
	e.wait(admin, job)
	path := "/v1/jobs/" + itoa(job)
	if r := e.do(call{method: "GET", path: path, key: alice}); r.status != http.StatusOK {
		t.Fatalf("alice reads the job of a public document: %d", r.status)
	}
	if r := e.do(call{method: "PATCH", path: "/v1/documents/plan.md", key: admin, body: []byte(`{"access":["hr"]}`), contentType: "application/json"}); r.status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.status, r.body)
	}
	if r := e.do(call{method: "GET", path: path, key: alice}); r.status != http.StatusNotFound {
		t.Errorf("alice reads the job after the access change: %d %s, want 404", r.status, r.body)
	}
}
