package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/internal/pgtest"
	"github.com/situate/situate/internal/testskip"
	"github.com/situate/situate/postgres"
	"github.com/situate/situate/provider/openai/openaitest"
)

// startPostgres starts a throw-away PostgreSQL for one test, or skips it
// (fails with SITUATE_REQUIRE_POSTGRES) when the binaries are absent.
func startPostgres(t testing.TB) *pgtest.Server {
	t.Helper()
	srv, err := pgtest.Start(context.Background())
	if err != nil {
		if os.Getenv(pgtest.RequireEnv) != "" {
			t.Fatalf("PostgreSQL is required (%s is set): %v", pgtest.RequireEnv, err)
		}
		testskip.Skipf(t, "PostgreSQL not available: %v", err)
	}
	t.Cleanup(func() { srv.Stop() })
	return srv
}

// fakeVLLM is openaitest's fake of vLLM's OpenAI-compatible chat
// completions server (it stands in for a real vLLM: same wire format, a
// fixed latency per call, deterministic answers) behind a proxy that counts
// the chat calls and how many are in flight.
type fakeVLLM struct {
	fake            *openaitest.Server
	proxy           *httptest.Server
	calls, inflight atomic.Int64
}

func newFakeVLLM(t testing.TB, latency time.Duration) *fakeVLLM {
	f := &fakeVLLM{fake: openaitest.NewServer(openaitest.Config{Flavor: openaitest.FlavorVLLM, Model: "fake-vllm", FirstChunkDelay: latency})}
	target, _ := url.Parse(f.fake.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	f.proxy = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			f.calls.Add(1)
			f.inflight.Add(1)
			defer f.inflight.Add(-1)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { f.proxy.Close(); f.fake.Close() })
	return f
}

// workerCorpus is n documents of about two chunks each (at --chunk-size
// 120), deterministic.
func workerCorpus(n int) []driver.Upload {
	words := strings.Fields("harbour ship tide lantern keeper storm anchor rope sail mast deck cargo crew captain " +
		"island reef gull wave salt compass chart voyage port dock crane barrel net fish trawler engine beacon " +
		"current wind fog horn signal pier quay berth hull keel rudder bow stern galley cabin hatch ballast")
	rng := rand.New(rand.NewPCG(7, 11))
	out := make([]driver.Upload, n)
	for i := range out {
		var b strings.Builder
		for s := range 14 {
			fmt.Fprintf(&b, "Sentence %d of record %d:", s, i)
			for range 12 {
				b.WriteString(" " + words[rng.IntN(len(words))])
			}
			b.WriteString(".\n")
		}
		out[i] = driver.Upload{DocID: fmt.Sprintf("doc-%05d", i), Data: []byte(b.String())}
	}
	return out
}

