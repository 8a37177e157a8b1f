package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/provider/openai/openaitest"
)

func TestServeRefusesPublicAddressWithoutKeys(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := run(t, dir, "serve", "--store", filepath.Join(dir, "s"), "--addr", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(errOut, "not a loopback address") || !strings.Contains(errOut, "keys create") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestServeRefusesBadLimits(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ flag, value, want string }{
		{"--chunk-cache", "-1", "--chunk-cache -1: want 0 (off)"},
		{"--max-searches", "-2", "--max-searches -2: want -1"},
		{"--search-queue-timeout", "0s", "--search-queue-timeout 0s: must be > 0"},
	} {
		code, _, errOut := run(t, dir, "serve", "--store", filepath.Join(dir, "s"), c.flag, c.value)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s %s: exit %d: %s", c.flag, c.value, code, errOut)
		}
	}
}

func TestKeysCommands(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s")
	secret, errOut := mustRun(t, dir, "keys", "create", "--store", store, "--tenant", "acme", "--principals", "alice,eng", "--name", "ci")
	secret = strings.TrimSpace(secret)
	if !strings.HasPrefix(secret, "sk_") || !strings.Contains(errOut, "shown once") {
		t.Fatalf("create: %q %q", secret, errOut)
	}
	id := strings.Split(secret, "_")[1]
	list, _ := mustRun(t, dir, "keys", "list", "--store", store)
	if !strings.Contains(list, id) || !strings.Contains(list, "alice,eng") || strings.Contains(list, secret) || strings.Contains(list, strings.Split(secret, "_")[2]) {
		t.Fatalf("list shows the secret or lacks the key:\n%s", list)
	}
	mustRun(t, dir, "keys", "revoke", "--store", store, id)
	if list, _ := mustRun(t, dir, "keys", "list", "--store", store); !strings.Contains(list, id) || strings.Count(list, "-\n") > 0 && !strings.Contains(list, "20") {
		t.Fatalf("list after revoke:\n%s", list)
	}
	if code, _, errOut := run(t, dir, "keys", "create", "--store", store, "--tenant", "../etc"); code != exitUsage || !strings.Contains(errOut, "tenant") {
		t.Errorf("bad tenant: exit %d %s", code, errOut)
	}
	if code, _, errOut := run(t, dir, "keys", "revoke", "--store", store, "nope"); code != exitFailure || !strings.Contains(errOut, "no key") {
		t.Errorf("revoke unknown: exit %d %s", code, errOut)
	}
}

