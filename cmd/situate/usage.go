package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

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
			"from the prompt cache, cost and latency percentiles, in total and per provider, model and operation.")
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
	if *asJSON {
		out := usageJSON{Total: totalsJSON("", "", "", sum.Total), Groups: []usageTotalsJSON{}}
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
			roundLatency(t.LatencyP50), roundLatency(t.LatencyP95), roundLatency(t.LatencyP99))
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
	return tw.Flush()
}

func roundLatency(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d
}

// openStoreOnly opens an existing store's database without the engine.
func openStoreOnly(ctx context.Context, e *env, c *config) (*sqlite.Store, error) {
	dir := c.storeDir(e)
	path := filepath.Join(dir, storeFile)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no store at %s (run 'situate index PATH' first, or pass --store): %w", dir, err)
	}
	return sqlite.Open(ctx, path)
}
