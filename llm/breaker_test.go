package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/situate/situate/driver"
)

// events collects the call events of a context.
type events struct {
	mu sync.Mutex
	ev []driver.CallEvent
}

func (e *events) ctx(parent context.Context) context.Context {
	return driver.WithCallObserver(parent, func(ev driver.CallEvent) {
		e.mu.Lock()
		e.ev = append(e.ev, ev)
		e.mu.Unlock()
	})
}

func (e *events) count(kind string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.ev {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

// connRefused is what a client sees when the server is gone.
type connRefused struct{}

func (connRefused) Error() string             { return "dial tcp 127.0.0.1:8080: connect: connection refused" }
func (connRefused) Unwrap() error             { return syscall.ECONNREFUSED }
func (connRefused) Retryable() bool           { return true }
func (connRefused) RetryAfter() time.Duration { return 0 }

// A server that is gone trips the breaker: the run stops with
// ErrProviderFailing (naming the last error) instead of retrying and
// falling back for every chunk, and every Contextualize after it fails at
// once until the window passes.
func TestBreakerServerGone(t *testing.T) {
	docs := synthDocs(21, []int{6, 6, 6, 6})
	f := newFake()
	var gone atomic.Bool
	f.fail = func(n int, _ driver.Prompt) error {
		if n >= 3 {
			gone.Store(true)
		}
		if gone.Load() {
			return connRefused{}
		}
		return nil
	}
	o := testOptions()
	o.Fallback = offlineFake{}
	o.MaxBackoff = 100 * time.Millisecond
	usage := &usageLog{}
	o.Usage = usage
	c := mustNew(t, f, o)
	var ev events
	start := time.Now()
	_, err := collect(t, ev.ctx(context.Background()), c, docs)
	if !errors.Is(err, driver.ErrProviderFailing) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v, want ErrProviderFailing naming the last error", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %v to stop", el)
	}
	if n := ev.count(driver.CallFallback); n != 0 {
		t.Errorf("%d chunks fell back before the breaker tripped", n)
	}
	calls := len(f.snapshot())
	// The trip needs 8 failures in a row (a success still in flight when
	// the server died resets the count once), and calls in flight then
	// make at most one more attempt each.
	if calls > 3+2*DefaultBreakerFailures+2*o.Concurrency {
		t.Errorf("%d calls made, want the breaker to stop near %d failures", calls, DefaultBreakerFailures)
	}
	// Tripped: the next document fails at once, without a call.
	_, err = c.Contextualize(context.Background(), docs[0].Doc, docs[0].Chunks)
	if !errors.Is(err, driver.ErrProviderFailing) || len(f.snapshot()) != calls {
		t.Errorf("after the trip: err %v, %d new calls", err, len(f.snapshot())-calls)
	}
	// Every attempt is observed: starts equal done + retries + fails.
	if s, d, r, fl := ev.count(driver.CallStart), ev.count(driver.CallDone), ev.count(driver.CallRetry), ev.count(driver.CallFail); s != d+r+fl || d < 3 {
		t.Errorf("events: %d starts, %d done, %d retries, %d fails", s, d, r, fl)
	}
	// Usage: every attempt is recorded; failed attempts carry the error.
	retried := 0
	for _, u := range usage.us {
		if u.Operation == "context-retry" {
			retried++
			if !strings.Contains(u.Error, "connection refused") {
				t.Errorf("retried attempt without its error: %+v", u)
			}
		}
	}
	if retried == 0 {
		t.Errorf("no failed attempt recorded: %+v", usage.us)
	}
}

// The time rule: attempts failing for longer than BreakerWindow (with
// few calls in flight and long backoff) trip it too.
func TestBreakerWindow(t *testing.T) {
	clk := newFakeClock()
	b := newBreaker(100, 20*time.Second, clk)
	advance := func(d time.Duration) { clk.SleepUntil(context.Background(), clk.Now().Add(d)) }
	if err := b.failure(errors.New("HTTP 500")); err != nil {
		t.Fatal(err)
	}
	advance(10 * time.Second)
	b.failure(errors.New("HTTP 500"))
	advance(11 * time.Second)
	err := b.failure(errors.New("HTTP 500: boom"))
	if !errors.Is(err, driver.ErrProviderFailing) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("after 21 s of failures: %v", err)
	}
	// It stays tripped for the window, then closes.
	if err, _ := b.state(); err == nil {
		t.Error("not tripped")
	}
	advance(21 * time.Second)
	if err, _ := b.state(); err != nil {
		t.Errorf("still tripped after the window: %v", err)
	}
	// A success resets the count.
	b.failure(errors.New("x"))
	b.success()
	advance(30 * time.Second)
	if err := b.failure(errors.New("x")); err != nil {
		t.Errorf("one failure after a success tripped it: %v", err)
	}
}

