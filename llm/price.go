package llm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/situate/situate"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input        float64
	CacheWrite5m float64
	CacheWrite1h float64
	CacheRead    float64
	Output       float64
	// BatchDiscount is the share taken off input and output with the
	// provider's batch API (0.5 = half price).
	BatchDiscount float64
	// MinCacheTokens is the shortest prefix the provider caches; a shorter
	// one is billed as plain input every time.
	MinCacheTokens int
}

func (p Price) validate() error {
	for name, v := range map[string]float64{"Input": p.Input, "CacheWrite5m": p.CacheWrite5m, "CacheWrite1h": p.CacheWrite1h, "CacheRead": p.CacheRead, "Output": p.Output} {
		if v < 0 {
			return fmt.Errorf("%s: must be >= 0, got %g", name, v)
		}
	}
	if p.BatchDiscount < 0 || p.BatchDiscount >= 1 {
		return fmt.Errorf("BatchDiscount: must be in [0, 1), got %g", p.BatchDiscount)
	}
	if p.MinCacheTokens < 0 {
		return fmt.Errorf("MinCacheTokens: must be >= 0, got %d", p.MinCacheTokens)
	}
	return nil
}

// PriceTable maps a model name (without the "provider:" part; dated
// snapshots match their base name by prefix) to its price.
type PriceTable map[string]Price

// DefaultPrices returns list prices as published by Anthropic
// (platform.claude.com/docs/en/about-claude/pricing; minimum cacheable
// lengths from its prompt-caching page: 4096 tokens for Haiku 4.5, 2048 for
// Haiku 3.5 and 3, 1024 for Sonnet 4.5 and Opus 4.1) and OpenAI
// (developers.openai.com model pages: cache writes are free, cached input is
// discounted, caching starts at 1024 tokens), both with 50% batch discount.
// Checked in November 2026; override what has changed.
func DefaultPrices() PriceTable {
	anth := func(in, w5, w1, read, out float64, minCache int) Price {
		return Price{Input: in, CacheWrite5m: w5, CacheWrite1h: w1, CacheRead: read, Output: out, BatchDiscount: 0.5, MinCacheTokens: minCache}
	}
	oai := func(in, read, out float64) Price {
		return Price{Input: in, CacheWrite5m: in, CacheWrite1h: in, CacheRead: read, Output: out, BatchDiscount: 0.5, MinCacheTokens: 1024}
	}
	return PriceTable{
		"claude-haiku-4-5":  anth(1, 1.25, 2, 0.10, 5, 4096),
		"claude-sonnet-4-5": anth(3, 3.75, 6, 0.30, 15, 1024),
		"claude-opus-4-1":   anth(15, 18.75, 30, 1.50, 75, 1024),
		"claude-3-5-haiku":  anth(0.80, 1, 1.6, 0.08, 4, 2048),
		"claude-3-haiku":    anth(0.25, 0.30, 0.50, 0.03, 1.25, 2048),
		"gpt-5":             oai(1.25, 0.125, 10),
		"gpt-5-mini":        oai(0.25, 0.025, 2),
		"gpt-5-nano":        oai(0.05, 0.005, 0.40),
		"gpt-4.1-mini":      oai(0.40, 0.10, 1.60),
		"gpt-4o-mini":       oai(0.15, 0.075, 0.60),
	}
}

// Lookup finds a model's price: name may be "provider:model" or "model",
// and a dated snapshot ("claude-3-5-haiku-20241022") matches the longest
// table entry it starts with.
func (t PriceTable) Lookup(name string) (Price, bool) {
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToLower(name)
	if p, ok := t[name]; ok {
		return p, true
	}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		if strings.HasPrefix(name, k+"-") || strings.HasPrefix(name, k+"@") {
			return t[k], true
		}
	}
	return Price{}, false
}

// Cost prices one call's usage; ttl is "5m" or "1h".
func (p Price) Cost(u situate.Usage, ttl string) float64 {
	w := p.CacheWrite5m
	if ttl == "1h" {
		w = p.CacheWrite1h
	}
	return (float64(u.InputTokens)*p.Input + float64(u.CacheWriteTokens)*w +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.OutputTokens)*p.Output) / 1e6
}
