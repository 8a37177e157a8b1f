package llm

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate/driver"
)

// fakeClock only moves when someone sleeps: to the end of the sleep.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) SleepUntil(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	if t.After(f.now) {
		f.now = t
	}
	f.mu.Unlock()
	return nil
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func near(a, b time.Duration) bool { return (a - b).Abs() < time.Millisecond }

func TestBucketRequests(t *testing.T) {
	clk := newFakeClock()
	b := newBucket(60, clk.Now()) // one per second, a minute's burst
	for i := range 60 {
		if d := b.reserve(clk.Now(), 1); d != 0 {
			t.Fatalf("request %d of a full bucket waits %v", i, d)
		}
	}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second} {
		if d := b.reserve(clk.Now(), 1); !near(d, want) {
			t.Errorf("request %d past the burst waits %v, want %v", 61+i, d, want)
		}
	}
	clk.advance(10 * time.Second) // 10 tokens back, 3 owed
	if d := b.reserve(clk.Now(), 7); d != 0 {
		t.Errorf("after 10s, 7 more requests wait %v, want 0", d)
	}
	if d := b.reserve(clk.Now(), 1); !near(d, time.Second) {
		t.Errorf("then one more waits %v, want 1s", d)
	}
	clk.advance(time.Hour)
	b.refill(clk.Now())
	if b.avail != 60 {
		t.Errorf("after an hour the bucket holds %g, want its capacity 60", b.avail)
	}
}

func TestGateTokensAndCorrection(t *testing.T) {
	clk := newFakeClock()
	g := newRateGate(0, 1000, clk) // 1000 input tokens per minute
	ctx := context.Background()
	start := clk.Now()
	if err := g.wait(ctx, 600); err != nil || clk.Now() != start {
		t.Fatalf("first 600 tokens: err %v, waited %v", err, clk.Now().Sub(start))
	}
	// 400 left; 600 more owe 200 = 12s at 1000/min.
	if err := g.wait(ctx, 600); err != nil || !near(clk.Now().Sub(start), 12*time.Second) {
		t.Fatalf("second 600 tokens: err %v, waited %v, want 12s", err, clk.Now().Sub(start))
	}
	// The provider counted 300 for the second call: 300 come back.
	g.correct(600, 300)
	at := clk.Now()
	if err := g.wait(ctx, 300); err != nil || clk.Now() != at {
		t.Errorf("after the correction 300 tokens should pass at once, waited %v", clk.Now().Sub(at))
	}
	// An underestimate takes more: 600 estimated, 1000 counted.
	g.correct(600, 1000)
	at = clk.Now()
	if err := g.wait(ctx, 1); err != nil || !near(clk.Now().Sub(at), 24*time.Second+60*time.Millisecond) {
		t.Errorf("after a 400-token underestimate one token waits %v, want 24.06s", clk.Now().Sub(at))
	}
	if g.calls != 4 || g.reserved != 1501 || g.waits != 2 {
		t.Errorf("gate totals: calls %d reserved %d waits %d, want 4, 1501, 2", g.calls, g.reserved, g.waits)
	}
	if newRateGate(0, 0, clk) != nil {
		t.Error("no limits should give no gate")
	}
}

