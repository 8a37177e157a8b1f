package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate"
)

// waitFor polls until cond holds (the queue's state changes in other
// goroutines).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// Searches beyond the limit start in the order they arrived.
func TestAdmissionFIFO(t *testing.T) {
	a := newAdmission(1, time.Minute)
	hold, e := a.enter(context.Background())
	if e != nil {
		t.Fatal(e)
	}
	const n = 8
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, e := a.enter(context.Background())
			if e != nil {
				t.Errorf("waiter %d: %v", i, e)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			release()
		}()
		// The next waiter arrives only once this one is queued.
		waitFor(t, "waiter queued", func() bool { return a.waiting.Load() == int64(i+1) })
	}
	// Each waiter, once it runs, frees the slot for the next in line.
	hold()
	wg.Wait()
	for i, w := range order {
		if w != i {
			t.Fatalf("searches started in order %v, want arrival order", order)
		}
	}
	if a.waiting.Load() != 0 || a.rejected.Load() != 0 {
		t.Errorf("after the queue drained: waiting %d, rejected %d", a.waiting.Load(), a.rejected.Load())
	}
}

// A search that waits past the queue timeout is refused 503 overloaded; a
// client that goes away leaves the queue with its own error, not counted as
// a rejection; the slots are not lost either way.
func TestAdmissionTimeoutAndCancel(t *testing.T) {
	a := newAdmission(2, 50*time.Millisecond)
	h1, _ := a.enter(context.Background())
	h2, _ := a.enter(context.Background())
	start := time.Now()
	_, e := a.enter(context.Background())
	if e == nil || e.status != http.StatusServiceUnavailable || e.code != "overloaded" {
		t.Fatalf("full queue: %+v, want 503 overloaded", e)
	}
	if took := time.Since(start); took < 50*time.Millisecond || took > 5*time.Second {
		t.Errorf("refused after %v, want just over the 50ms queue timeout", took)
	}
	if a.rejected.Load() != 1 {
		t.Errorf("rejected %d, want 1", a.rejected.Load())
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *apiError)
	a.timeout = time.Minute
	go func() {
		_, e := a.enter(ctx)
		done <- e
	}()
	waitFor(t, "waiter queued", func() bool { return a.waiting.Load() == 1 })
	cancel()
	if e := <-done; e == nil || e.code == "overloaded" {
		t.Errorf("cancelled waiter: %+v, want the request's own error", e)
	}
	if a.waiting.Load() != 0 || a.rejected.Load() != 1 {
		t.Errorf("after the cancel: waiting %d, rejected %d", a.waiting.Load(), a.rejected.Load())
	}

	h1()
	h2()
	for range 2 {
		if _, e := a.enter(context.Background()); e != nil {
			t.Fatalf("slots lost: %v", e)
		}
	}
}

func TestMaxSearches(t *testing.T) {
	if got := maxSearches(0); got < 1 {
		t.Errorf("maxSearches(0) = %d, want GOMAXPROCS", got)
	}
	if got := maxSearches(UnlimitedSearches); got != 0 {
		t.Errorf("maxSearches(unlimited) = %d, want 0 (no gate)", got)
	}
	a := newAdmission(maxSearches(UnlimitedSearches), time.Nanosecond)
	for range 100 {
		if _, e := a.enter(context.Background()); e != nil {
			t.Fatalf("unlimited: %v", e)
		}
	}
	if got := maxSearches(3); got != 3 {
		t.Errorf("maxSearches(3) = %d", got)
	}
}

// Only searches that are all processor work queue: one that calls an
// embedder or a reranker waits on their servers and would hold a slot idle.
func TestLexicalOnlyQueues(t *testing.T) {
	plain := situate.DefaultOptions()
	dense := situate.DefaultOptions()
	dense.Embedder = fakeEmbedder{}
	for _, c := range []struct {
		req  SearchRequest
		opts situate.Options
		want bool
	}{
		{SearchRequest{}, plain, true},
		{SearchRequest{Mode: situate.ModeBM25}, plain, true},
		{SearchRequest{Mode: situate.ModeBM25}, dense, true},
		{SearchRequest{}, dense, false}, // the default mode is hybrid
		{SearchRequest{Mode: situate.ModeHybrid}, dense, false},
		{SearchRequest{Mode: situate.ModeDense}, dense, false},
		{SearchRequest{Rerank: true}, plain, false},
		{SearchRequest{Mode: situate.ModeBM25, Rerank: true}, dense, false},
	} {
		if got := lexicalOnly(&c.req, c.opts); got != c.want {
			t.Errorf("mode %q rerank %v embedder %v: queued %v, want %v", c.req.Mode, c.req.Rerank, c.opts.Embedder != nil, got, c.want)
		}
	}
}

type fakeEmbedder struct{ situate.Embedder }

// A request whose client has gone away (a search cancelled in the queue)
// is answered and counted as 499, client closed request, and logged below
// error level: a disconnect is no sign of an overloaded or failing server.
// A cancellation while the client is still there stays a 503.
func TestClientGoneIs499(t *testing.T) {
	var logs bytes.Buffer
	s := &Server{log: slog.New(slog.NewJSONHandler(&logs, nil))}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		ctx  context.Context
		want int
	}{{gone, statusClientClosed}, {context.Background(), http.StatusServiceUnavailable}} {
		logs.Reset()
		req := httptest.NewRequestWithContext(c.ctx, "POST", "/v1/search", nil)
		rec := httptest.NewRecorder()
		s.writeError(rec, req, fromError(context.Canceled))
		if rec.Code != c.want {
			t.Errorf("client gone %v: %d, want %d", c.ctx.Err() != nil, rec.Code, c.want)
		}
		if isErr := strings.Contains(logs.String(), `"level":"ERROR"`); isErr != (c.want >= 500) {
			t.Errorf("client gone %v: logged as an error %v:\n%s", c.ctx.Err() != nil, isErr, logs.String())
		}
	}
}
