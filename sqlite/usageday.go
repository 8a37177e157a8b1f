package sqlite

import (
	"context"
	"time"
)

// UsageDay is the recorded usage of one UTC day.
type UsageDay struct {
	// Day is the day's midnight, UTC.
	Day time.Time
	// Calls counts provider calls; Errors those that finally failed.
	Calls, Errors    int
	InputTokens      int64
	CacheWriteTokens int64
	CacheReadTokens  int64
	OutputTokens     int64
	CostUSD          float64
}

const nanosPerDay = int64(24 * time.Hour)

// UsageByDay adds up the calls recorded at or after since by UTC day, in
// order of day; days without calls are left out. One query, grouped by the
// database.
func (s *Store) UsageByDay(ctx context.Context, since time.Time) ([]UsageDay, error) {
	from := int64(0)
	if !since.IsZero() {
		from = since.UnixNano()
	}
	rows, err := s.r.QueryContext(ctx, `SELECT time / ? AS day, COUNT(*), SUM(error != ''), SUM(input_tokens),
		SUM(cache_write_tokens), SUM(cache_read_tokens), SUM(output_tokens), SUM(cost_usd)
		FROM usage WHERE time >= ? GROUP BY day ORDER BY day`, nanosPerDay, from)
	if err != nil {
		return nil, s.errorf("usage by day", err)
	}
	defer rows.Close()
	var out []UsageDay
	for rows.Next() {
		var d UsageDay
		var day int64
		if err := rows.Scan(&day, &d.Calls, &d.Errors, &d.InputTokens, &d.CacheWriteTokens, &d.CacheReadTokens,
			&d.OutputTokens, &d.CostUSD); err != nil {
			return nil, s.errorf("usage by day", err)
		}
		d.Day = time.Unix(0, day*nanosPerDay).UTC()
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("usage by day", err)
	}
	return out, nil
}
