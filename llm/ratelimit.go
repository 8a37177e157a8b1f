package llm

import (
	"context"
	"sync"
	"time"
)

// clock is the time source of the rate gate (a fake one in tests).
type clock interface {
	Now() time.Time
	// SleepUntil waits until t or until ctx is done.
	SleepUntil(ctx context.Context, t time.Time) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) SleepUntil(ctx context.Context, t time.Time) error {
	return sleep(ctx, time.Until(t))
}

// bucket is a token bucket holding up to capacity tokens, refilled at rate
// tokens per second. A reservation may take it below zero (debt): the
// reserving call then waits until the debt is repaid, and so do the calls
// queued after it, in order. This is how Anthropic describes its limits: a
// bucket replenished continuously up to the per-minute maximum.
type bucket struct {
	rate     float64 // tokens per second
	capacity float64
	avail    float64
	last     time.Time
}

func newBucket(perMinute int, now time.Time) *bucket {
	return &bucket{rate: float64(perMinute) / 60, capacity: float64(perMinute), avail: float64(perMinute), last: now}
}

func (b *bucket) refill(now time.Time) {
	if d := now.Sub(b.last).Seconds(); d > 0 {
		b.avail = min(b.capacity, b.avail+d*b.rate)
		b.last = now
	}
}

// reserve takes n tokens and returns how long to wait before using them.
func (b *bucket) reserve(now time.Time, n float64) time.Duration {
	b.refill(now)
	b.avail -= n
	if b.avail >= 0 {
		return 0
	}
	return time.Duration(-b.avail / b.rate * float64(time.Second))
}

// give returns n tokens (a cancelled reservation, or an estimate that was
// too high); a negative n takes more (an estimate that was too low).
func (b *bucket) give(now time.Time, n float64) {
	b.refill(now)
	b.avail = min(b.capacity, b.avail+n)
}

// rateGate enforces Options.RequestsPerMinute and InputTokensPerMinute over
// all calls of a Contextualizer, retries included.
type rateGate struct {
	mu    sync.Mutex
	clock clock
	req   *bucket // nil: no request limit
	tok   *bucket // nil: no input-token limit
	// Totals, for reports and tests: calls let through, input tokens
	// reserved (estimates, before correction), calls that had to wait and
	// how long they waited in all.
	calls    int
	reserved int64
	waits    int
	waited   time.Duration
}

// newRateGate returns nil when there is no limit.
func newRateGate(rpm, itpm int, clk clock) *rateGate {
	if rpm <= 0 && itpm <= 0 {
		return nil
	}
	g := &rateGate{clock: clk}
	now := clk.Now()
	if rpm > 0 {
		g.req = newBucket(rpm, now)
	}
	if itpm > 0 {
		g.tok = newBucket(itpm, now)
	}
	return g
}

// wait reserves one request and tokens input tokens and waits until both
// are available. On cancellation the reservation is given back.
func (g *rateGate) wait(ctx context.Context, tokens int) error {
	g.mu.Lock()
	now := g.clock.Now()
	var d time.Duration
	if g.req != nil {
		d = max(d, g.req.reserve(now, 1))
	}
	if g.tok != nil {
		d = max(d, g.tok.reserve(now, float64(tokens)))
	}
	g.calls++
	g.reserved += int64(tokens)
	if d > 0 {
		g.waits++
		g.waited += d
	}
	g.mu.Unlock()
	if d <= 0 {
		return nil
	}
	if err := g.clock.SleepUntil(ctx, now.Add(d)); err != nil {
		g.mu.Lock()
		now := g.clock.Now()
		if g.req != nil {
			g.req.give(now, 1)
		}
		if g.tok != nil {
			g.tok.give(now, float64(tokens))
		}
		g.mu.Unlock()
		return err
	}
	return nil
}

// correct settles a call's input tokens once the provider reported them:
// estimated was reserved, actual were counted.
func (g *rateGate) correct(estimated, actual int) {
	if g.tok == nil || actual <= 0 || actual == estimated {
		return
	}
	g.mu.Lock()
	g.tok.give(g.clock.Now(), float64(estimated-actual))
	g.mu.Unlock()
}
