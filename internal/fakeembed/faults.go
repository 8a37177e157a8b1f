package fakeembed

import (
	"strconv"
	"time"
)

// Take serves the fakes' fault queues: it finds the first fault in *queue
// that matches (a nil matches accepts any). If that fault's skip count
// (*skip(f)) is above 0 it counts it down and returns nil: the request
// passes. Otherwise it removes the fault from the queue and returns it.
// The caller holds the lock that guards the queue.
func Take[F any](queue *[]F, matches func(*F) bool, skip func(*F) *int) *F {
	q := *queue
	for i := range q {
		if matches != nil && !matches(&q[i]) {
			continue
		}
		if n := skip(&q[i]); *n > 0 {
			*n--
			return nil
		}
		f := q[i]
		*queue = append(q[:i:i], q[i+1:]...)
		return &f
	}
	return nil
}

// RetryAfter is a retry-after header value: d in whole seconds, rounded
// up.
func RetryAfter(d time.Duration) string {
	return strconv.Itoa(int((d + time.Second - 1) / time.Second))
}
