package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/httpapi"
)

// Tenants and keys on PostgreSQL, end to end, with two stateless servers:
// keys are created with `situate keys create --store-url`; two `situate
// serve --store-url` instances run no jobs, a `situate worker --tenant` per
// tenant runs them, and `situate index --queue --tenant` feeds one tenant
// from files. A document upserted through server 1 is found through server
// 2 once its job is done; a key of tenant A never sees tenant B's
// documents, on either server (404, not 403, for a document id that exists
// only in the other tenant, and different content for an id both hold); a
// key revoked by `situate keys revoke` stops working on both servers within
// httpapi.KeyCacheTTL, while the other tenant's key keeps working.
func TestServeTenantsSharedStore(t *testing.T) {
	if testing.Short() {
		t.Skip("two serve processes, two workers and PostgreSQL: not in -short")
	}
	pg := startPostgres(t)
	ctx := context.Background()
	db, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyA := createKey(t, dir, "k", "--store-url", db, "--tenant", "acme", "--admin")
	keyB := createKey(t, dir, "k", "--store-url", db, "--tenant", "bolt", "--admin")
	readerA := createKey(t, dir, "k", "--store-url", db, "--tenant", "acme", "--principals", "alice")
	if out, _ := mustRun(t, dir, "keys", "list", "--store", "k", "--store-url", db); !strings.Contains(out, "acme") || !strings.Contains(out, "bolt") {
		t.Fatalf("keys list over the shared store:\n%s", out)
	}
	if code, _, errOut := run(t, dir, "worker", "--store-url", db, "--tenant", "../x"); code != exitUsage || !strings.Contains(errOut, "--tenant") {
		t.Errorf("worker with a bad tenant name: exit %d %s", code, errOut)
	}

	serveArgs := func() []string {
		return []string{"--store", t.TempDir(), "--store-url", db, "--workers", "0", "--log-level", "info"}
	}
	s1 := startServeProc(t, freeAddr(t), serveArgs()...)
	s2 := startServeProc(t, freeAddr(t), serveArgs()...)
	bin := situateBin(t, "")
	for _, tenant := range []string{"acme", "bolt"} {
		startWorker(t, bin, t.TempDir(), []string{"worker", "--store-url", db, "--tenant", tenant, "--poll", "100ms", "--log-level", "warn"})
	}

	// Through server 1: a document only acme has, and one id both tenants
	// hold with different text. Acme's secret document is readable by
	// principal "finance" only.
	upsert := func(s *server, key, id string, doc map[string]any) int64 {
		t.Helper()
		code, body, err := s.do("PUT", "/v1/documents/"+id, key, doc)
		if err != nil || code != http.StatusAccepted {
			t.Fatalf("PUT %s: %d %s %v", id, code, body, err)
		}
		var ur struct {
			Job struct {
				ID int64 `json:"id"`
			} `json:"job"`
		}
		json.Unmarshal(body, &ur)
		return ur.Job.ID
	}
	waitDone := func(s *server, key string, job int64) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			code, body, _ := s.do("GET", fmt.Sprintf("/v1/jobs/%d", job), key, nil)
			if code == 200 && strings.Contains(string(body), `"done"`) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %d not done: %d %s", job, code, body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	jobs := []int64{
		upsert(s1, keyA, "acme/ledger.md", map[string]any{"text": "# Ledger\n\nThe zanzibarquay ledger of acme lists the quarterly tolls.", "access": []string{"finance"}}),
		upsert(s1, keyA, "shared.md", map[string]any{"text": "# Shared\n\nAcme's copy speaks of the zanzibarquay lighthouse."}),
	}
	jb := upsert(s1, keyB, "shared.md", map[string]any{"text": "# Shared\n\nBolt's copy speaks of the zanzibarquay ferry."})
	// Bolt also gets files queued from the command line.
	files := filepath.Join(dir, "bolt-docs")
	os.MkdirAll(files, 0o755)
	os.WriteFile(filepath.Join(files, "manifest.md"), []byte("# Manifest\n\nThe zanzibarquay manifest of bolt lists the cargo.\n"), 0o644)
	if _, errOut := mustRun(t, dir, "index", "--queue", "--tenant", "bolt", "--store", "q", "--store-url", db, files); !strings.Contains(errOut, "queued 1 document") {
		t.Errorf("index --queue --tenant bolt:\n%s", errOut)
	}
	for _, j := range jobs {
		waitDone(s2, keyA, j) // the job is readable through the other server
	}
	waitDone(s2, keyB, jb)

	type hit struct{ Doc, Text string }
	searchOn := func(s *server, key string) []hit {
		t.Helper()
		code, body, err := s.do("POST", "/v1/search", key, map[string]any{"query": "zanzibarquay", "k": 10})
		if err != nil || code != 200 {
			t.Fatalf("search: %d %s %v", code, body, err)
		}
		var sr httpapi.SearchResponse
		if err := json.Unmarshal(body, &sr); err != nil {
			t.Fatal(err)
		}
		var out []hit
		for _, r := range sr.Results {
			out = append(out, hit{r.Doc, r.Text})
		}
		return out
	}
	// Server 2 finds the documents once it synced (every
	// httpapi.DefaultSyncInterval), each tenant only its own.
	want := map[string]int{keyA: 2, keyB: 2}
	for _, s := range []*server{s2, s1} {
		for key, n := range want {
			deadline := time.Now().Add(3*httpapi.DefaultSyncInterval + 5*time.Second)
			var hits []hit
			for {
				if hits = searchOn(s, key); len(hits) >= n || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if len(hits) != n {
				t.Errorf("%s: %d hits, want %d: %+v", s.url, len(hits), n, hits)
			}
			for _, h := range hits {
				isA := strings.Contains(h.Text, "acme") || strings.Contains(h.Text, "Acme")
				isB := strings.Contains(h.Text, "bolt") || strings.Contains(h.Text, "Bolt")
				if key == keyA && isB || key == keyB && isA {
					t.Errorf("%s: a key of one tenant found the other's text: %+v", s.url, h)
				}
			}
		}
		// The reader of acme without "finance" does not see the ledger.
		for _, h := range searchOn(s, readerA) {
			if h.Doc == "acme/ledger.md" {
				t.Errorf("%s: principal alice found a document for finance only", s.url)
			}
		}
		for _, c := range []struct {
			key, id string
			code    int
			has     string
		}{
			{keyA, "acme/ledger.md", 200, "ledger of acme"},
			{keyB, "acme/ledger.md", 404, ""},    // only in the other tenant: not found, not forbidden
			{readerA, "acme/ledger.md", 404, ""}, // not readable by alice: not found either
			{keyB, "manifest.md", 200, "manifest of bolt"},
			{keyA, "manifest.md", 404, ""},
			{keyA, "shared.md", 200, "Acme's copy"},
			{keyB, "shared.md", 200, "Bolt's copy"},
		} {
			code, body, _ := s.do("GET", "/v1/documents/"+c.id+"?chunks=true", c.key, nil)
			if code != c.code || !strings.Contains(string(body), c.has) {
				t.Errorf("%s: GET %s with the %s key: %d %.200s", s.url, c.id, tenantOf(c.key, keyA, keyB), code, body)
			}
			if c.code == 404 && (strings.Contains(string(body), "acme") || strings.Contains(string(body), "bolt")) {
				t.Errorf("%s: the 404 reveals content: %s", s.url, body)
			}
		}
		code, body, _ := s.do("GET", "/v1/documents", keyB, nil)
		if code != 200 || strings.Contains(string(body), "ledger") || !strings.Contains(string(body), "manifest.md") {
			t.Errorf("%s: bolt's document list: %d %s", s.url, code, body)
		}
	}

	if t.Failed() {
		t.Logf("s1 %s log:\n%s", s1.url, s1.logs)
		t.Logf("s2 %s log:\n%s", s2.url, s2.logs)
	}
	// Revoke acme's admin key from a third process.
	id := strings.SplitN(keyA, "_", 3)[1]
	mustRun(t, dir, "keys", "revoke", "--store", "k", "--store-url", db, id)
	revoked := time.Now()
	for _, s := range []*server{s1, s2} {
		for {
			code, _, _ := s.do("GET", "/v1/documents", keyA, nil)
			if code == http.StatusUnauthorized {
				break
			}
			if time.Since(revoked) > httpapi.KeyCacheTTL+2*time.Second {
				t.Fatalf("%s: the revoked key still answers %d %s after revocation (cache TTL %s)", s.url, code, time.Since(revoked).Round(time.Millisecond), httpapi.KeyCacheTTL)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("%s refuses the revoked key %s after the revocation", s.url, time.Since(revoked).Round(time.Millisecond))
	}
	for _, s := range []*server{s1, s2} {
		if code, body, _ := s.do("GET", "/v1/documents/shared.md?chunks=true", keyB, nil); code != 200 || !strings.Contains(string(body), "Bolt's copy") {
			t.Errorf("%s: bolt's key after acme's revocation: %d %s", s.url, code, body)
		}
		if code, _, _ := s.do("GET", "/v1/documents", readerA, nil); code != 200 {
			t.Errorf("%s: acme's other key after the admin key's revocation: %d", s.url, code)
		}
	}
}

func tenantOf(key, a, b string) string {
	switch key {
	case a:
		return "acme admin"
	case b:
		return "bolt admin"
	}
	return "acme reader"
}
