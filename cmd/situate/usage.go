package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/situate/situate/report"
	"github.com/situate/situate/sqlite"
)

// usageTotalsJSON is one line of "situate usage --json".
type usageTotalsJSON struct {
	Provider         string  `json:"provider,omitempty"`
	Model            string  `json:"model,omitempty"`
	Operation        string  `json:"operation,omitempty"`
	Calls            int     `json:"calls"`
	Errors           int     `json:"errors"`
	Retries          int     `json:"retries"`
	InputTokens      int64   `json:"input_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadShare   float64 `json:"cache_read_share"`
	CostUSD          float64 `json:"cost_usd"`
	LatencyP50Ms     float64 `json:"latency_p50_ms"`
	LatencyP95Ms     float64 `json:"latency_p95_ms"`
	LatencyP99Ms     float64 `json:"latency_p99_ms"`
}

type usageJSON struct {
	Since  *time.Time        `json:"since,omitempty"`
	Total  usageTotalsJSON   `json:"total"`
	Groups []usageTotalsJSON `json:"groups"`
	// Contexts splits the context calls: every attempt (what the servers
	// processed), the calls (last attempts) and the successful ones.
	Contexts *contextUsageJSON `json:"contexts,omitempty"`
}

// contextUsageJSON is the context calls' usage by attempt.
type contextUsageJSON struct {
	Attempts       int             `json:"attempts"`
	Calls          int             `json:"calls"`
	Succeeded      int             `json:"succeeded"`
	Failed         int             `json:"failed"`
	FailedAttempts int             `json:"failed_attempts_retried"`
	Cancelled      int             `json:"cancelled_attempts"`
	AllAttempts    usageTokensJSON `json:"all_attempts"`
	SuccessfulOnly usageTokensJSON `json:"successful_calls"`
}

type usageTokensJSON struct {
	InputTokens      int64 `json:"input_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
}

// Operations of context usage records (package llm): a call's last
// attempt, an earlier attempt that failed and was repeated, an attempt cut
// short by cancellation.
const (
	opContext          = "context"
	opContextRetry     = "context-retry"
	opContextCancelled = "context-cancelled"
)

// contextUsage splits the context records of a summary by attempt; nil
// when there are none.
func contextUsage(ctx context.Context, store *sqlite.Store, from time.Time, sum sqlite.UsageSummary) (*contextUsageJSON, error) {
	var out contextUsageJSON
	add := func(t *usageTokensJSON, u sqlite.UsageTotals) {
		t.InputTokens += u.InputTokens
		t.CacheWriteTokens += u.CacheWriteTokens
		t.CacheReadTokens += u.CacheReadTokens
		t.OutputTokens += u.OutputTokens
	}
	seen := false
	for _, g := range sum.Groups {
		switch g.Operation {
		case opContext:
			out.Calls += g.Calls
			out.Failed += g.Errors
		case opContextRetry:
			out.FailedAttempts += g.Calls
		case opContextCancelled:
			out.Cancelled += g.Calls
		default:
			continue
		}
		seen = true
		out.Attempts += g.Calls
		add(&out.AllAttempts, g.UsageTotals)
	}
	if !seen {
		return nil, nil
	}
	out.Succeeded = out.Calls - out.Failed
	ok, err := store.SuccessfulUsage(ctx, from, opContext)
	if err != nil {
		return nil, err
	}
	add(&out.SuccessfulOnly, ok)
	return &out, nil
}

// readShare is the share of all input tokens (plain, cache write, cache
// read) that was read from the provider's prompt cache.
func readShare(t sqlite.UsageTotals) float64 {
	all := t.InputTokens + t.CacheWriteTokens + t.CacheReadTokens
	if all == 0 {
		return 0
	}
	return float64(t.CacheReadTokens) / float64(all)
}

func totalsJSON(p, m, op string, t sqlite.UsageTotals) usageTotalsJSON {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return usageTotalsJSON{Provider: p, Model: m, Operation: op, Calls: t.Calls, Errors: t.Errors, Retries: t.Retries,
		InputTokens: t.InputTokens, CacheWriteTokens: t.CacheWriteTokens, CacheReadTokens: t.CacheReadTokens,
		OutputTokens: t.OutputTokens, CacheReadShare: readShare(t), CostUSD: t.CostUSD,
		LatencyP50Ms: ms(t.LatencyP50), LatencyP95Ms: ms(t.LatencyP95), LatencyP99Ms: ms(t.LatencyP99)}
}

