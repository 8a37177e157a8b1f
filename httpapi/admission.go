package httpapi

import (
	"context"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// Search admission. A search is CPU work from start to end (the indexes
// and the store are memory-mapped or cached), so more searches running at
// once than there are processors only makes each take longer: the Go
// scheduler slices them, and a search's latency becomes the sum of every
// search running beside it, so one slow query slows all of them and the
// tail spreads. The server therefore runs at most Limits.MaxSearches
// searches at once (default GOMAXPROCS) and queues the others in arrival
// order (FIFO): a search's latency is then its wait in the queue plus its
// own service time, and under load the waits are the same for everyone. A
// search that waits longer than Limits.SearchQueueTimeout is answered 503
// (code "overloaded", Retry-After 1) instead of piling up behind the rest.
// A client that goes away leaves the queue. Only lexical searches queue: a
// search with a dense arm or a reranker spends most of its time waiting on
// the embedder's or the reranker's server, and holding a processor's slot
// meanwhile would leave the processors idle (lexicalOnly).

// DefaultSearchQueueTimeout is how long a search waits for its turn by
// default.
const DefaultSearchQueueTimeout = 5 * time.Second

// UnlimitedSearches as Limits.MaxSearches runs every search at once (no
// queue), as the Go scheduler would.
const UnlimitedSearches = -1

// admission is the FIFO gate in front of searches.
type admission struct {
	sem     *semaphore.Weighted // nil: unlimited
	limit   int
	timeout time.Duration
	waiting atomic.Int64
	// rejected counts searches answered 503 because their wait ran out.
	rejected atomic.Int64
}

func newAdmission(limit int, timeout time.Duration) *admission {
	a := &admission{limit: limit, timeout: timeout}
	if limit > 0 {
		a.sem = semaphore.NewWeighted(int64(limit))
	}
	return a
}

// maxSearches resolves Limits.MaxSearches: 0 is GOMAXPROCS.
func maxSearches(n int) int {
	switch {
	case n == 0:
		return runtime.GOMAXPROCS(0)
	case n < 0:
		return 0
	}
	return n
}

// enter waits for the search's turn; release must be called when it ends.
func (a *admission) enter(ctx context.Context) (release func(), e *apiError) {
	if a.sem == nil {
		return func() {}, nil
	}
	if a.sem.TryAcquire(1) {
		return func() { a.sem.Release(1) }, nil
	}
	a.waiting.Add(1)
	defer a.waiting.Add(-1)
	wctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	if err := a.sem.Acquire(wctx, 1); err != nil {
		if ctx.Err() != nil {
			// The request's own deadline or the client: not the queue's.
			return nil, fromError(ctx.Err())
		}
		a.rejected.Add(1)
		return nil, &apiError{status: http.StatusServiceUnavailable, code: "overloaded",
			msg: "too many searches waiting: this one did not start within " + a.timeout.String() + "; retry after the Retry-After header's seconds"}
	}
	// A waiter is woken by the search that ends before it, into that
	// processor's next-to-run slot, and so goes straight on: while the
	// queue is not empty the processors pass the turn from search to search
	// and never look at the global run queue, where the goroutines of newly
	// arrived requests wait (the scheduler's network poller puts them
	// there). Those requests then enter the queue only when it has drained,
	// all at once, and a search's latency is no longer its place in line:
	// wrk saw p99 at 3x p50 (97 ms against 28), and half of a request's
	// time was spent before its handler started. Yielding here sends this
	// search to the back of the global run queue, behind the requests that
	// arrived before its turn came, so they join the queue first: p99 fell
	// to 1.5-2x p50 (52-68 ms) at the same throughput (bench/serve-load-*).
	runtime.Gosched()
	return func() { a.sem.Release(1) }, nil
}