func enqueueAll(t testing.TB, dbURL string, docs []driver.Upload) {
	t.Helper()
	s, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, d := range docs {
		if _, err := s.EnqueueUpload(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
}

// workerArgs are the arguments of a worker against db and the fake.
func workerArgs(dbURL string, f *fakeVLLM, jobs int, extra ...string) []string {
	return append([]string{"worker", "--store-url", dbURL, "--llm", "vllm:fake-vllm", "--llm-base-url", f.proxy.URL + "/v1",
		"--llm-degenerate", "keep", "--llm-concurrency", "2", "--jobs", fmt.Sprint(jobs), "--lease", "3s", "--poll", "100ms",
		"--chunk-size", "120", "--chunk-overlap", "0", "--log-level", "warn"}, extra...)
}

type workerProc struct {
	cmd    *exec.Cmd
	stderr *strings.Builder
	done   chan error
}

func startWorker(t testing.TB, bin, dir string, args []string) *workerProc {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--store", dir)...)
	w := &workerProc{cmd: cmd, stderr: &strings.Builder{}, done: make(chan error, 1)}
	cmd.Stderr = &syncWriter{b: w.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-w.done
	})
	return w
}

type syncWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// stop ends a worker with SIGTERM and waits for it.
func (w *workerProc) stop(t testing.TB) {
	t.Helper()
	w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-w.done:
		w.done <- err
		if err != nil {
			t.Errorf("worker exited with %v:\n%s", err, w.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("worker did not stop within 30 s of SIGTERM:\n%s", w.stderr)
	}
}

// waitJobs waits until every job is done (or failed), calling tick with
// the done count while it waits.
func waitJobs(t testing.TB, s *postgres.Store, total int, timeout time.Duration, tick func(done int)) map[string]int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		counts, err := s.JobCounts(context.Background())
		if err == nil {
			if counts[situate.JobDone]+counts[situate.JobFailed] >= total {
				return counts
			}
			if tick != nil {
				tick(counts[situate.JobDone])
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs not finished after %s: %v (last error %v)", timeout, counts, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// storeDump is the store's documents, chunks and contexts, one line each,
// without the times that differ between runs.
func storeDump(t testing.TB, dbURL string) (dump string, chunks int) {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, d := range docs {
		lines = append(lines, fmt.Sprintf("doc %s v%d %q %s %s %s chunks=%d", d.ID, d.Version, d.Title, d.Lang, d.Format, d.Hash, d.Chunks))
		cs, err := s.Chunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			chunks++
			lines = append(lines, fmt.Sprintf("  %d %d-%d %q | %q %s %v", c.Index, c.Start, c.End, c.Text, c.Context.Text, c.Context.Source, c.Context.Flags))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), chunks
}

// Acceptance 4 of issue 12: three worker processes contextualize 2,000
// documents against a fake vLLM; one is SIGKILLed mid-run. Every job ends
// done, the store equals a single-process run's (every document at version
// 1: none was committed twice), and the LLM calls number the chunks plus at
// most the calls in flight when the worker was killed.
func TestWorkersSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 documents through three worker processes: not in -short")
	}
	bin := situateBin(t, "")
	pg := startPostgres(t)
	ctx := context.Background()
	const n = 2000
	docs := workerCorpus(n)

	// The single-process run.
	refURL, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	enqueueAll(t, refURL, docs)
	refLLM := newFakeVLLM(t, 20*time.Millisecond)
	ref := startWorker(t, bin, t.TempDir(), workerArgs(refURL, refLLM, 8))
	refStore, err := postgres.Open(ctx, refURL)
	if err != nil {
		t.Fatal(err)
	}
	defer refStore.Close()
	start := time.Now()
	if counts := waitJobs(t, refStore, n, 10*time.Minute, nil); counts[situate.JobDone] != n {
		t.Fatalf("single-process run: %v", counts)
	}
	ref.stop(t)
	want, chunks := storeDump(t, refURL)
	t.Logf("single process: %d documents, %d chunks, %d calls in %s", n, chunks, refLLM.calls.Load(), time.Since(start).Round(time.Millisecond))
	if got := refLLM.calls.Load(); got != int64(chunks) {
		t.Errorf("single-process run made %d calls for %d chunks", got, chunks)
	}

	// Three workers; one is killed at about 40%.
	dbURL, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	enqueueAll(t, dbURL, docs)
	llm := newFakeVLLM(t, 20*time.Millisecond)
	var workers []*workerProc
	for range 3 {
		workers = append(workers, startWorker(t, bin, t.TempDir(), workerArgs(dbURL, llm, 4)))
	}
	s, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start = time.Now()
	killed := false
	var inflightAtKill, callsAtKill int64
	counts := waitJobs(t, s, n, 10*time.Minute, func(done int) {
		if !killed && done >= n*2/5 {
			killed = true
			workers[0].cmd.Process.Signal(syscall.SIGKILL)
			inflightAtKill, callsAtKill = llm.inflight.Load(), llm.calls.Load()
			t.Logf("SIGKILL worker 0 at %d/%d documents done: %d calls made, %d in flight", done, n, callsAtKill, inflightAtKill)
		}
	})
	elapsed := time.Since(start)
	if !killed {
		t.Fatal("the run ended before the kill")
	}
	if counts[situate.JobDone] != n || counts[situate.JobFailed] != 0 {
		t.Errorf("jobs after the run: %v, want %d done", counts, n)
	}
	for _, w := range workers[1:] {
		w.stop(t)
	}
	got, gotChunks := storeDump(t, dbURL)
	if got != want {
		t.Errorf("the store after a killed worker differs from the single-process run's: %s", firstDiff(got, want))
	}
	calls := llm.calls.Load()
	t.Logf("three workers, one killed: %d documents, %d chunks, %d calls (%d more than chunks; %d were in flight at the kill) in %s",
		n, gotChunks, calls, calls-int64(gotChunks), inflightAtKill, elapsed.Round(time.Millisecond))
	if calls < int64(gotChunks) || calls > int64(gotChunks)+inflightAtKill {
		t.Errorf("%d LLM calls for %d chunks, want at most %d more (in flight at the kill)", calls, gotChunks, inflightAtKill)
	}
}

// Acceptance 3 of issue 12, second half: PostgreSQL restarts while two
// workers index; they reconnect and finish, and the store equals an
// uninterrupted run's (nothing lost, nothing committed twice).
func TestWorkersSurvivePostgresRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("workers across a PostgreSQL restart: not in -short")
	}
	bin := situateBin(t, "")
	pg := startPostgres(t)
	ctx := context.Background()
	const n = 300
	docs := workerCorpus(n)
	refURL, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	enqueueAll(t, refURL, docs)
	refLLM := newFakeVLLM(t, 20*time.Millisecond)
	ref := startWorker(t, bin, t.TempDir(), workerArgs(refURL, refLLM, 8))
	refStore, err := postgres.Open(ctx, refURL)
	if err != nil {
		t.Fatal(err)
	}
	waitJobs(t, refStore, n, 5*time.Minute, nil)
	refStore.Close()
	ref.stop(t)
	want, chunks := storeDump(t, refURL)

	dbURL, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	enqueueAll(t, dbURL, docs)
	llm := newFakeVLLM(t, 20*time.Millisecond)
	workers := []*workerProc{
		startWorker(t, bin, t.TempDir(), workerArgs(dbURL, llm, 4)),
		startWorker(t, bin, t.TempDir(), workerArgs(dbURL, llm, 4)),
	}
	s, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	restarted := false
	counts := waitJobs(t, s, n, 5*time.Minute, func(done int) {
		if !restarted && done >= n/3 {
			restarted = true
			t.Logf("restarting PostgreSQL at %d/%d documents done", done, n)
			if err := pg.Restart(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
	if !restarted {
		t.Fatal("the run ended before the restart")
	}
	if counts[situate.JobDone] != n || counts[situate.JobFailed] != 0 {
		t.Errorf("jobs after the run: %v, want %d done", counts, n)
	}
	for _, w := range workers {
		w.stop(t)
	}
	got, gotChunks := storeDump(t, dbURL)
	if got != want {
		t.Errorf("the store after a PostgreSQL restart differs from an uninterrupted run's: %s", firstDiff(got, want))
	}
	t.Logf("PostgreSQL restarted mid-run: %d chunks, %d LLM calls (%d repeated: calls whose result could not be stored while the server was down)",
		gotChunks, llm.calls.Load(), llm.calls.Load()-int64(chunks))
}

// BenchmarkWorkers measures contextualization throughput with 1, 2 and 4
// worker processes (each --jobs 2, --llm-concurrency 3) against a fake vLLM
// with a fixed latency per call (SITUATE_BENCH_LATENCY, default 200ms), over
// SITUATE_BENCH_DOCS documents (default 600, about three chunks each). The clock
// runs from the first enqueue, with the workers already waiting, to the
// last job done. ideal-% is the document throughput over what the latency
// allows: workers x jobs documents every two latencies (a document's first
// call runs alone so that it fills the prefix cache, then its other chunks,
// at most 3, at once). overhead=1 runs one
// worker with one job at a time and no latency: everything a job costs
// besides the model (queue, parsing, chunking, store), serially.
func BenchmarkWorkers(b *testing.B) {
	bin := situateBin(b, "")
	pg := startPostgres(b)
	latency := 200 * time.Millisecond
	if v := os.Getenv("SITUATE_BENCH_LATENCY"); v != "" {
		var err error
		if latency, err = time.ParseDuration(v); err != nil {
			b.Fatal(err)
		}
	}
	n := 600
	if v := os.Getenv("SITUATE_BENCH_DOCS"); v != "" {
		fmt.Sscan(v, &n)
	}
	docs := workerCorpus(n)
	// Three calls at once: a document's three chunks take one latency.
	const jobs, concurrency = 2, 3
	run := func(b *testing.B, workers, jobs int, latency time.Duration) {
		for range b.N {
			ctx := context.Background()
			dbURL, err := pg.NewDatabase(ctx)
			if err != nil {
				b.Fatal(err)
			}
			s, err := postgres.Open(ctx, dbURL) // migrates before the workers start
			if err != nil {
				b.Fatal(err)
			}
			llm := newFakeVLLM(b, latency)
			var ws []*workerProc
			for range workers {
				// At info level the banner says when it waits for jobs.
				args := workerArgs(dbURL, llm, jobs, "--log-level", "info", "--llm-concurrency", fmt.Sprint(concurrency))
				ws = append(ws, startWorker(b, bin, b.TempDir(), args))
			}
			for _, w := range ws {
				for !strings.Contains(w.stderr.String(), "situate worker:") {
					time.Sleep(20 * time.Millisecond)
				}
			}
			b.ResetTimer()
			start := time.Now()
			for _, d := range docs {
				if _, err := s.EnqueueUpload(ctx, d); err != nil {
					b.Fatal(err)
				}
			}
			counts := waitJobs(b, s, n, 30*time.Minute, nil)
			elapsed := time.Since(start)
			b.StopTimer()
			if counts[situate.JobDone] != n {
				b.Fatalf("jobs: %v", counts)
			}
			for _, w := range ws {
				w.stop(b)
			}
			s.Close()
			calls := float64(llm.calls.Load())
			b.ReportMetric(float64(n)/elapsed.Seconds(), "docs/s")
			b.ReportMetric(calls/elapsed.Seconds(), "calls/s")
			if latency > 0 {
				// A document takes two latencies: its first call alone
				// (it writes the document into the prefix cache), then
				// the others at once.
				ideal := float64(workers*jobs) / (2 * latency.Seconds())
				b.ReportMetric(100*float64(n)/elapsed.Seconds()/ideal, "ideal-%")
			} else {
				b.ReportMetric(elapsed.Seconds()*1000/float64(n), "ms/job")
			}
		}
	}
	for _, k := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", k), func(b *testing.B) { run(b, k, jobs, latency) })
	}
	b.Run("overhead=1", func(b *testing.B) { run(b, 1, 1, 0) })
}

// Two serve instances over one PostgreSQL store, running no jobs
// themselves, and one worker: a document upserted through one server is
// contextualized by the worker and found by a search on the other, once
// that server synced its local indexes; its job is readable on both. The
// servers are stateless against the store: a third one started afterwards
// finds the document at once.
func TestServeSharedStore(t *testing.T) {
	if testing.Short() {
		t.Skip("two serve processes, a worker and PostgreSQL: not in -short")
	}
	pg := startPostgres(t)
	dbURL, err := pg.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	llm := newFakeVLLM(t, 5*time.Millisecond)
	common := []string{"--store-url", dbURL, "--llm", "vllm:fake-vllm", "--llm-base-url", llm.proxy.URL + "/v1",
		"--llm-degenerate", "keep", "--chunk-size", "120", "--chunk-overlap", "0"}
	serveArgs := func() []string {
		return append([]string{"--store", t.TempDir(), "--workers", "0"}, common...)
	}
	a := startServeProc(t, freeAddr(t), serveArgs()...)
	b := startServeProc(t, freeAddr(t), serveArgs()...)

	doc := workerCorpus(1)[0]
	text := string(doc.Data) + "\nThe zanzibarquay marker closes the record."
	code, body, err := a.do("PUT", "/v1/documents/log-1", "", map[string]any{"text": text})
	if err != nil || code != 202 {
		t.Fatalf("upsert: %d %s %v", code, body, err)
	}
	var ur struct {
		Job struct {
			ID int64 `json:"id"`
		} `json:"job"`
	}
	if err := json.Unmarshal(body, &ur); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if code, body, _ := b.do("GET", fmt.Sprintf("/v1/jobs/%d", ur.Job.ID), "", nil); code != 200 || !strings.Contains(string(body), `"queued"`) {
		t.Errorf("with no worker the job should wait, queued: %d %s", code, body)
	}
	bin := situateBin(t, "")
	w := startWorker(t, bin, t.TempDir(), append([]string{"worker", "--poll", "100ms"}, common...))
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, body, _ := b.do("GET", fmt.Sprintf("/v1/jobs/%d", ur.Job.ID), "", nil)
		if code == 200 && strings.Contains(string(body), `"done"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not done on the other server: %d %s\nworker:\n%s", code, body, w.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	search := func(s *server) []httpapi.SearchResult {
		code, body, err := s.do("POST", "/v1/search", "", map[string]any{"query": "zanzibarquay", "k": 3})
		if err != nil || code != 200 {
			t.Fatalf("search: %d %s %v", code, body, err)
		}
		var sr httpapi.SearchResponse
		if err := json.Unmarshal(body, &sr); err != nil {
			t.Fatal(err)
		}
		return sr.Results
	}
	found := func(s *server) bool {
		deadline := time.Now().Add(3 * httpapi.DefaultSyncInterval)
		for time.Now().Before(deadline) {
			if rs := search(s); len(rs) > 0 {
				if rs[0].Doc != "log-1" || !strings.HasPrefix(rs[0].Contextualizer, "vllm:") {
					t.Errorf("hit: %+v", rs[0])
				}
				return true
			}
			time.Sleep(100 * time.Millisecond)
		}
		return false
	}
	if !found(b) {
		t.Errorf("the other server did not find the worker's document within %s", 3*httpapi.DefaultSyncInterval)
	}
	if !found(a) {
		t.Errorf("the upserting server did not find the worker's document")
	}
	c := startServeProc(t, freeAddr(t), serveArgs()...)
	if rs := search(c); len(rs) == 0 {
		t.Error("a server started afterwards does not find the document at once")
	}
	// An attribute change one server accepted holds on the others for the
	// very next request (they sync when the store changed, not only every
	// 2 s), and makes no model call.
	calls := llm.calls.Load()
	code, body, err = a.do("PATCH", "/v1/documents/log-1", "", map[string]any{"title": "Zanzibar log", "metadata": map[string]string{"zone": "z1"}})
	if err != nil || code != 200 {
		t.Fatalf("PATCH: %d %s %v", code, body, err)
	}
	code, body, _ = b.do("GET", "/v1/documents/log-1", "", nil)
	if code != 200 || !strings.Contains(string(body), `"title":"Zanzibar log"`) {
		t.Errorf("the other server's GET right after the PATCH: %d %s", code, body)
	}
	code, body, _ = c.do("POST", "/v1/search", "", map[string]any{"query": "zanzibarquay", "filters": map[string]any{"metadata": map[string]any{"zone": map[string]any{"eq": "z1"}}}})
	if code != 200 || !strings.Contains(string(body), `"doc":"log-1"`) || !strings.Contains(string(body), `"title":"Zanzibar log"`) {
		t.Errorf("the third server's filtered search right after the PATCH: %d %s", code, body)
	}
	if n := llm.calls.Load(); n != calls {
		t.Errorf("the PATCH made %d LLM calls, want 0", n-calls)
	}
	w.stop(t)
	if n := llm.calls.Load(); n < 2 {
		t.Errorf("%d LLM calls: the worker did not contextualize", n)
	}
}

// The command line on a shared store: `index --store-url` on one machine
// (store directory), `search`, `status` and `ls` on another find the same
// documents with the same ranking, a removal on the first is seen by the
// second, and the commands that work on SQLite only refuse the URL.
func TestCLISharedStore(t *testing.T) {
	pg := startPostgres(t)
	dbURL, err := pg.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(repoRoot(t), "examples", "corpus")
	a, b := t.TempDir(), t.TempDir()
	mustRun(t, a, "index", "--store", "s", "--store-url", dbURL, corpus)
	if _, err := os.Stat(filepath.Join(a, "s", sharedDir)); err != nil {
		t.Errorf("no local index directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a, "s", storeFile)); err == nil {
		t.Error("a SQLite store was created beside the PostgreSQL one")
	}
	const q = "Halden Ironworks third quarter revenue"
	ra := search(t, a, "s", 5, q, "--store-url", dbURL)
	rb := search(t, b, "s", 5, q, "--store-url", dbURL)
	if len(ra.Results) == 0 || ra.Results[0].Doc != "en/halden-ironworks.md" {
		t.Fatalf("search on the indexing machine: %+v", ra.Results)
	}
	if len(rb.Results) != len(ra.Results) {
		t.Fatalf("search on the other machine: %d results, want %d", len(rb.Results), len(ra.Results))
	}
	for i := range ra.Results {
		if ra.Results[i].Doc != rb.Results[i].Doc || ra.Results[i].Chunk != rb.Results[i].Chunk || ra.Results[i].Context != rb.Results[i].Context {
			t.Errorf("result %d: %s#%d on a, %s#%d on b", i, ra.Results[i].Doc, ra.Results[i].Chunk, rb.Results[i].Doc, rb.Results[i].Chunk)
		}
	}
	out, _ := mustRun(t, b, "status", "--store", "s", "--store-url", dbURL)
	if !strings.Contains(out, "documents") || strings.Contains(out, "documents   0\n") {
		t.Errorf("status on the other machine:\n%s", out)
	}
	mustRun(t, a, "rm", "--store", "s", "--store-url", dbURL, "en/halden-ironworks.md")
	for _, r := range search(t, b, "s", 5, q, "--store-url", dbURL).Results {
		if r.Doc == "en/halden-ironworks.md" {
			t.Errorf("the other machine still finds the removed document")
		}
	}
	lsOut, _ := mustRun(t, b, "ls", "--store", "s", "--store-url", dbURL)
	if strings.Contains(lsOut, "halden-ironworks") {
		t.Errorf("ls lists the removed document:\n%s", lsOut)
	}
	// Commands that work on the SQLite store only say so.
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &strings.Builder{}, workDir: b,
		getenv: func(k string) string {
			if k == "SITUATE_STORE_URL" {
				return dbURL
			}
			return ""
		}}
	if code := Main(context.Background(), e, []string{"usage", "--store", "s"}); code != exitUsage ||
		!strings.Contains(e.stderr.(*strings.Builder).String(), "--store-url (from env SITUATE_STORE_URL) is not supported") {
		t.Errorf("usage with SITUATE_STORE_URL: exit %d\n%s", code, e.stderr)
	}
	if code, _, errOut := run(t, b, "worker", "--store", "s"); code != exitUsage || !strings.Contains(errOut, "needs --store-url") {
		t.Errorf("worker without --store-url: exit %d %s", code, errOut)
	}
	if code, _, errOut := run(t, b, "index", "--store", "s", "--store-url", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2", corpus); code == exitOK || !strings.Contains(errOut, "--store-url") {
		t.Errorf("index with an unreachable database: exit %d %s", code, errOut)
	}
}

// situate mcp over a shared store holds its local indexes; situate index
// run beside it with the same --store directory writes the shared store
// only (it cannot take the indexes' lock) and mcp's next tool call syncs
// them: the new document is listed and found.
func TestMCPSharedStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts situate mcp and PostgreSQL")
	}
	pg := startPostgres(t)
	dbURL, err := pg.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "a.md"), []byte("# Anchor\n\nThe anchor chain is rusty.\n"), 0o644)
	mustRun(t, dir, "index", "--store", "s", "--store-url", dbURL, docs)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "mcp", "--store", filepath.Join(dir, "s"), "--store-url", dbURL)
	cmd.Env = append(os.Environ(), "SITUATE_TEST_AS_MAIN=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	if out := call("list_documents", map[string]any{}); !strings.Contains(out, `"total":1`) {
		t.Fatalf("list_documents: %s", out)
	}
	os.WriteFile(filepath.Join(docs, "b.md"), []byte("# Buoy\n\nThe buoy light blinks green.\n"), 0o644)
	start := time.Now()
	mustRun(t, dir, "index", "--store", "s", "--store-url", dbURL, docs)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("index beside mcp took %s", d)
	}
	if out := call("list_documents", map[string]any{}); !strings.Contains(out, `"total":2`) {
		t.Errorf("after indexing another document: %s", out)
	}
	if out := call("search", map[string]any{"query": "buoy light"}); !strings.Contains(out, "b.md") {
		t.Errorf("search for the new document: %s", out)
	}
}
