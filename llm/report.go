package llm

import (
	"fmt"
	"io"
	"time"
)

// CostReport is a CostEstimate as "situate cost --json" prints it.
type CostReport struct {
	Model            string  `json:"model"`
	Docs             int     `json:"docs"`
	Chunks           int     `json:"chunks"`
	Calls            int     `json:"calls"`
	TooLarge         int     `json:"too_large"`
	Excerpted        int     `json:"excerpted"`
	ContextWindow    int     `json:"context_window"`
	MinCacheTokens   int     `json:"min_cache_tokens"`
	PromptTokens     int     `json:"prompt_tokens"`
	InputTokens      int     `json:"input_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens"`
	CacheReadTokens  int     `json:"cache_read_tokens"`
	OutputTokens     int     `json:"output_tokens"`
	CacheReadShare   float64 `json:"cache_read_share"`
	PriceKnown       bool    `json:"price_known"`
	CostUSD          float64 `json:"cost_usd"`
	CostNoCacheUSD   float64 `json:"cost_no_cache_usd"`
	CostBatchUSD     float64 `json:"cost_batch_usd"`
	Seconds          float64 `json:"seconds"`
	Concurrency      int     `json:"concurrency"`
	Skipped          int     `json:"skipped_files"`
	// Documents that are one chunk get no call (the offline context
	// serves); saved_* is what calling for them would take.
	OneChunkDocs int     `json:"one_chunk_documents"`
	SavedCalls   int     `json:"saved_calls"`
	SavedCostUSD float64 `json:"saved_cost_usd"`
	SavedSeconds float64 `json:"saved_seconds"`
	// Local servers (llama.cpp, vLLM, Ollama): what the server said and
	// what one measured call showed.
	Local            bool    `json:"local,omitempty"`
	Slots            int     `json:"slots,omitempty"`
	PrefillPerSecond float64 `json:"prefill_per_second,omitempty"`
	DecodePerSecond  float64 `json:"decode_per_second,omitempty"`
	OutputPerCall    int     `json:"output_tokens_per_call,omitempty"`
	ServerSeconds    float64 `json:"server_seconds,omitempty"`
	// Parallel: requests the server generates side by side (measured);
	// FixedSeconds: the run's time beside its calls (part of Seconds).
	Parallel     float64 `json:"parallel,omitempty"`
	FixedSeconds float64 `json:"fixed_seconds,omitempty"`
}

// Report is the estimate as a CostReport; eo are the options it was made
// with (eo.Local set: a local server's), skipped the files left out.
func (est CostEstimate) Report(eo EstimateOptions, skipped int) CostReport {
	r := CostReport{Model: est.Model, Docs: est.Docs, Chunks: est.Chunks, Calls: est.Calls, TooLarge: est.TooLarge,
		Excerpted: est.Excerpted, ContextWindow: eo.ContextWindow, PromptTokens: est.PromptTokens, InputTokens: est.InputTokens,
		CacheWriteTokens: est.CacheWriteTokens, CacheReadTokens: est.CacheReadTokens, OutputTokens: est.OutputTokens,
		CacheReadShare: est.cacheReadShare(), Seconds: est.Duration.Seconds(), Skipped: skipped,
		OneChunkDocs: est.WholeDocuments, SavedCalls: est.SavedCalls, SavedSeconds: est.SavedDuration.Seconds()}
	if srv := eo.Local; srv != nil {
		r.Concurrency, r.Local, r.Slots = est.Concurrency, true, srv.Slots
		r.PrefillPerSecond, r.DecodePerSecond, r.Parallel = srv.PrefillPerSecond, srv.DecodePerSecond, srv.Parallel
		r.OutputPerCall, r.ServerSeconds, r.FixedSeconds = eo.OutputTokens, (est.Duration - srv.Fixed).Seconds(), srv.Fixed.Seconds()
		return r
	}
	r.Concurrency, r.MinCacheTokens, r.PriceKnown = eo.Concurrency, est.Price.MinCacheTokens, est.PriceKnown
	r.CostUSD, r.CostNoCacheUSD, r.CostBatchUSD, r.SavedCostUSD = est.CostUSD, est.CostNoCacheUSD, est.CostBatchUSD, est.SavedCostUSD
	return r
}

// cacheReadShare is the share of prompt tokens read from the cache.
func (est CostEstimate) cacheReadShare() float64 {
	if est.PromptTokens == 0 {
		return 0
	}
	return float64(est.CacheReadTokens) / float64(est.PromptTokens)
}

// WriteText prints a hosted model's estimate for a reader: calls, tokens
// by kind, cost with and without caching and in batch mode, and time at
// parallel documents of perDoc calls each.
func (est CostEstimate) WriteText(w io.Writer, eo EstimateOptions, skipped, parallel, perDoc int) {
	fmt.Fprintf(w, "estimate for %s (offline token counts, +%.0f%% margin; nothing was sent)\n", est.Model, eo.EstimateMargin*100)
	fmt.Fprintf(w, "documents        %d (%d files skipped)\n", est.Docs, skipped)
	fmt.Fprintf(w, "chunks           %d\n", est.Chunks)
	fmt.Fprintf(w, "calls            %d (%d too large for the window, %d with a document excerpt; window %d tokens)\n",
		est.Calls, est.TooLarge, est.Excerpted, eo.ContextWindow)
	if est.WholeDocuments > 0 {
		saved := "no price known"
		if est.PriceKnown {
			saved = fmt.Sprintf("$%.4f", est.SavedCostUSD)
		}
		fmt.Fprintf(w, "one-chunk docs   %d (the chunk is the whole document: no call, the offline context serves; saves %d calls, %s, %s)\n",
			est.WholeDocuments, est.SavedCalls, saved, est.SavedDuration.Round(time.Second))
	}
	fmt.Fprintf(w, "prompt tokens    %d\n", est.PromptTokens)
	fmt.Fprintf(w, "  input          %d\n", est.InputTokens)
	fmt.Fprintf(w, "  cache write    %d (%s TTL; prefixes under %d tokens are not cached)\n", est.CacheWriteTokens, eo.CacheTTL, est.Price.MinCacheTokens)
	fmt.Fprintf(w, "  cache read     %d (%.1f%% of prompt tokens)\n", est.CacheReadTokens, 100*est.cacheReadShare())
	fmt.Fprintf(w, "output tokens    %d (%d per call)\n", est.OutputTokens, eo.OutputTokens)
	if est.PriceKnown {
		fmt.Fprintf(w, "cost             $%.4f with prompt caching\n", est.CostUSD)
		fmt.Fprintf(w, "                 $%.4f without caching\n", est.CostNoCacheUSD)
		fmt.Fprintf(w, "                 $%.4f with batch mode (%.0f%% off, caching not counted on)\n", est.CostBatchUSD, 100*est.Price.BatchDiscount)
	} else {
		fmt.Fprintf(w, "cost             unknown: no price for %q in the price table\n", est.Model)
	}
	fmt.Fprintf(w, "time             %s at %d calls in flight (%d documents x %d), %s per call", est.Duration.Round(time.Second), eo.Concurrency, parallel, perDoc, eo.Latency)
	if eo.RequestsPerMinute > 0 || eo.InputTokensPerMinute > 0 {
		fmt.Fprintf(w, ", %d requests/min, %d input tokens/min", eo.RequestsPerMinute, eo.InputTokensPerMinute)
	}
	fmt.Fprintln(w)
}

// RoundDuration rounds to the second, or to 0.1 s under a minute.
func RoundDuration(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
