package sqlite

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/situate/situate/driver"
)

// RecordUsage stores one provider call. A zero Time is recorded as now.
func (s *Store) RecordUsage(ctx context.Context, u driver.Usage) error {
	_, err := s.BeginUsage(ctx, u)
	return err
}

// UsageTotals adds up provider calls.
type UsageTotals struct {
	Calls int
	// Errors counts calls that finally failed; Retries sums their retries.
	Errors           int
	Retries          int
	InputTokens      int64
	CacheWriteTokens int64
	CacheReadTokens  int64
	OutputTokens     int64
	CostUSD          float64
	// Latency percentiles over the calls (nearest-rank).
	LatencyP50, LatencyP95, LatencyP99 time.Duration
}

// UsageGroup is the usage of one provider, model and operation.
type UsageGroup struct {
	Provider, Model, Operation string
	UsageTotals
}

// UsageSummary is the recorded usage since a point in time.
type UsageSummary struct {
	Since time.Time
	Total UsageTotals
	// Groups is ordered by provider, model, operation.
	Groups []UsageGroup
}

// UsageSummary adds up the calls recorded at or after since (all calls for
// the zero time).
func (s *Store) UsageSummary(ctx context.Context, since time.Time) (UsageSummary, error) {
	sum := UsageSummary{Since: since}
	var from int64 = -1 << 63
	if !since.IsZero() {
		from = since.UnixNano()
	}
	rows, err := s.r.QueryContext(ctx, `SELECT provider, model, operation, input_tokens, cache_write_tokens,
		cache_read_tokens, output_tokens, latency_ns, retries, error != '', cost_usd
		FROM usage WHERE time >= ? ORDER BY provider, model, operation`, from)
	if err != nil {
		return sum, s.errorf("usage summary", err)
	}
	defer rows.Close()
	var (
		all, group []time.Duration
		g          *UsageGroup
	)
	for rows.Next() {
		var (
			p, m, op        string
			in, cw, cr, out int64
			lat             int64
			retries         int
			failed          bool
			cost            float64
		)
		if err := rows.Scan(&p, &m, &op, &in, &cw, &cr, &out, &lat, &retries, &failed, &cost); err != nil {
			return sum, s.errorf("usage summary", err)
		}
		if g == nil || g.Provider != p || g.Model != m || g.Operation != op {
			if g != nil {
				g.setLatencies(group)
			}
			sum.Groups = append(sum.Groups, UsageGroup{Provider: p, Model: m, Operation: op})
			g = &sum.Groups[len(sum.Groups)-1]
			group = group[:0]
		}
		for _, t := range []*UsageTotals{&sum.Total, &g.UsageTotals} {
			t.Calls++
			if failed {
				t.Errors++
			}
			t.Retries += retries
			t.InputTokens += in
			t.CacheWriteTokens += cw
			t.CacheReadTokens += cr
			t.OutputTokens += out
			t.CostUSD += cost
		}
		all = append(all, time.Duration(lat))
		group = append(group, time.Duration(lat))
	}
	if err := rows.Err(); err != nil {
		return sum, s.errorf("usage summary", err)
	}
	if g != nil {
		g.setLatencies(group)
	}
	sum.Total.setLatencies(all)
	return sum, nil
}

func (t *UsageTotals) setLatencies(d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	t.LatencyP50 = percentile(d, 50)
	t.LatencyP95 = percentile(d, 95)
	t.LatencyP99 = percentile(d, 99)
}

// percentile returns the nearest-rank p-th percentile of sorted d.
func percentile(d []time.Duration, p int) time.Duration {
	rank := (p*len(d) + 99) / 100 // ceil(p/100 * n)
	if rank < 1 {
		rank = 1
	}
	return d[rank-1]
}

// Stats describes what the store holds.
type Stats struct {
	Documents int
	Chunks    int
	// DocumentsByLang and ChunksByLang count by the resolved language.
	DocumentsByLang map[string]int
	ChunksByLang    map[string]int
	// ContextsBySource counts chunk contexts by Context.Source ("offline",
	// "provided", "anthropic:claude-haiku-4-5"...); chunks without a context
	// count under "".
	ContextsBySource map[string]int
	// FlaggedContexts counts chunk contexts with at least one flag.
	FlaggedContexts int
	CachedContexts  int
	CachedVectors   int
	UsageRecords    int
	// FileBytes is the size of the database file plus its write-ahead log.
	FileBytes int64
}