// Sporadic server errors do not trip it: the calls are retried and the
// run goes on.
func TestBreakerIgnoresSporadicErrors(t *testing.T) {
	docs := synthDocs(22, []int{8, 8, 8})
	f := newFake()
	var attempts sync.Map
	f.fail = func(n int, p driver.Prompt) error {
		ch := chunkOf(p.Suffix)
		v, _ := attempts.LoadOrStore(ch, new(atomic.Int32))
		if n%3 == 0 && v.(*atomic.Int32).Add(1) == 1 {
			return &providerError{status: 500}
		}
		return nil
	}
	c := mustNew(t, f, testOptions())
	got, err := collect(t, context.Background(), c, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, xs := range got {
		for _, x := range xs {
			if x.Source != "fake:model" {
				t.Errorf("context %+v", x)
			}
		}
	}
}

// 401 and 404-model errors stop the run at the first call: no retry, no
// fallback, and the error matches the sentinel.
func TestFatalErrorsStopAtFirstCall(t *testing.T) {
	for _, sentinel := range []error{driver.ErrUnauthorized, driver.ErrModelNotFound} {
		t.Run(sentinel.Error(), func(t *testing.T) {
			docs := synthDocs(23, []int{5, 5})
			f := newFake()
			f.fail = func(int, driver.Prompt) error { return fmt.Errorf("fake provider: HTTP 401: %w", sentinel) }
			o := testOptions()
			o.Fallback = offlineFake{}
			o.Concurrency = 1
			c := mustNew(t, f, o)
			var ev events
			_, err := collect(t, ev.ctx(context.Background()), c, docs)
			if !errors.Is(err, sentinel) {
				t.Fatalf("err = %v, want %v", err, sentinel)
			}
			if n := len(f.snapshot()); n != 1 {
				t.Errorf("%d calls, want 1", n)
			}
			if ev.count(driver.CallFallback) != 0 || ev.count(driver.CallRetry) != 0 {
				t.Errorf("fallbacks or retries after a fatal error: %+v", ev.ev)
			}
		})
	}
}

// A run cancelled by the user records no provider error and trips
// nothing.
func TestCancelIsNotAProviderError(t *testing.T) {
	docs := synthDocs(24, []int{10, 10})
	f := newFake()
	f.latency = 200 * time.Millisecond
	usage := &usageLog{}
	o := testOptions()
	o.Usage = usage
	c := mustNew(t, f, o)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := collect(t, ctx, c, docs); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	for _, u := range usage.us {
		if u.Error != "" {
			t.Errorf("cancelled run recorded an error: %+v", u)
		}
	}
	if err, _ := c.breaker.state(); err != nil {
		t.Errorf("breaker tripped by a cancellation: %v", err)
	}
	if _, err := collect(t, context.Background(), c, docs[:1]); err != nil {
		t.Errorf("after a cancelled run: %v", err)
	}
}

// A degenerate answer is asked again with another sample; when every
// sample is degenerate the chunk falls back, flagged with the kind, and
// the attempts are observed and recorded.
func TestDegenerateResampled(t *testing.T) {
	docs := synthDocs(25, []int{2})
	f := newFake()
	f.answer = func(p driver.Prompt) string {
		if p.Sample >= 1 && strings.Contains(chunkOf(p.Suffix), docs[0].Chunks[0].Text[:20]) {
			return defaultAnswer(p)
		}
		return strings.Repeat("filosof ", 250)
	}
	o := testOptions()
	o.Fallback = offlineFake{}
	usage := &usageLog{}
	o.Usage = usage
	c := mustNew(t, f, o)
	var ev events
	got, err := collect(t, ev.ctx(context.Background()), c, docs)
	if err != nil {
		t.Fatal(err)
	}
	if x := got[0][0]; x.Source != "fake:model" || len(x.Flags) != 0 {
		t.Errorf("resampled chunk: %+v", x)
	}
	x := got[0][1]
	if x.Source != "offline" || !strings.Contains(strings.Join(x.Flags, ","), FlagFallback) || !strings.Contains(strings.Join(x.Flags, ","), "degenerate:repetition") {
		t.Errorf("degenerate chunk: %+v", x)
	}
	samples := map[int]int{}
	for _, cl := range f.snapshot() {
		samples[cl.Sample]++
	}
	if samples[0] != 2 || samples[1] != 2 || samples[2] != 1 {
		t.Errorf("samples asked: %v; want chunk 0 twice, chunk 1 three times", samples)
	}
	if ev.count(driver.CallFallback) != 1 || ev.count(driver.CallRetry) != 3 {
		t.Errorf("events: %d fallbacks, %d retries", ev.count(driver.CallFallback), ev.count(driver.CallRetry))
	}
	// With KeepDegenerate the answer is kept, flagged.
	o.KeepDegenerate = true
	c = mustNew(t, f, o)
	got, err = collect(t, context.Background(), c, docs)
	if err != nil {
		t.Fatal(err)
	}
	if x := got[0][1]; x.Source != "fake:model" || !strings.Contains(strings.Join(x.Flags, ","), "degenerate:repetition") {
		t.Errorf("kept degenerate: %+v", x)
	}
}

// An empty answer ends its call with a fail event, so that the calls a
// front end counts as in flight (starts minus done, retries and fails)
// return to zero, and it falls back flagged empty.
func TestEmptyAnswerEndsItsCall(t *testing.T) {
	docs := synthDocs(7, []int{4})
	f := newFake()
	f.answer = func(driver.Prompt) string { return "   " }
	o := testOptions()
	o.Fallback = offlineFake{}
	c := mustNew(t, f, o)
	var ev events
	if _, err := collect(t, ev.ctx(context.Background()), c, docs); err != nil {
		t.Fatal(err)
	}
	s, d, r, fl := ev.count(driver.CallStart), ev.count(driver.CallDone), ev.count(driver.CallRetry), ev.count(driver.CallFail)
	if s == 0 || s != d+r+fl {
		t.Errorf("events: %d starts, %d done, %d retries, %d fails: calls left in flight", s, d, r, fl)
	}
	if n := ev.count(driver.CallFallback); n != 4 {
		t.Errorf("%d fallbacks, want 4 (every chunk answered empty)", n)
	}
}