func TestGateCancelGivesBack(t *testing.T) {
	clk := newFakeClock()
	g := newRateGate(1, 0, clk)
	ctx, cancel := context.WithCancel(context.Background())
	if err := g.wait(ctx, 0); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := g.wait(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	// The cancelled reservation was returned: the next one owes one
	// request (60s), not two.
	at := clk.Now()
	if err := g.wait(context.Background(), 0); err != nil || !near(clk.Now().Sub(at), time.Minute) {
		t.Errorf("after a cancelled reservation the next waits %v, want 1m", clk.Now().Sub(at))
	}
}

// clockedLLM records the fake time at which each call reached the model.
type clockedLLM struct {
	*fakeLLM
	clk   *fakeClock
	mu    sync.Mutex
	times []time.Duration
	start time.Time
}

func (m *clockedLLM) Complete(ctx context.Context, p driver.Prompt) (driver.Completion, error) {
	m.mu.Lock()
	m.times = append(m.times, m.clk.Now().Sub(m.start))
	m.mu.Unlock()
	return m.fakeLLM.Complete(ctx, p)
}

// TestRunRequestsPerMinute runs 3 documents of 10 chunks at 20 requests per
// minute on a fake clock, with calls from all documents drawing on one
// bucket: the 30 calls take 30 fake seconds (20 at once, then one every 3
// seconds), and no call starts before its token is there.
func TestRunRequestsPerMinute(t *testing.T) {
	clk := newFakeClock()
	m := &clockedLLM{fakeLLM: newFake(), clk: clk, start: clk.Now()}
	m.ttft, m.latency = 0, 0
	o := testOptions()
	o.RequestsPerMinute = 20
	o.Concurrency = 4
	c, err := New(m, o)
	if err != nil {
		t.Fatal(err)
	}
	c.gate = newRateGate(o.RequestsPerMinute, 0, clk)
	docs := synthDocs(11, []int{10, 10, 10})
	for _, d := range docs {
		if _, err := c.Contextualize(context.Background(), d.Doc, d.Chunks); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.times) != 30 || c.gate.calls != 30 {
		t.Fatalf("%d calls reached the model, gate let %d through; want 30", len(m.times), c.gate.calls)
	}
	times := slices.Clone(m.times)
	slices.Sort(times)
	for i, at := range times {
		if earliest := time.Duration(max(0, i+1-20)) * 3 * time.Second; at < earliest-time.Millisecond {
			t.Errorf("call %d started at %v, before its request token (%v)", i+1, at, earliest)
		}
	}
	if total := clk.Now().Sub(m.start); !near(total, 30*time.Second) {
		t.Errorf("30 calls at 20/min with a 20-call burst took %v of fake time, want 30s", total)
	}
	if c.gate.waits != 10 {
		t.Errorf("%d calls waited, want the 10 past the burst", c.gate.waits)
	}
}

// TestRunInputTokensExcludeCacheReads checks what a run counts against
// InputTokensPerMinute: the first call of a document its whole prompt, the
// others only their own part (their prefix is read from the cache).
func TestRunInputTokensExcludeCacheReads(t *testing.T) {
	clk := newFakeClock()
	f := newFake()
	o := testOptions()
	o.InputTokensPerMinute = 1_000_000
	c, err := New(f, o)
	if err != nil {
		t.Fatal(err)
	}
	c.gate = newRateGate(0, o.InputTokensPerMinute, clk)
	d := synthDocs(12, []int{7})[0]
	if _, err := c.Contextualize(context.Background(), d.Doc, d.Chunks); err != nil {
		t.Fatal(err)
	}
	dp, err := c.planDoc(context.Background(), 0, d, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(dp.plan.groups) != 1 {
		t.Fatalf("want one prefix group, got %d", len(dp.plan.groups))
	}
	want := int64(dp.plan.groups[0].prefixTokens)
	for _, s := range dp.plan.suffixTokens {
		want += int64(s)
	}
	if c.gate.reserved != want || c.gate.calls != 7 {
		t.Errorf("reserved %d input tokens over %d calls, want %d (prefix once + every suffix) over 7", c.gate.reserved, c.gate.calls, want)
	}
}

func TestRateOptionsValidate(t *testing.T) {
	o := DefaultOptions()
	o.RequestsPerMinute = -1
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "RequestsPerMinute") {
		t.Errorf("negative RequestsPerMinute: %v", err)
	}
	o = DefaultOptions()
	o.InputTokensPerMinute = -5
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "InputTokensPerMinute") {
		t.Errorf("negative InputTokensPerMinute: %v", err)
	}
}
