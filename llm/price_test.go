package llm

import (
	"strings"
	"testing"
)

func TestParsePrice(t *testing.T) {
	base, _ := DefaultPrices().Lookup("claude-haiku-4-5")
	p, err := ParsePrice("input=2, output=10,cache-write-5m=2.5,cache-write-1h=4,cache-read=0.2,batch-discount=0.25,min-cache-tokens=2048", base)
	if err != nil {
		t.Fatal(err)
	}
	want := Price{Input: 2, CacheWrite5m: 2.5, CacheWrite1h: 4, CacheRead: 0.2, Output: 10, BatchDiscount: 0.25, MinCacheTokens: 2048}
	if p != want {
		t.Errorf("got %+v, want %+v", p, want)
	}
	// Fields not named keep the base's values.
	p, err = ParsePrice("output=4", base)
	if err != nil || p.Output != 4 || p.Input != base.Input || p.MinCacheTokens != base.MinCacheTokens {
		t.Errorf("partial override: %+v, %v", p, err)
	}
	for in, field := range map[string]string{
		"input=-1":             "input",
		"output=abc":           "output",
		"cache-read=NaN":       "cache-read",
		"batch-discount=1":     "batch-discount",
		"min-cache-tokens=1.5": "min-cache-tokens",
		"inptu=1":              "inptu",
		"input":                "field=value",
		"input=1,input=2":      "input",
		"":                     "no field",
	} {
		_, err := ParsePrice(in, base)
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("ParsePrice(%q): error %v, want one naming %q", in, err, field)
		}
	}
}

func TestPriceTableWith(t *testing.T) {
	def := DefaultPrices()
	over := def.With("anthropic:Claude-Haiku-4-5", Price{Input: 7, Output: 9})
	if p, _ := over.Lookup("anthropic:claude-haiku-4-5-20251001"); p.Input != 7 || p.Output != 9 {
		t.Errorf("dated snapshot after override: %+v", p)
	}
	if p, _ := def.Lookup("claude-haiku-4-5"); p.Input != 1 {
		t.Errorf("With changed the original table: %+v", p)
	}
	if p, ok := def.With("mymodel", Price{Input: 3}).Lookup("vllm:mymodel"); !ok || p.Input != 3 {
		t.Errorf("model not in the defaults: %+v %v", p, ok)
	}
}

// TestEstimateUsesOptionsPrices: Estimate with nil prices takes
// Options.Prices, so `situate cost` and --max-cost see an override.
func TestEstimateUsesOptionsPrices(t *testing.T) {
	docs := synthDocs(5, []int{4, 4})
	o := DefaultOptions()
	def := Estimate(docs, "anthropic:claude-haiku-4-5", nil, EstimateOptions{Options: o})
	o.Prices = DefaultPrices().With("claude-haiku-4-5", Price{Input: 10, CacheWrite5m: 12.5, CacheWrite1h: 20, CacheRead: 1, Output: 50, BatchDiscount: 0.5, MinCacheTokens: 4096})
	over := Estimate(docs, "anthropic:claude-haiku-4-5", nil, EstimateOptions{Options: o})
	if def.CostUSD <= 0 || over.CostUSD < 9.99*def.CostUSD || over.CostUSD > 10.01*def.CostUSD {
		t.Errorf("tenfold prices: cost %g, default %g", over.CostUSD, def.CostUSD)
	}
	// Rate limits from Options count when EstimateOptions has none.
	o.RequestsPerMinute = 1
	slow := Estimate(docs, "anthropic:claude-haiku-4-5", nil, EstimateOptions{Options: o})
	if slow.Duration < 7*60e9 {
		t.Errorf("8 calls at 1/min estimated to take %v", slow.Duration)
	}
}
