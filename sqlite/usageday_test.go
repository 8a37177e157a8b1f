package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/situate/situate"
)

func TestUsageByDay(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 30, 0, 0, time.UTC) }
	calls := []situate.Usage{
		{Time: day(28, 23), Provider: "p", Model: "m", Operation: "context", InputTokens: 5, CostUSD: 1},
		{Time: day(29, 0), Provider: "p", Model: "m", Operation: "context", InputTokens: 10, CacheReadTokens: 90, OutputTokens: 7, CostUSD: 0.5},
		{Time: day(29, 23), Provider: "p", Model: "m", Operation: "embed", InputTokens: 3, CacheWriteTokens: 4, CostUSD: 0.25, Error: "boom"},
		{Time: day(30, 12), Provider: "p", Model: "m", Operation: "context", OutputTokens: 1},
	}
	for _, u := range calls {
		if err := s.RecordUsage(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.UsageByDay(ctx, day(29, 0).Truncate(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d days, want 2 (the 28th is before since): %+v", len(got), got)
	}
	d := got[0]
	if !d.Day.Equal(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)) || d.Calls != 2 || d.Errors != 1 || d.InputTokens != 13 ||
		d.CacheReadTokens != 90 || d.CacheWriteTokens != 4 || d.OutputTokens != 7 || d.CostUSD != 0.75 {
		t.Errorf("29th: %+v", d)
	}
	if d := got[1]; d.Day.Day() != 30 || d.Calls != 1 || d.OutputTokens != 1 {
		t.Errorf("30th: %+v", d)
	}
	all, err := s.UsageByDay(ctx, time.Time{})
	if err != nil || len(all) != 3 {
		t.Fatalf("all days: %v %+v", err, all)
	}
}
