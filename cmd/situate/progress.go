package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/situate/situate"
)

// progress draws a bar with counts and ETA on a terminal and nothing
// elsewhere, so logs and pipes stay clean.
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(w io.Writer, total int, what string, quiet bool) *progress {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) || total == 0 {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progress) add(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}

// describe replaces the text before the bar.
func (p *progress) describe(s string) {
	if p.bar != nil {
		p.bar.Describe(s)
	}
}

func (p *progress) done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// usageTally counts what the LLM calls of this run cost, for the progress
// line, and passes every record on to the store.
type usageTally struct {
	next                                   situate.UsageRecorder
	calls, input, read, write, out, micros atomic.Int64
}

func (u *usageTally) RecordUsage(ctx context.Context, x situate.Usage) error {
	u.calls.Add(1)
	u.input.Add(int64(x.InputTokens))
	u.read.Add(int64(x.CacheReadTokens))
	u.write.Add(int64(x.CacheWriteTokens))
	u.out.Add(int64(x.OutputTokens))
	u.micros.Add(int64(x.CostUSD * 1e6))
	return u.next.RecordUsage(ctx, x)
}

// String is "N calls · T tokens · P% cached · $C".
func (u *usageTally) String() string {
	in := u.input.Load() + u.read.Load() + u.write.Load()
	share := 0.0
	if in > 0 {
		share = 100 * float64(u.read.Load()) / float64(in)
	}
	return fmt.Sprintf("%d calls · %s tokens in, %s out · %.0f%% cached · $%.4f",
		u.calls.Load(), humanCount(in), humanCount(u.out.Load()), share, float64(u.micros.Load())/1e6)
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
