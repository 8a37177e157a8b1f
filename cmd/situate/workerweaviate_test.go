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

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/internal/weaviatetest"
	"github.com/situate/situate/postgres"
)

// A worker with the Weaviate index backend: files queued with `index
// --queue` are contextualized by `situate worker --index weaviate`, which
// writes each chunk with its context to Weaviate (checked through
// Weaviate's own REST API against the contexts in PostgreSQL), and a
// `situate serve --index weaviate` over the same store, which runs no jobs
// and keeps no local index, finds them with their contexts. A change
// queued afterwards replaces the chunk in Weaviate.
func TestWorkerWeaviate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, Weaviate, a worker and a server")
	}
	pg := startPostgres(t)
	wv := weaviatetest.Start(t)
	ctx := context.Background()
	db, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	backend := []string{"--index", "weaviate", "--weaviate-url", wv.URLs()[0]}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	files := map[string]string{
		"anchor.md": "# Anchor\n\nThe anchor chain of the trawler is rusty and the quaymaster wants it replaced.\n",
		"buoy.md":   "# Buoy\n\nThe green buoy light blinks twice at the harbour mouth.\n",
		"gull.md":   "# Gulls\n\nGulls follow the fishing boats back to the pier at dusk.\n",
	}
	for name, text := range files {
		os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644)
	}
	mustRun(t, dir, "index", "--queue", "--store", "q", "--store-url", db, docs)
	bin := situateBin(t, "")
	w := startWorker(t, bin, t.TempDir(), append([]string{"worker", "--store-url", db, "--poll", "100ms", "--log-level", "warn"}, backend...))
	s, err := postgres.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if counts := waitJobs(t, s, len(files), 2*time.Minute, nil); counts[situate.JobDone] != len(files) {
		t.Fatalf("jobs: %v\nworker:\n%s", counts, w.stderr)
	}

	// Weaviate holds every stored chunk with its stored context.
	inWeaviate := func() map[string]string {
		t.Helper()
		resp, err := http.Get(wv.URLs()[0] + "/v1/objects?class=SituateChunks&tenant=default&limit=100")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Objects []struct {
				Properties map[string]any `json:"properties"`
			} `json:"objects"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("list Weaviate objects: %d %v", resp.StatusCode, err)
		}
		m := map[string]string{}
		for _, o := range out.Objects {
			m[fmt.Sprintf("%v#%v", o.Properties["doc_id"], o.Properties["chunk"])] = fmt.Sprint(o.Properties["context"])
		}
		return m
	}
	stored := func() map[string]string {
		t.Helper()
		recs, err := s.Documents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, r := range recs {
			chunks, err := s.Chunks(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range chunks {
				m[fmt.Sprintf("%s#%d", r.ID, c.Index)] = c.Context.Text
			}
		}
		return m
	}
	compare := func(when string) {
		t.Helper()
		got, want := inWeaviate(), stored()
		if len(want) < len(files) {
			t.Fatalf("%s: %d chunks stored", when, len(want))
		}
		for k, v := range want {
			if v == "" {
				t.Errorf("%s: chunk %s has no context", when, k)
			}
			if got[k] != v {
				t.Errorf("%s: chunk %s in Weaviate has context %q, the store %q", when, k, got[k], v)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: Weaviate holds %d chunks, the store %d", when, len(got), len(want))
		}
	}
	compare("after the worker")

	srv := startServeProc(t, freeAddr(t), append([]string{"--store", t.TempDir(), "--store-url", db, "--workers", "0", "--log-level", "warn"}, backend...)...)
	search := func(q string) []httpapi.SearchResult {
		t.Helper()
		code, body, err := srv.do("POST", "/v1/search", "", map[string]any{"query": q, "k": 3})
		if err != nil || code != 200 {
			t.Fatalf("search %q: %d %s %v", q, code, body, err)
		}
		var sr httpapi.SearchResponse
		if err := json.Unmarshal(body, &sr); err != nil {
			t.Fatal(err)
		}
		return sr.Results
	}
	rs := search("anchor chain rusty")
	if len(rs) == 0 || rs[0].Doc != "anchor.md" || rs[0].Context == "" || rs[0].Context != stored()["anchor.md#0"] {
		t.Fatalf("serve over Weaviate: %+v", rs)
	}

	// A change goes through the queue and the worker into Weaviate, and
	// the server finds the new text.
	os.WriteFile(filepath.Join(docs, "buoy.md"), []byte("# Buoy\n\nThe red buoy was towed away by the salvage tug.\n"), 0o644)
	if _, errOut := mustRun(t, dir, "index", "--queue", "--store", "q", "--store-url", db, docs); !strings.Contains(errOut, "1 changed") {
		t.Errorf("queueing the change:\n%s", errOut)
	}
	waitJobs(t, s, len(files)+1, 2*time.Minute, nil)
	compare("after the change")
	deadline := time.Now().Add(3*httpapi.DefaultSyncInterval + 5*time.Second)
	for {
		rs := search("salvage tug")
		if len(rs) > 0 && rs[0].Doc == "buoy.md" && strings.Contains(rs[0].Text, "salvage") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve does not find the changed document: %+v", rs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, r := range search("green buoy blinks") {
		if strings.Contains(r.Text, "green buoy") {
			t.Errorf("serve still finds the old text: %+v", r)
		}
	}

	// check compares Weaviate with the store; a document indexed into the
	// store without the backend is missing there until check --repair.
	checkArgs := append([]string{"check", "--store", "c", "--store-url", db}, backend...)
	if out, _ := mustRun(t, dir, checkArgs...); !strings.Contains(out, "weaviate   ok 3 documents") {
		t.Errorf("check with the backend:\n%s", out)
	}
	os.WriteFile(filepath.Join(docs, "late.md"), []byte("# Late\n\nThe late ferry waits for the tide.\n"), 0o644)
	mustRun(t, dir, "index", "--store", "plain", "--store-url", db, docs)
	if code, out, errOut := run(t, dir, checkArgs...); code == exitOK || !strings.Contains(out, `"late.md"`) || !strings.Contains(errOut, "--repair") {
		t.Errorf("check with a document Weaviate lacks: exit %d\n%s%s", code, out, errOut)
	}
	if out, _ := mustRun(t, dir, append(checkArgs, "--repair")...); !strings.Contains(out, "weaviate   ok 4 documents") {
		t.Errorf("check --repair with the backend:\n%s", out)
	}
	compare("after check --repair")
	w.stop(t)
}
