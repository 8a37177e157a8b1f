package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/situate/situate/driver"
)

// breaker stops every run of a Contextualizer when its provider fails every
// call: after Options.BreakerFailures failed attempts in a row, or when no
// attempt succeeded for Options.BreakerWindow while at least
// breakerMinFailures failed (a server that is gone, answered slowly with
// backoff). It also stops them at the first error that no retry can fix
// (situate.ErrUnauthorized, situate.ErrModelNotFound). Once tripped it
// stays so for BreakerWindow (every call fails at once), then closes
// again, so a long-lived process recovers when the server is back.
type breaker struct {
	clock    clock
	failures int           // 0: disabled
	window   time.Duration // 0: no time rule

	mu          sync.Mutex
	consecutive int
	lastSuccess time.Time // or the first failure after a success
	tripped     error
	trippedAt   time.Time
	done        chan struct{} // closed when tripped
}

// breakerMinFailures is the fewest failed attempts that trip the time rule.
const breakerMinFailures = 3

func newBreaker(failures int, window time.Duration, clk clock) *breaker {
	return &breaker{clock: clk, failures: failures, window: window, done: make(chan struct{})}
}

// state returns the trip error (nil while closed) and a channel closed when
// the breaker trips.
func (b *breaker) state() (error, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.maybeReset()
	return b.tripped, b.done
}

// maybeReset closes a breaker tripped longer than the window ago.
func (b *breaker) maybeReset() {
	if b.tripped == nil || b.window <= 0 || b.clock.Now().Sub(b.trippedAt) < b.window {
		return
	}
	b.tripped = nil
	b.consecutive = 0
	b.lastSuccess = time.Time{}
	b.done = make(chan struct{})
}

func (b *breaker) success() {
	b.mu.Lock()
	b.consecutive = 0
	b.lastSuccess = time.Time{}
	b.mu.Unlock()
}

// failure counts a failed attempt; it returns the trip error when this
// failure trips the breaker (or it was tripped already).
func (b *breaker) failure(err error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failures <= 0 {
		return nil
	}
	b.maybeReset()
	if b.tripped != nil {
		return b.tripped
	}
	now := b.clock.Now()
	if b.consecutive == 0 {
		b.lastSuccess = now
	}
	b.consecutive++
	switch {
	case b.consecutive >= b.failures:
		b.trip(fmt.Errorf("llm: %d calls in a row failed, the last with: %v: %w", b.consecutive, err, driver.ErrProviderFailing))
	case b.window > 0 && b.consecutive >= breakerMinFailures && now.Sub(b.lastSuccess) >= b.window:
		b.trip(fmt.Errorf("llm: every call failed for %s (%d attempts), the last with: %v: %w",
			now.Sub(b.lastSuccess).Round(time.Second), b.consecutive, err, driver.ErrProviderFailing))
	}
	return b.tripped
}

// fatal trips the breaker with an error no retry can fix.
func (b *breaker) fatal(err error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.maybeReset()
	if b.tripped == nil {
		b.trip(err)
	}
	return b.tripped
}

func (b *breaker) trip(err error) {
	b.tripped = err
	b.trippedAt = b.clock.Now()
	close(b.done)
}

// fatalError reports errors that stop a run at once: the provider refused
// the credentials or does not serve the model.
func fatalError(err error) bool {
	return errors.Is(err, driver.ErrUnauthorized) || errors.Is(err, driver.ErrModelNotFound)
}

// countsForBreaker says whether a failed attempt says something about the
// provider: a prompt too large for the window is the input's fault, and a
// cancelled run is nobody's.
func countsForBreaker(err error) bool {
	return !errors.Is(err, driver.ErrPromptTooLarge) && !errors.Is(err, context.Canceled)
}
