package llm

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/situate/situate/driver"
)

// Tally counts what a run's calls cost (calls, tokens by kind, spend) and
// which documents made context calls, and passes every record on to Next
// (nil: nowhere). A front end wraps its store's usage ledger with one for
// its progress line and summary. It is a driver.AttemptRecorder: a call
// recorded before it is sent is counted when FinishUsage completes it.
type Tally struct {
	Next driver.UsageRecorder

	calls, input, read, write, out, micros atomic.Int64

	mu   sync.Mutex
	docs map[string]bool // documents that made a context call
}

// RecordUsage counts a finished call and passes it on.
func (t *Tally) RecordUsage(ctx context.Context, u driver.Usage) error {
	t.note(u)
	t.add(u)
	if t.Next == nil {
		return nil
	}
	return t.Next.RecordUsage(ctx, u)
}

// BeginUsage notes the call's document and passes the attempt on; the
// call is counted when FinishUsage completes it.
func (t *Tally) BeginUsage(ctx context.Context, u driver.Usage) (int64, error) {
	t.note(u)
	if a, ok := t.Next.(driver.AttemptRecorder); ok {
		return a.BeginUsage(ctx, u)
	}
	return 0, nil
}

// FinishUsage counts the call and completes its record, or records the
// finished call alone when Next cannot record attempts (id 0).
func (t *Tally) FinishUsage(ctx context.Context, id int64, u driver.Usage) error {
	t.note(u)
	t.add(u)
	if a, ok := t.Next.(driver.AttemptRecorder); ok && id != 0 {
		return a.FinishUsage(ctx, id, u)
	}
	if t.Next == nil {
		return nil
	}
	return t.Next.RecordUsage(ctx, u)
}

func (t *Tally) add(u driver.Usage) {
	t.calls.Add(1)
	t.input.Add(int64(u.InputTokens))
	t.read.Add(int64(u.CacheReadTokens))
	t.write.Add(int64(u.CacheWriteTokens))
	t.out.Add(int64(u.OutputTokens))
	t.micros.Add(int64(u.CostUSD * 1e6))
}

func (t *Tally) note(u driver.Usage) {
	if strings.HasPrefix(u.Operation, "context") {
		t.mu.Lock()
		if t.docs == nil {
			t.docs = map[string]bool{}
		}
		t.docs[u.DocID] = true
		t.mu.Unlock()
	}
}

// Calls is the number of finished calls counted.
func (t *Tally) Calls() int64 { return t.calls.Load() }

// Resituated counts the documents among ids that made a context call.
func (t *Tally) Resituated(ids map[string]bool) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for id := range t.docs {
		if ids[id] {
			n++
		}
	}
	return n
}

// String is "N calls · T tokens in, O out · P% cached · $C".
func (t *Tally) String() string {
	in := t.input.Load() + t.read.Load() + t.write.Load()
	share := 0.0
	if in > 0 {
		share = 100 * float64(t.read.Load()) / float64(in)
	}
	return fmt.Sprintf("%d calls · %s tokens in, %s out · %.0f%% cached · $%.4f",
		t.calls.Load(), humanCount(in), humanCount(t.out.Load()), share, float64(t.micros.Load())/1e6)
}

func humanCount(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
