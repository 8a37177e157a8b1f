package sqlite

import (
	"context"
	"time"
)

// SuccessfulUsage adds up the calls of one operation recorded at or after
// since (all for the zero time) that did not fail: what the successful calls
// cost, apart from failed and repeated attempts. Latencies are left zero.
func (s *Store) SuccessfulUsage(ctx context.Context, since time.Time, operation string) (UsageTotals, error) {
	var t UsageTotals
	var from int64 = -1 << 63
	if !since.IsZero() {
		from = since.UnixNano()
	}
	err := s.r.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(retries), 0), coalesce(sum(input_tokens), 0),
		coalesce(sum(cache_write_tokens), 0), coalesce(sum(cache_read_tokens), 0), coalesce(sum(output_tokens), 0),
		coalesce(sum(cost_usd), 0)
		FROM usage WHERE time >= ? AND operation = ? AND error = ''`, from, operation).
		Scan(&t.Calls, &t.Retries, &t.InputTokens, &t.CacheWriteTokens, &t.CacheReadTokens, &t.OutputTokens, &t.CostUSD)
	if err != nil {
		return t, s.errorf("successful usage", err)
	}
	return t, nil
}
