package httpapi_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/sqlite"
)

// No answer to a key reveals an id it may not read, writes included: a key
// that may write reads its whole tenant (so a 409 tells it nothing it could
// not read), and a key that may only read gets the same refusal for a
// taken id as for a free one.
func TestWritesRevealNoUnreadableID(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	admin := e.key("acme", nil, true, false)
	writer := e.key("acme", nil, false, true)
	reader := e.key("acme", []string{"alice"}, false, false)
	e.wait(admin, e.upsert(admin, "finance/plan.md", httpapi.DocumentRequest{Text: "The Harbourton budget for the pier.", Access: []string{"finance"}}))

	// A write key may not be restricted to principals.
	if _, _, err := httpapi.NewKey("acme", "", []string{"alice"}, false, true); err == nil || !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), "principals") {
		t.Errorf("NewKey(write, principals): %v, want a refusal naming principals", err)
	}

	// The writer reads the restricted document, so the conflict its create
	// meets tells it nothing new.
	if r := e.do(call{method: "GET", path: "/v1/documents/finance/plan.md", key: writer}); r.status != 200 {
		t.Errorf("writer GET of a restricted document: %d %s", r.status, r.body)
	}
	if res := e.search(writer, httpapi.SearchRequest{Query: "Harbourton budget pier", K: 5}); len(res.Results) == 0 || res.Results[0].Doc != "finance/plan.md" {
		t.Errorf("writer search: %+v", res.Results)
	}
	if r := e.do(call{method: "POST", path: "/v1/documents", key: writer, body: `{"id":"finance/plan.md","text":"x"}`}); r.status != 409 {
		t.Errorf("writer create over a taken id: %d %s", r.status, r.body)
	}

	// The reader: a taken id it may not read and a free id get the same
	// answers, byte for byte but for the request id.
	same := func(what string, taken, free call) {
		t.Helper()
		a, b := e.do(taken), e.do(free)
		ea, eb := a.errBody(t), b.errBody(t)
		ea.RequestID, eb.RequestID = "", ""
		if a.status != b.status || ea != eb {
			t.Errorf("%s: taken id %d %+v, free id %d %+v", what, a.status, ea, b.status, eb)
		}
	}
	same("reader create", call{method: "POST", path: "/v1/documents", key: reader, body: `{"id":"finance/plan.md","text":"x"}`},
		call{method: "POST", path: "/v1/documents", key: reader, body: `{"id":"finance/free.md","text":"x"}`})
	same("reader put", call{method: "PUT", path: "/v1/documents/finance/plan.md", key: reader, body: `{"text":"x"}`},
		call{method: "PUT", path: "/v1/documents/finance/free.md", key: reader, body: `{"text":"x"}`})
	same("reader get", call{method: "GET", path: "/v1/documents/finance/plan.md", key: reader},
		call{method: "GET", path: "/v1/documents/finance/free.md", key: reader})
	same("reader delete", call{method: "DELETE", path: "/v1/documents/finance/plan.md", key: reader},
		call{method: "DELETE", path: "/v1/documents/finance/free.md", key: reader})

	// A write key restricted to principals, stored by an older version,
	// keeps reading as its principals and may no longer write: it too
	// learns nothing from a taken id.
	secret, k, err := httpapi.NewKey("acme", "", nil, false, true)
	if err != nil {
		t.Fatal(err)
	}
	k.Principals = []string{"alice"}
	if err := e.keys.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	if r := e.do(call{method: "GET", path: "/v1/documents/finance/plan.md", key: secret}); r.status != 404 {
		t.Errorf("restricted legacy writer reads the finance document: %d", r.status)
	}
	same("restricted legacy writer create", call{method: "POST", path: "/v1/documents", key: secret, body: `{"id":"finance/plan.md","text":"x"}`},
		call{method: "POST", path: "/v1/documents", key: secret, body: `{"id":"finance/free.md","text":"x"}`})
	if docs := e.srvDocs("acme"); len(docs) != 1 {
		t.Errorf("documents after the refused writes: %v", docs)
	}
}

