package llm

import (
	"math"
	"testing"
	"time"
)

func TestPriceLookup(t *testing.T) {
	p := DefaultPrices()
	cases := map[string]string{
		"anthropic:claude-3-5-haiku-20241022": "claude-3-5-haiku",
		"claude-haiku-4-5-20251001":           "claude-haiku-4-5",
		"anthropic:claude-3-haiku-20240307":   "claude-3-haiku",
		"openai:gpt-5-mini-2025-08-07":        "gpt-5-mini",
		"openai:gpt-5":                        "gpt-5",
		"gpt-4o-mini":                         "gpt-4o-mini",
	}
	for name, key := range cases {
		got, ok := p.Lookup(name)
		if !ok || got != p[key] {
			t.Errorf("Lookup(%q) = %+v, %v; want %s", name, got, ok, key)
		}
	}
	for _, name := range []string{"ollama:llama3", "gpt-50", "claude"} {
		if _, ok := p.Lookup(name); ok {
			t.Errorf("Lookup(%q) found a price", name)
		}
	}
	h := p["claude-haiku-4-5"]
	if h.Input != 1 || h.CacheWrite5m != 1.25 || h.CacheWrite1h != 2 || h.CacheRead != 0.1 || h.Output != 5 || h.MinCacheTokens != 4096 {
		t.Errorf("claude-haiku-4-5 = %+v", h)
	}
}

func TestEstimate(t *testing.T) {
	docs := synthDocs(30, []int{8, 12, 5})
	prices := PriceTable{"test-model": {Input: 1, CacheWrite5m: 2, CacheWrite1h: 3, CacheRead: 0.1, Output: 10, BatchDiscount: 0.5}}
	o := DefaultOptions()
	o.EstimateMargin = 0
	e := Estimate(docs, "test:test-model", prices, EstimateOptions{Options: o, OutputTokens: 80, Latency: time.Second})
	if e.Calls != 25 || e.Chunks != 25 || e.Docs != 3 || !e.PriceKnown || e.TooLarge != 0 {
		t.Fatalf("estimate %+v", e)
	}
	tm := BuiltinTemplate("en")
	wantWrite, wantRead := 0, 0
	for _, d := range docs {
		pt := rawTokens(tm.Prefix(d.Doc.Text, ""))
		wantWrite += pt
		wantRead += (len(d.Chunks) - 1) * pt
	}
	near := func(got, want int) bool { return math.Abs(float64(got-want)) <= 0.01*float64(want) }
	if !near(e.CacheWriteTokens, wantWrite) || !near(e.CacheReadTokens, wantRead) {
		t.Errorf("cache write %d (want ~%d), read %d (want ~%d)", e.CacheWriteTokens, wantWrite, e.CacheReadTokens, wantRead)
	}
	if e.PromptTokens != e.InputTokens+e.CacheWriteTokens+e.CacheReadTokens {
		t.Errorf("prompt tokens %d != input %d + write %d + read %d", e.PromptTokens, e.InputTokens, e.CacheWriteTokens, e.CacheReadTokens)
	}
	if e.OutputTokens != 25*80 {
		t.Errorf("output tokens %d", e.OutputTokens)
	}
	want := (float64(e.InputTokens)*1 + float64(e.CacheWriteTokens)*2 + float64(e.CacheReadTokens)*0.1 + float64(e.OutputTokens)*10) / 1e6
	if math.Abs(e.CostUSD-want) > 1e-12 {
		t.Errorf("cost %g, want %g", e.CostUSD, want)
	}
	noCache := (float64(e.PromptTokens) + float64(e.OutputTokens)*10) / 1e6
	if math.Abs(e.CostNoCacheUSD-noCache) > 1e-12 || math.Abs(e.CostBatchUSD-noCache/2) > 1e-12 {
		t.Errorf("no-cache %g (want %g), batch %g", e.CostNoCacheUSD, noCache, e.CostBatchUSD)
	}
	if e.Duration != 4*time.Second { // ceil(25/8) waves of 1s
		t.Errorf("duration %v, want 4s", e.Duration)
	}
	e2 := Estimate(docs, "test-model", prices, EstimateOptions{Options: o, Latency: time.Second, RequestsPerMinute: 10})
	if e2.Duration != 150*time.Second {
		t.Errorf("duration at 10 RPM %v, want 2m30s", e2.Duration)
	}
	// Prefixes shorter than the minimum cacheable length are plain input.
	p := prices["test-model"]
	p.MinCacheTokens = 100000
	prices["test-model"] = p
	e3 := Estimate(docs, "test-model", prices, EstimateOptions{Options: o})
	if e3.CacheWriteTokens != 0 || e3.CacheReadTokens != 0 || e3.InputTokens != e3.PromptTokens {
		t.Errorf("below minimum: %+v", e3)
	}
	// Unknown models get token counts but no cost.
	e4 := Estimate(docs, "local:llama", prices, EstimateOptions{Options: o})
	if e4.PriceKnown || e4.CostUSD != 0 || e4.PromptTokens != e.PromptTokens {
		t.Errorf("unknown model: %+v", e4)
	}
	// A window forces excerpts.
	o.ContextWindow = 1200
	e5 := Estimate(docs, "test-model", prices, EstimateOptions{Options: o})
	if e5.Excerpted == 0 || e5.PromptTokens >= e.PromptTokens {
		t.Errorf("windowed: %d excerpted, %d prompt tokens (unwindowed %d)", e5.Excerpted, e5.PromptTokens, e.PromptTokens)
	}
}