// Stats counts documents, chunks and contexts, in one snapshot.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	st := Stats{
		DocumentsByLang:  map[string]int{},
		ChunksByLang:     map[string]int{},
		ContextsBySource: map[string]int{},
	}
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return st, s.errorf("stats", err)
	}
	defer tx.Rollback()
	for _, q := range []struct {
		query string
		dst   *int
	}{
		{`SELECT count(*) FROM documents`, &st.Documents},
		{`SELECT count(*) FROM chunks`, &st.Chunks},
		{`SELECT count(*) FROM chunks WHERE context_flags != '[]'`, &st.FlaggedContexts},
		{`SELECT count(*) FROM context_cache`, &st.CachedContexts},
		{`SELECT count(*) FROM vector_cache`, &st.CachedVectors},
		{`SELECT count(*) FROM usage`, &st.UsageRecords},
	} {
		if err := tx.QueryRowContext(ctx, q.query).Scan(q.dst); err != nil {
			return st, s.errorf("stats", err)
		}
	}
	for _, q := range []struct {
		query string
		dst   map[string]int
	}{
		{`SELECT lang, count(*) FROM documents GROUP BY lang`, st.DocumentsByLang},
		{`SELECT d.lang, count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id GROUP BY d.lang`, st.ChunksByLang},
		{`SELECT context_source, count(*) FROM chunks GROUP BY context_source`, st.ContextsBySource},
	} {
		rows, err := tx.QueryContext(ctx, q.query)
		if err != nil {
			return st, s.errorf("stats", err)
		}
		for rows.Next() {
			var (
				k string
				n int
			)
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return st, s.errorf("stats", err)
			}
			q.dst[k] = n
		}
		if err := rows.Close(); err != nil {
			return st, s.errorf("stats", err)
		}
		if err := rows.Err(); err != nil {
			return st, s.errorf("stats", err)
		}
	}
	for _, p := range []string{s.path, s.path + "-wal"} {
		fi, err := os.Stat(p)
		if err == nil {
			st.FileBytes += fi.Size()
		} else if !os.IsNotExist(err) {
			return st, s.errorf("stats", err)
		}
	}
	return st, nil
}

var _ driver.AttemptRecorder = (*Store)(nil)

// BeginUsage records a call before it is sent and returns the record's id
// (driver.AttemptRecorder); RecordUsage is BeginUsage without the id.
func (s *Store) BeginUsage(ctx context.Context, u driver.Usage) (int64, error) {
	t := u.Time
	if t.IsZero() {
		t = time.Now()
	}
	res, err := s.stmts.recordUsage.ExecContext(ctx, t.UnixNano(), u.Provider, u.Model, u.Operation, u.DocID,
		u.InputTokens, u.CacheWriteTokens, u.CacheReadTokens, u.OutputTokens, int64(u.Latency),
		u.Retries, u.Error, u.CostUSD)
	if err != nil {
		return 0, s.errorf(fmt.Sprintf("record usage of %s/%s %s", u.Provider, u.Model, u.Operation), err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, s.errorf("record usage", err)
	}
	return id, nil
}

// FinishUsage replaces the record BeginUsage made with the call's usage.
func (s *Store) FinishUsage(ctx context.Context, id int64, u driver.Usage) error {
	t := u.Time
	if t.IsZero() {
		t = time.Now()
	}
	_, err := s.w.ExecContext(ctx, `UPDATE usage SET time = ?, provider = ?, model = ?, operation = ?, doc_id = ?,
		input_tokens = ?, cache_write_tokens = ?, cache_read_tokens = ?, output_tokens = ?, latency_ns = ?,
		retries = ?, error = ?, cost_usd = ? WHERE id = ?`,
		t.UnixNano(), u.Provider, u.Model, u.Operation, u.DocID, u.InputTokens, u.CacheWriteTokens,
		u.CacheReadTokens, u.OutputTokens, int64(u.Latency), u.Retries, u.Error, u.CostUSD, id)
	if err != nil {
		return s.errorf(fmt.Sprintf("record usage of %s/%s %s", u.Provider, u.Model, u.Operation), err)
	}
	return nil
}