func runUsage(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("usage", "",
		"Report what provider calls actually cost, as recorded in the store: calls, errors (calls that finally\n"+
			"failed), retries, tokens by kind (input, cache write, cache read, output), the share of input read\n"+
			"from the prompt cache, cost and latency percentiles, in total and per provider, model and operation.\n"+
			"Every attempt is recorded: operation \"context\" is a chunk's call (its last attempt), \"context-retry\"\n"+
			"an earlier attempt that failed and was repeated (its tokens were processed all the same), and\n"+
			"\"context-cancelled\" an attempt cut short by cancellation (not an error).")
	c.flags(fs, "store", "config")
	since := fs.Duration("since", 0, "only calls made within this duration before now, e.g. 24h (0: all)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := c.parse(e, fs, args); err != nil {
		return err
	}
	if *since < 0 {
		return usagef("--since %s: must be >= 0", *since)
	}
	store, err := openStoreOnly(ctx, e, c)
	if err != nil {
		return err
	}
	defer store.Close()
	var from time.Time
	if *since > 0 {
		from = time.Now().Add(-*since)
	}
	sum, err := store.UsageSummary(ctx, from)
	if err != nil {
		return err
	}
	cu, err := contextUsage(ctx, store, from, sum)
	if err != nil {
		return err
	}
	if *asJSON {
		out := usageJSON{Total: totalsJSON("", "", "", sum.Total), Groups: []usageTotalsJSON{}, Contexts: cu}
		if !from.IsZero() {
			out.Since = &from
		}
		for _, g := range sum.Groups {
			out.Groups = append(out.Groups, totalsJSON(g.Provider, g.Model, g.Operation, g.UsageTotals))
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := e.stdout
	if from.IsZero() {
		fmt.Fprintf(w, "usage recorded in %s (all time)\n", c.storeDir(e))
	} else {
		fmt.Fprintf(w, "usage recorded in %s since %s\n", c.storeDir(e), from.Format(time.RFC3339))
	}
	if sum.Total.Calls == 0 {
		fmt.Fprintln(w, "no provider calls recorded")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "provider:model\toperation\tcalls\terrors\tretries\tinput\tcache write\tcache read\toutput\tread share\tcost USD\tp50\tp95\tp99\t")
	row := func(name, op string, t sqlite.UsageTotals) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t%.4f\t%s\t%s\t%s\t\n", name, op, t.Calls, t.Errors, t.Retries,
			t.InputTokens, t.CacheWriteTokens, t.CacheReadTokens, t.OutputTokens, 100*readShare(t), t.CostUSD,
			report.Latency(t.LatencyP50), report.Latency(t.LatencyP95), report.Latency(t.LatencyP99))
	}
	for _, g := range sum.Groups {
		name := g.Model
		if g.Provider != "" {
			name = g.Provider + ":" + g.Model
		}
		row(name, g.Operation, g.UsageTotals)
	}
	if len(sum.Groups) > 1 {
		row("total", "", sum.Total)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if cu != nil {
		tok := func(t usageTokensJSON) string {
			return fmt.Sprintf("input %d, cache write %d, cache read %d, output %d",
				t.InputTokens, t.CacheWriteTokens, t.CacheReadTokens, t.OutputTokens)
		}
		fmt.Fprintf(w, "context calls: %d attempts = %d calls (%d succeeded, %d failed) + %d failed attempts retried + %d cancelled\n",
			cu.Attempts, cu.Calls, cu.Succeeded, cu.Failed, cu.FailedAttempts, cu.Cancelled)
		fmt.Fprintf(w, "  every attempt (what the server processed): %s\n", tok(cu.AllAttempts))
		fmt.Fprintf(w, "  successful calls only:                     %s\n", tok(cu.SuccessfulOnly))
	}
	return nil
}

// openStoreOnly opens an existing store's database without the engine.
func openStoreOnly(ctx context.Context, e *env, c *config) (*sqlite.Store, error) {
	if err := needsSQLite(c, "this command"); err != nil {
		return nil, err
	}
	dir := c.storeDir(e)
	path := filepath.Join(dir, storeFile)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no store at %s (run 'situate index PATH' first, or pass --store): %w", dir, err)
	}
	return sqlite.Open(ctx, path)
}
