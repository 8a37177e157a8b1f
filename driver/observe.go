package driver

import "context"

// CallEvent is one provider call's progress, reported while a document is
// contextualized, so that a front end can show calls (not only documents)
// and a run can react to a failing provider as it happens.
type CallEvent struct {
	DocID string
	// Kind is "start" when a call is sent, "done" when it succeeded, "retry"
	// when a failed attempt will be repeated, "fail" when the call gave up,
	// and "fallback" when a chunk got the fallback context instead.
	Kind string
	// Err is the attempt's error for "retry" and "fail".
	Err error
	// Usage is what the attempt cost (also for failed attempts: what the
	// server processed).
	Usage Usage
}

// Call event kinds.
const (
	CallStart    = "start"
	CallDone     = "done"
	CallRetry    = "retry"
	CallFail     = "fail"
	CallFallback = "fallback"
)

// WithCallObserver returns a context whose contextualizer calls are reported
// to fn. fn is called from many goroutines and must be safe for that.
func WithCallObserver(ctx context.Context, fn func(CallEvent)) context.Context {
	return context.WithValue(ctx, callObserverKey{}, fn)
}

// ObserveCall reports ev to the observer of ctx, if any. Contextualizers
// call it for every attempt.
func ObserveCall(ctx context.Context, ev CallEvent) {
	if fn, ok := ctx.Value(callObserverKey{}).(func(CallEvent)); ok && fn != nil {
		fn(ev)
	}
}

type callObserverKey struct{}
