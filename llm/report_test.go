package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/driver"
)

func TestCostReport(t *testing.T) {
	est := CostEstimate{Model: "anthropic:claude-haiku-4-5", Docs: 2, Chunks: 5, Calls: 4, WholeDocuments: 1, SavedCalls: 1,
		PromptTokens: 1000, InputTokens: 200, CacheWriteTokens: 300, CacheReadTokens: 500, OutputTokens: 400,
		PriceKnown: true, Price: Price{MinCacheTokens: 4096, BatchDiscount: 0.5}, CostUSD: 0.01, CostNoCacheUSD: 0.02,
		CostBatchUSD: 0.005, Duration: 90 * time.Second, Concurrency: 3}
	eo := EstimateOptions{Options: DefaultOptions(), OutputTokens: 100, Latency: 2 * time.Second}
	eo.Concurrency, eo.ContextWindow = 8, 200000
	r := est.Report(eo, 7)
	if r.CacheReadShare != 0.5 || r.Concurrency != 8 || r.MinCacheTokens != 4096 || !r.PriceKnown || r.CostBatchUSD != 0.005 ||
		r.Skipped != 7 || r.OneChunkDocs != 1 || r.Local || r.Seconds != 90 || r.ContextWindow != 200000 {
		t.Errorf("hosted report: %+v", r)
	}
	b, _ := json.Marshal(r)
	for _, field := range []string{`"cache_read_share":0.5`, `"cost_batch_usd":0.005`, `"one_chunk_documents":1`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("JSON lacks %s: %s", field, b)
		}
	}
	if strings.Contains(string(b), `"local"`) {
		t.Errorf("a hosted report says local: %s", b)
	}
	var w strings.Builder
	est.WriteText(&w, eo, 7, 2, 4)
	for _, line := range []string{"estimate for anthropic:claude-haiku-4-5", "documents        2 (7 files skipped)",
		"cache read     500 (50.0% of prompt tokens)", "$0.0100 with prompt caching", "1m30s at 8 calls in flight (2 documents x 4)"} {
		if !strings.Contains(w.String(), line) {
			t.Errorf("text lacks %q:\n%s", line, w.String())
		}
	}

	// A local server's report: server time, no price.
	eo.Local = &LocalServer{Slots: 4, PrefillPerSecond: 900, DecodePerSecond: 30, Parallel: 2.5, Fixed: 10 * time.Second}
	r = est.Report(eo, 0)
	if !r.Local || r.Slots != 4 || r.ServerSeconds != 80 || r.FixedSeconds != 10 || r.Concurrency != 3 || r.PriceKnown || r.CostUSD != 0 || r.OutputPerCall != 100 {
		t.Errorf("local report: %+v", r)
	}
}

func TestRoundDuration(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{1234 * time.Millisecond: 1200 * time.Millisecond, 61*time.Second + 600*time.Millisecond: 62 * time.Second} {
		if got := RoundDuration(d); got != want {
			t.Errorf("RoundDuration(%s) = %s, want %s", d, got, want)
		}
	}
}

// attempts is a usage ledger that records attempts, as the SQLite store does.
type attempts struct {
	begun, finished, recorded int
}

func (a *attempts) RecordUsage(context.Context, driver.Usage) error { a.recorded++; return nil }
func (a *attempts) BeginUsage(context.Context, driver.Usage) (int64, error) {
	a.begun++
	return int64(a.begun), nil
}
func (a *attempts) FinishUsage(context.Context, int64, driver.Usage) error { a.finished++; return nil }

func TestTally(t *testing.T) {
	ctx := context.Background()
	next := &attempts{}
	tally := &Tally{Next: next}
	u := driver.Usage{Operation: "context", DocID: "a", InputTokens: 1500, CacheReadTokens: 500, OutputTokens: 80, CostUSD: 0.25}
	id, err := tally.BeginUsage(ctx, u)
	if err != nil || id != 1 || tally.Calls() != 0 {
		t.Fatalf("BeginUsage: id %d, err %v, calls %d: an attempt begun is not a call yet", id, err, tally.Calls())
	}
	if err := tally.FinishUsage(ctx, id, u); err != nil {
		t.Fatal(err)
	}
	if err := tally.RecordUsage(ctx, driver.Usage{Operation: "embed", DocID: "b", InputTokens: 10}); err != nil {
		t.Fatal(err)
	}
	if next.begun != 1 || next.finished != 1 || next.recorded != 1 {
		t.Errorf("passed on: %+v", next)
	}
	if got, want := tally.String(), "2 calls · 2.0k tokens in, 80 out · 25% cached · $0.2500"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if n := tally.Resituated(map[string]bool{"a": true, "b": true, "c": true}); n != 1 {
		t.Errorf("Resituated = %d, want 1 (only a made a context call)", n)
	}
	// Without a ledger that records attempts the finished call is recorded.
	plain := &Tally{Next: recorderFunc(func() { next.recorded++ })}
	id, _ = plain.BeginUsage(ctx, u)
	plain.FinishUsage(ctx, id, u)
	if id != 0 || next.recorded != 2 {
		t.Errorf("plain ledger: id %d, recorded %d", id, next.recorded)
	}
}

type recorderFunc func()

func (f recorderFunc) RecordUsage(context.Context, driver.Usage) error { f(); return nil }
