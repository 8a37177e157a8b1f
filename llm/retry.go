package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"
)

// Retryable is implemented by provider errors that know whether repeating
// the call may succeed (HTTP 408, 409, 429, 5xx, 529 overloaded, connection
// resets) and how long the server asked to wait (Retry-After header;
// 0 = no advice). Provider packages implement it on their error type;
// the contextualizer finds it with errors.As, so it may be wrapped.
type Retryable interface {
	Retryable() bool
	RetryAfter() time.Duration
}

// RateLimited is optionally implemented by a Retryable error to say it is a
// rate limit (HTTP 429 or an "overloaded" answer). When an error does not
// implement it, a retryable error with a RetryAfter is taken as a rate limit.
// Rate limits halve the concurrency.
type RateLimited interface {
	RateLimited() bool
}

// classify says whether err is worth retrying, after how long the server
// asked to wait, and whether it is a rate limit. A per-call timeout
// (context.DeadlineExceeded while the run's context is alive) is retryable.
func classify(parent context.Context, err error) (retry bool, after time.Duration, rateLimited bool) {
	var r Retryable
	if errors.As(err, &r) && r.Retryable() {
		after = max(r.RetryAfter(), 0)
		var rl RateLimited
		if errors.As(err, &rl) {
			rateLimited = rl.RateLimited()
		} else {
			rateLimited = after > 0
		}
		return true, after, rateLimited
	}
	if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
		return true, 0, false
	}
	return false, 0, false
}

// backoff is the wait before retry attempt (0-based): full jitter over
// base*2^attempt capped at max, and never less than the server's advice
// (plus up to 10% jitter so clients do not return in lockstep).
func backoff(attempt int, base, maxWait, after time.Duration) time.Duration {
	d := base << min(attempt, 30)
	if d <= 0 || d > maxWait {
		d = maxWait
	}
	wait := time.Duration(rand.Int64N(int64(d) + 1))
	if after > 0 {
		wait = after + time.Duration(rand.Int64N(int64(after)/10+1))
	}
	return wait
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// limiter is a semaphore whose size adapts: it halves on a rate limit
// (at most once per round of calls started before the last decrease) and
// grows by one after as many successes as its current size (additive
// increase), up to max.
type limiter struct {
	mu       sync.Mutex
	cond     *sync.Cond
	max      int
	limit    int
	inUse    int
	succ     int
	epoch    int // increases on every decrease
	decrease int // number of decreases (for tests and reports)
	closed   bool
}

func newLimiter(n int) *limiter {
	l := &limiter{max: n, limit: n}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// acquire waits for a slot; it returns the epoch the slot was taken in, or
// false if the limiter was closed.
func (l *limiter) acquire() (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for !l.closed && l.inUse >= l.limit {
		l.cond.Wait()
	}
	if l.closed {
		return 0, false
	}
	l.inUse++
	return l.epoch, true
}

func (l *limiter) release() {
	l.mu.Lock()
	l.inUse--
	l.mu.Unlock()
	l.cond.Broadcast()
}

func (l *limiter) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cond.Broadcast()
}

func (l *limiter) success() {
	l.mu.Lock()
	l.succ++
	if l.succ >= l.limit && l.limit < l.max {
		l.limit++
		l.succ = 0
	}
	l.mu.Unlock()
	l.cond.Broadcast()
}

// rateLimited halves the limit unless it was already halved since epoch
// (the caller's last look); it returns the current epoch.
func (l *limiter) rateLimited(epoch int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if epoch != l.epoch {
		return l.epoch
	}
	l.limit = max(1, l.limit/2)
	l.succ = 0
	l.epoch++
	l.decrease++
	return l.epoch
}

func (l *limiter) current() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}
