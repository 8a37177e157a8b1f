package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/situate/situate/provider/anthropic/anthropictest"
	"github.com/situate/situate/sqlite"
)

// The tests in this file and in cost_test.go, contexts_test.go and
// batch_test.go run situate against anthropictest, which stands in for
// api.anthropic.com: the Messages API's wire format (streaming), its prompt
// caching (an entry is readable once the response writing it has started;
// prefixes under the model's minimum are not cached), Message Batches and
// injected faults.

const testModel = "anthropic:claude-sonnet-4-5" // minimum cacheable prefix 1024 tokens

// fakeAPI is a fake Anthropic API and the environment pointing situate at it.
type fakeAPI struct {
	srv  *anthropictest.Server
	vars map[string]string
}

func newFakeAPI(t *testing.T, cfg anthropictest.Config) *fakeAPI {
	t.Helper()
	cfg.APIKey = "test-key"
	srv := anthropictest.NewServer(cfg)
	t.Cleanup(srv.Close)
	return &fakeAPI{srv: srv, vars: map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}}
}

// run calls Main in-process with the fake API's environment.
func (f *fakeAPI) run(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string { return f.vars[k] }, workDir: dir}
	code := Main(context.Background(), e, args)
	return code, stdout.String(), stderr.String()
}

func (f *fakeAPI) mustRun(t *testing.T, dir string, args ...string) (string, string) {
	t.Helper()
	code, out, errOut := f.run(t, dir, args...)
	if code != exitOK {
		t.Fatalf("situate %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out, errOut
}

// command returns the test binary as "situate args..." with the fake API's
// environment.
func (f *fakeAPI) command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SITUATE_TEST_AS_MAIN=1")
	for k, v := range f.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// writeLongCorpus writes n English Markdown documents of about 1500
// tokens (by anthropictest's bytes/4 count), long enough to be cached by
// Sonnet (1024 tokens), each split into about four chunks.
func writeLongCorpus(t *testing.T, dir string, n int) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	rng := rand.New(rand.NewPCG(3, 5))
	words := strings.Fields("the harbour ledger shows that quarterly revenue grew while the tower lamp keeper kept the railway freight moving " +
		"past the bell foundry and the observatory telescope during a long winter when the supply road over the mountain river dam " +
		"and its turbine served the village council whose archive records every decision")
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# Entity%03d Works\n\nEntity%03d Works is a company founded in %d in the village of Harbourton.\n\n", i, i, 1850+i)
		for s := range 12 {
			fmt.Fprintf(&b, "## Part %d\n\n", s+1)
			for range 75 {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			b.WriteString("end.\n\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%03d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// storeStats reads a store's counts.
func storeStats(t *testing.T, store string) sqlite.Stats {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(store, storeFile))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func usageOf(t *testing.T, f *fakeAPI, dir, store string) usageJSON {
	t.Helper()
	out, _ := f.mustRun(t, dir, "usage", "--store", store, "--json")
	var u usageJSON
	if err := json.Unmarshal([]byte(out), &u); err != nil {
		t.Fatalf("usage --json: %v\n%s", err, out)
	}
	return u
}

func usageGroup(u usageJSON, op string) usageTotalsJSON {
	for _, g := range u.Groups {
		if g.Operation == op {
			return g
		}
	}
	return usageTotalsJSON{}
}

// TestUsageAfterLLMIndex indexes with the LLM and checks "situate usage"
// against what the server saw: one call per chunk, cache reads for the
// calls after a document's first, tokens as the server counted them.
func TestUsageAfterLLMIndex(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 6)
	f := newFakeAPI(t, anthropictest.Config{FirstTokenDelay: 2 * time.Millisecond, StreamDelay: 10 * time.Millisecond})
	store := filepath.Join(dir, "store")
	f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, corpus)
	chunks := storeStats(t, store).Chunks
	u := usageOf(t, f, dir, store)
	g := usageGroup(u, "context")
	st := f.srv.Stats()
	t.Logf("%d chunks; usage: %+v; server: %+v", chunks, g, st)
	if g.Calls != chunks || st.Messages != chunks {
		t.Errorf("usage shows %d calls, server saw %d, want one per chunk (%d)", g.Calls, st.Messages, chunks)
	}
	if g.CacheReadTokens == 0 || g.CacheReadTokens != int64(st.CacheReadTokens) {
		t.Errorf("cache read tokens: usage %d, server %d, want equal and > 0", g.CacheReadTokens, st.CacheReadTokens)
	}
	if g.CacheWriteTokens != int64(st.CacheWriteTokens) || g.OutputTokens != int64(st.OutputTokens) {
		t.Errorf("usage cache writes %d / output %d, server %d / %d", g.CacheWriteTokens, g.OutputTokens, st.CacheWriteTokens, st.OutputTokens)
	}
	if g.CacheReadShare <= 0.5 || g.CostUSD <= 0 || g.Errors != 0 || g.LatencyP50Ms <= 0 || g.LatencyP99Ms < g.LatencyP50Ms {
		t.Errorf("implausible usage line: %+v", g)
	}
	out, _ := f.mustRun(t, dir, "usage", "--store", store)
	t.Logf("situate usage:\n%s", out)
	if !strings.Contains(out, "anthropic:claude-sonnet-4-5") || !strings.Contains(out, "read share") {
		t.Errorf("usage table:\n%s", out)
	}
	out, _ = f.mustRun(t, dir, "usage", "--store", store, "--since", "1ns", "--json")
	var recent usageJSON
	if err := json.Unmarshal([]byte(out), &recent); err != nil || recent.Total.Calls != 0 || recent.Since == nil {
		t.Errorf("--since 1ns: %v\n%s", err, out)
	}
	if code, _, _ := f.run(t, dir, "usage", "--store", filepath.Join(dir, "nostore")); code != exitFailure {
		t.Errorf("usage without a store: exit %d", code)
	}
}

// TestKilledLLMIndexResumes SIGKILLs "situate index --llm" at random
// moments (20 trials) and reruns it: the store must equal an uninterrupted
// run's, and the only calls made twice are those in flight at the kill
// (made but not yet committed to the context cache).
func TestKilledLLMIndexResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary 20 times")
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 6)
	f := newFakeAPI(t, anthropictest.Config{FirstTokenDelay: 3 * time.Millisecond, StreamDelay: 25 * time.Millisecond})
	args := func(store string) []string {
		return []string{"index", "--store", store, "--llm", testModel, "--llm-concurrency", "4", "--parallel", "2", "--quiet", corpus}
	}
	ref := filepath.Join(dir, "ref")
	start := time.Now()
	f.mustRun(t, dir, args(ref)...)
	full := time.Since(start)
	want := dumpStore(t, ref)
	chunks := storeStats(t, ref).Chunks
	const maxInFlight = 2 * 4 // --parallel x --llm-concurrency

	rng := rand.New(rand.NewPCG(9, 4))
	const trials = 20
	midway, totalCalls, totalLost := 0, 0, 0
	for trial := range trials {
		store := filepath.Join(dir, fmt.Sprintf("k%d", trial))
		before := f.srv.Stats().Messages
		cmd := f.command(dir, args(store)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the run's first call (start-up time varies by machine),
		// then kill it at a random point of the rest of the run.
		for deadline := time.Now().Add(10 * time.Second); f.srv.Stats().Messages == before && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(int(full/time.Millisecond)/2+1)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		calls := f.srv.Stats().Messages - before
		committed := 0
		if _, err := os.Stat(filepath.Join(store, storeFile)); err == nil {
			committed = storeStats(t, store).CachedContexts
		}
		lost := calls - committed
		if lost < 0 || lost > maxInFlight {
			t.Errorf("trial %d: %d calls, %d committed: %d lost, want 0..%d (calls in flight)", trial, calls, committed, lost, maxInFlight)
		}
		if calls > 0 && committed < chunks {
			midway++ // killed after its first call, before its last commit
		}
		before = f.srv.Stats().Messages
		f.mustRun(t, dir, args(store)...)
		rerun := f.srv.Stats().Messages - before
		if rerun != chunks-committed {
			t.Errorf("trial %d: rerun made %d calls, want %d (the %d chunks not committed before the kill)", trial, rerun, chunks-committed, chunks-committed)
		}
		totalCalls += calls + rerun
		totalLost += lost
		if got := dumpStore(t, store); got != want {
			t.Fatalf("trial %d: store after SIGKILL + rerun differs from an uninterrupted run", trial)
		}
	}
	t.Logf("%d chunks; uninterrupted run %s; %d of %d kills midway; %d calls in all trials, %d in flight at kills; calls - in flight = %d = %d x chunks",
		chunks, full.Round(time.Millisecond), midway, trials, totalCalls, totalLost, totalCalls-totalLost, (totalCalls-totalLost)/chunks)
	if totalCalls-totalLost != trials*chunks {
		t.Errorf("calls - in flight = %d, want %d (each chunk called once per trial)", totalCalls-totalLost, trials*chunks)
	}
	if midway < trials/2 {
		t.Errorf("only %d of %d kills hit the middle of the run", midway, trials)
	}
}

// readUntil reads r line by line until a line contains want, and returns
// the lines read; it gives up after timeout.
func readUntil(t *testing.T, r *bufio.Reader, want string, timeout time.Duration) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		var b strings.Builder
		for {
			line, err := r.ReadString('\n')
			b.WriteString(line)
			if strings.Contains(line, want) || err != nil {
				done <- b.String()
				return
			}
		}
	}()
	select {
	case s := <-done:
		return s
	case <-time.After(timeout):
		t.Fatalf("no %q within %s", want, timeout)
		return ""
	}
}
