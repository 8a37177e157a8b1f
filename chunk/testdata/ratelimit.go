// Package ratelimit implements a token bucket.
package ratelimit

import (
	"errors"
	"sync"
	"time"
)

// ErrRate is returned for a non-positive rate.
var ErrRate = errors.New("ratelimit: rate must be positive")

// Limiter is a token bucket: it holds up to Burst tokens and refills at
// Rate tokens per second. It is safe for concurrent use.
type Limiter struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
	now    func() time.Time
}

// New returns a full bucket.
func New(rate float64, burst int) (*Limiter, error) {
	if rate <= 0 {
		return nil, ErrRate
	}
	l := &Limiter{rate: rate, burst: float64(burst), tokens: float64(burst), now: time.Now}
	l.last = l.now()
	return l, nil
}

// Allow reports whether one token is available and takes it if so.
func (l *Limiter) Allow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill()
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

// refill adds the tokens earned since the last call. The caller holds mu.
func (l *Limiter) refill() {
	now := l.now()
	elapsed := now.Sub(l.last).Seconds()
	l.last = now
	l.tokens += elapsed * l.rate
	if l.tokens > l.burst {
		l.tokens = l.burst
	}
}

// Wait blocks until a token is available or the deadline passes.
func (l *Limiter) Wait(deadline time.Time) error {
	for {
		if l.Allow() {
			return nil
		}
		if !l.now().Before(deadline) {
			return errors.New("ratelimit: deadline exceeded")
		}
		time.Sleep(time.Duration(float64(time.Second) / l.rate))
	}
}