// TestEstimateCodebase reports what the codebase set would cost.
func TestEstimateCodebase(t *testing.T) {
	docs := codebaseDocs(t)
	oneChunk := 0
	for _, d := range docs {
		if len(d.Chunks) == 1 {
			oneChunk++
		}
	}
	for _, m := range []string{"claude-3-haiku", "claude-haiku-4-5", "gpt-5-mini"} {
		e := Estimate(docs, m, nil, EstimateOptions{Options: DefaultOptions()})
		t.Logf("%s: %d calls, prompt %d tok (input %d, cache write %d, read %d), cost $%.4f cached / $%.4f uncached / $%.4f batch, ~%v at concurrency %d; %d one-chunk documents save %d calls, $%.4f",
			m, e.Calls, e.PromptTokens, e.InputTokens, e.CacheWriteTokens, e.CacheReadTokens, e.CostUSD, e.CostNoCacheUSD, e.CostBatchUSD, e.Duration, DefaultConcurrency,
			e.WholeDocuments, e.SavedCalls, e.SavedCostUSD)
		if e.Calls != 737-oneChunk || e.WholeDocuments != oneChunk || e.SavedCalls != oneChunk || e.CostUSD >= e.CostNoCacheUSD {
			t.Errorf("%s: %+v (%d documents of one chunk)", m, e, oneChunk)
		}
		// Calling for them too costs exactly what was saved.
		o := DefaultOptions()
		o.CallWholeDocuments = true
		all := Estimate(docs, m, nil, EstimateOptions{Options: o})
		if all.Calls != 737 || all.SavedCalls != 0 || e.SavedCostUSD <= 0 || math.Abs(all.CostUSD-e.CostUSD-e.SavedCostUSD) > 1e-9 {
			t.Errorf("%s with CallWholeDocuments: %d calls, $%.6f; without: $%.6f + saved $%.6f", m, all.Calls, all.CostUSD, e.CostUSD, e.SavedCostUSD)
		}
	}
}

func TestEstimateBadTemplate(t *testing.T) {
	o := DefaultOptions()
	o.TemplateFile = "/nonexistent/prompt.txt"
	e := Estimate(synthDocs(31, []int{2}), "claude-3-haiku", nil, EstimateOptions{Options: o})
	if e.Err == nil || e.Calls != 0 {
		t.Errorf("estimate with a missing template: %+v", e)
	}
}