// server is a situate serve process.
type server struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	logs *bytes.Buffer
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startServeProc(t *testing.T, addr string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Env = append(os.Environ(), "SITUATE_TEST_AS_MAIN=1")
	logs := &bytes.Buffer{}
	cmd.Stderr = &lockedWriter{w: logs}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, url: "http://" + addr, logs: logs}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := http.Get(s.url + "/readyz"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return s
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("serve did not become ready:\n%s", logs)
	return nil
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (s *server) do(method, path, key string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// TestServeRestart SIGKILLs the server while jobs call the LLM and a client
// uploads, restarts it, and checks that every acknowledged upsert is indexed
// once, every job reaches done, and no LLM call is repeated for a context
// the store already held.
func TestServeRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts situate serve three times and an LLM fake; not in -short")
	}
	fake := openaitest.NewServer(openaitest.Config{Flavor: "vllm", Model: "test-model", FirstChunkDelay: 15 * time.Millisecond})
	defer fake.Close()
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	secret, _ := mustRun(t, dir, "keys", "create", "--store", store, "--tenant", "acme", "--admin")
	key := strings.TrimSpace(secret)
	addr := freeAddr(t)
	args := []string{"--store", store, "--llm", "vllm:test-model", "--llm-base-url", fake.URL + "/v1",
		"--llm-concurrency", "2", "--workers", "2", "--chunk-size", "40", "--chunk-overlap", "0"}
	srv := startServeProc(t, addr, args...)

	type ack struct {
		id     string
		job    int64
		marker string
	}
	var (
		mu     sync.Mutex
		acked  []ack
		failed int
	)
	upload := func(s *server, i int) {
		id := fmt.Sprintf("docs/d%03d.md", i)
		marker := fmt.Sprintf("zmark%03dz", i)
		var text strings.Builder
		fmt.Fprintf(&text, "# Report %d\n\n%s opens the report.", i, marker)
		for p := range 4 {
			fmt.Fprintf(&text, "\n\nParagraph %d of report %d describes the harbour, the tide gauge and the granite quay in some detail so that it is a chunk of its own.", p, i)
		}
		code, body, err := s.do("PUT", "/v1/documents/"+id, key, httpapi.DocumentRequest{Text: text.String(), Format: "markdown"})
		mu.Lock()
		defer mu.Unlock()
		if err != nil || code != 202 {
			failed++ // not acknowledged: may or may not be stored
			return
		}
		var ur httpapi.UpsertResponse
		if err := json.Unmarshal(body, &ur); err != nil {
			t.Errorf("upsert %s: %v", id, err)
			return
		}
		acked = append(acked, ack{id, ur.Job.ID, marker})
	}
	// Upload while jobs run; kill once LLM calls are under way and the
	// client is still sending.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	next := 0
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			upload(srv, next)
			next++
		}
	}()
	for fake.Stats().Chat < 20 {
		time.Sleep(5 * time.Millisecond)
	}
	callsAtKill := fake.Stats().Chat
	srv.cmd.Process.Kill() // SIGKILL
	srv.cmd.Wait()
	close(stop)
	wg.Wait()
	mu.Lock()
	ackedBefore := len(acked)
	mu.Unlock()
	if ackedBefore == 0 {
		t.Fatal("nothing was acknowledged before the kill")
	}

	// Restart; upload some more; every acknowledged job reaches done.
	srv = startServeProc(t, addr, args...)
	for i := next; i < next+5; i++ {
		upload(srv, i)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for _, a := range acked {
		for {
			code, body, err := srv.do("GET", fmt.Sprintf("/v1/jobs/%d", a.job), key, nil)
			var j httpapi.JobView
			if err == nil && code == 200 && json.Unmarshal(body, &j) == nil && j.State == "done" {
				break
			}
			if err == nil && code == 200 && j.State == "failed" {
				t.Fatalf("job %d of %s failed: %s", a.job, a.id, j.Error)
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %d of %s: %d %s\n%s", a.job, a.id, code, body, srv.logs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Every acknowledged upsert is there, as uploaded, version 1, with LLM
	// contexts on every chunk.
	for _, a := range acked {
		code, body, err := srv.do("GET", "/v1/documents/"+a.id+"?chunks=true", key, nil)
		var d httpapi.Document
		if err != nil || code != 200 || json.Unmarshal(body, &d) != nil {
			t.Fatalf("acknowledged %s missing after restart: %d %s", a.id, code, body)
		}
		if d.Version != 1 || len(d.ChunkList) < 3 || !strings.Contains(d.ChunkList[0].Text, a.marker) {
			t.Errorf("%s: version %d, %d chunks", a.id, d.Version, len(d.ChunkList))
		}
		for _, c := range d.ChunkList {
			if c.Contextualizer != "vllm:test-model" || len(c.Flags) > 0 {
				t.Errorf("%s chunk %d: context by %q flags %v", a.id, c.Index, c.Contextualizer, c.Flags)
			}
		}
	}
	// No call repeated for a stored context: a prompt is sent twice only
	// when its call was in flight at the kill (2 workers × 2 calls).
	seen := map[string]int{}
	repeats := 0
	for _, r := range fake.Requests() {
		if !strings.HasSuffix(r.Path, "/chat/completions") {
			continue
		}
		var body struct {
			Messages  []struct{ Content string } `json:"messages"`
			CacheSalt string                     `json:"cache_salt"`
		}
		json.Unmarshal(r.Body, &body)
		if body.CacheSalt != "situate-tenant-acme" {
			t.Errorf("chat request with cache_salt %q, want the tenant's", body.CacheSalt)
		}
		var prompt strings.Builder
		for _, m := range body.Messages {
			prompt.WriteString(m.Content)
		}
		if seen[prompt.String()]++; seen[prompt.String()] > 1 {
			repeats++
		}
	}
	if repeats > 4 {
		t.Errorf("%d prompts repeated after the restart; at most the 4 calls in flight at the kill may be", repeats)
	}
	t.Logf("%d upserts acknowledged before the kill (%d not acknowledged), %d after; %d LLM calls at the kill, %d in all, %d repeated",
		ackedBefore, failed, len(acked)-ackedBefore, callsAtKill, fake.Stats().Chat, repeats)
}

// TestServeGracefulShutdown stops the server with SIGTERM while a job calls
// a slow LLM: it exits cleanly, the job goes back to the queue, and the
// restarted server finishes it without repeating the calls that finished.
func TestServeGracefulShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts situate serve twice and an LLM fake; not in -short")
	}
	fake := openaitest.NewServer(openaitest.Config{Flavor: "vllm", Model: "test-model", FirstChunkDelay: 150 * time.Millisecond})
	defer fake.Close()
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	addr := freeAddr(t)
	args := []string{"--store", store, "--llm", "vllm:test-model", "--llm-base-url", fake.URL + "/v1",
		"--llm-concurrency", "1", "--chunk-size", "40", "--chunk-overlap", "0"}
	srv := startServeProc(t, addr, args...)
	var text strings.Builder
	text.WriteString("# Long report\n")
	for p := range 12 {
		fmt.Fprintf(&text, "\nParagraph %d describes the harbour, the tide gauge and the granite quay in enough detail to be a chunk.\n", p)
	}
	code, body, err := srv.do("PUT", "/v1/documents/long.md", "", httpapi.DocumentRequest{Text: text.String(), Format: "markdown"})
	if err != nil || code != 202 {
		t.Fatalf("upsert: %d %s %v", code, body, err)
	}
	var ur httpapi.UpsertResponse
	json.Unmarshal(body, &ur)
	for fake.Stats().Chat < 3 {
		time.Sleep(10 * time.Millisecond)
	}
	srv.cmd.Process.Signal(syscall.SIGTERM)
	if err := srv.cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, srv.logs)
	}
	if !strings.Contains(srv.logs.String(), "situate serve: stopped") {
		t.Errorf("no clean stop in the log:\n%s", srv.logs)
	}
	callsAtStop := fake.Stats().Chat
	srv = startServeProc(t, addr, args...)
	deadline := time.Now().Add(time.Minute)
	var j httpapi.JobView
	for {
		code, body, err := srv.do("GET", fmt.Sprintf("/v1/jobs/%d", ur.Job.ID), "", nil)
		j = httpapi.JobView{}
		if err == nil && code == 200 && json.Unmarshal(body, &j) == nil && (j.State == "done" || j.State == "failed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not done after restart: %s", body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if j.State != "done" || j.Attempts != 1 || j.Change != "added" {
		t.Errorf("job after a graceful restart: %+v (the interrupted attempt must not count)", j)
	}
	// Every chunk called once, but the one in flight at the stop.
	if total := fake.Stats().Chat; total > j.Chunks+1 || callsAtStop >= j.Chunks {
		t.Errorf("%d calls for %d chunks (%d before the stop)", total, j.Chunks, callsAtStop)
	}
	t.Logf("%d chunks; %d calls before SIGTERM, %d in all", j.Chunks, callsAtStop, fake.Stats().Chat)
}