// A key revoked through the server's key store stops working at once; one
// revoked by another process (another Store on the same database, as
// "situate keys revoke" is) within KeyCacheTTL.
func TestRevocationImmediate(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	ctx := context.Background()
	status := func(key string) int {
		return e.do(call{method: "GET", path: "/v1/status", key: key}).status
	}
	a := e.key("acme", nil, true, false)
	if s := status(a); s != 200 {
		t.Fatalf("fresh key: %d", s)
	}
	if err := e.keys.RevokeKey(ctx, strings.Split(a, "_")[1]); err != nil {
		t.Fatal(err)
	}
	if s := status(a); s != 401 {
		t.Errorf("key revoked in this process still works: %d", s)
	}

	if testing.Short() {
		t.Skip("the cross-process bound waits for the key cache")
	}
	b := e.key("acme", nil, true, false)
	if s := status(b); s != 200 {
		t.Fatalf("fresh key: %d", s)
	}
	other, err := sqlite.Open(ctx, filepath.Join(e.dir, "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.RevokeKey(ctx, strings.Split(b, "_")[1]); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	for status(b) == 200 {
		if time.Since(revoked) > httpapi.KeyCacheTTL+500*time.Millisecond {
			t.Fatalf("key revoked by another process still works after %v", time.Since(revoked))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("key revoked by another process refused after %v (bound %v)", time.Since(revoked).Round(time.Millisecond), httpapi.KeyCacheTTL)
}

// A request that outlasts Limits.RequestTimeout is answered 503 timeout
// when its time runs out, and the server goes on serving.
func TestRequestTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	slow := make(chan struct{})
	e := newEnv(t, envOptions{auth: true, limits: httpapi.Limits{RequestTimeout: timeout},
		parse: func(ctx context.Context, src driver.Upload) (situate.Document, error) {
			if src.Name == "slow.txt" {
				close(slow)
				<-ctx.Done() // a parse that takes as long as it is allowed to
				return situate.Document{}, ctx.Err()
			}
			return parseSource(ctx, src)
		}})
	admin := e.key("acme", nil, true, false)
	body, ct := multipartBody(t, httpapi.DocumentRequest{Title: "slow"}, "slow.txt", []byte("slow to parse"))
	start := time.Now()
	r := e.do(call{method: "PUT", path: "/v1/documents/slow.txt", key: admin, body: body, contentType: ct})
	took := time.Since(start)
	<-slow
	if r.status != 503 || r.errBody(t).Code != "timeout" {
		t.Fatalf("slow request: %d %s, want 503 timeout", r.status, r.body)
	}
	if took < timeout || took > timeout+5*time.Second {
		t.Errorf("answered after %v, want just over the %v timeout", took, timeout)
	}
	if docs := e.srvDocs("acme"); len(docs) != 0 {
		t.Errorf("timed-out upload stored: %v", docs)
	}
	if r := e.do(call{method: "GET", path: "/v1/status", key: admin}); r.status != 200 {
		t.Errorf("after a timeout: %d", r.status)
	}
}

// Searches beyond Limits.MaxSearches wait their turn; one that waits longer
// than Limits.SearchQueueTimeout is answered 503 overloaded with
// Retry-After (a response the OpenAPI document describes), counted in
// /metrics, and the server serves again once the running searches end.
func TestSearchQueueOverloaded(t *testing.T) {
	e := newEnv(t, envOptions{auth: true, limits: httpapi.Limits{MaxSearches: 1, SearchQueueTimeout: 100 * time.Millisecond}})
	admin := e.key("acme", nil, true, false)
	e.wait(admin, e.upsert(admin, "a.md", httpapi.DocumentRequest{Text: "The Harbourton pier budget."}))
	release := e.srv.HoldSearches(1)
	r := e.do(call{method: "POST", path: "/v1/search", key: admin, body: httpapi.SearchRequest{Query: "Harbourton pier"}})
	if r.status != 503 || r.errBody(t).Code != "overloaded" || r.header.Get("Retry-After") == "" {
		t.Fatalf("search while the only slot is taken: %d %s (Retry-After %q), want 503 overloaded", r.status, r.body, r.header.Get("Retry-After"))
	}
	// Other routes do not queue.
	if r := e.do(call{method: "GET", path: "/v1/documents/a.md", key: admin}); r.status != 200 {
		t.Errorf("get while searches are full: %d", r.status)
	}
	// The queue is the process's: a server key sees its series.
	ops, k, err := httpapi.NewServerKey("ops")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.keys.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	m := e.do(call{method: "GET", path: "/metrics", key: ops})
	if !strings.Contains(string(m.body), "situate_search_queue_rejected_total 1") || !strings.Contains(string(m.body), "situate_search_queue_waiting 0") {
		t.Errorf("metrics lack the queue's rejection and depth:\n%s", m.body)
	}
	release()
	if res := e.search(admin, httpapi.SearchRequest{Query: "Harbourton pier"}); len(res.Results) != 1 {
		t.Errorf("after the slot is free: %+v", res.Results)
	}
}
