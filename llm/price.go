package llm

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/situate/situate/driver"
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
	name = priceKey(name)
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
func (p Price) Cost(u driver.Usage, ttl string) float64 {
	w := p.CacheWrite5m
	if ttl == "1h" {
		w = p.CacheWrite1h
	}
	return (float64(u.InputTokens)*p.Input + float64(u.CacheWriteTokens)*w +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.OutputTokens)*p.Output) / 1e6
}

// priceFields are the names ParsePrice accepts, in the order it documents.
var priceFields = []string{"input", "cache-write-5m", "cache-write-1h", "cache-read", "output", "batch-discount", "min-cache-tokens"}

// ParsePrice applies overrides written as "field=value,..." to base, e.g.
// "input=1,cache-write-5m=1.25,cache-write-1h=2,cache-read=0.1,output=5,
// batch-discount=0.5,min-cache-tokens=4096". Prices are USD per million
// tokens; batch-discount is the share taken off in batch mode, in [0, 1);
// min-cache-tokens is the shortest cacheable prefix. Fields not named keep
// base's value. Errors name the field.
func ParsePrice(s string, base Price) (Price, error) {
	p := base
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		name, val = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(val)
		if !ok || name == "" {
			return base, fmt.Errorf("price %q: want field=value (fields: %s)", part, strings.Join(priceFields, ", "))
		}
		if seen[name] {
			return base, fmt.Errorf("price field %s: given twice", name)
		}
		seen[name] = true
		if name == "min-cache-tokens" {
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return base, fmt.Errorf("price field %s: %q is not a whole number >= 0", name, val)
			}
			p.MinCacheTokens = n
			continue
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return base, fmt.Errorf("price field %s: %q is not a number >= 0", name, val)
		}
		switch name {
		case "input":
			p.Input = f
		case "cache-write-5m":
			p.CacheWrite5m = f
		case "cache-write-1h":
			p.CacheWrite1h = f
		case "cache-read":
			p.CacheRead = f
		case "output":
			p.Output = f
		case "batch-discount":
			if f >= 1 {
				return base, fmt.Errorf("price field %s: %g must be below 1 (0.5 = half price)", name, f)
			}
			p.BatchDiscount = f
		default:
			return base, fmt.Errorf("price field %q: unknown (fields: %s)", name, strings.Join(priceFields, ", "))
		}
	}
	if len(seen) == 0 {
		return base, fmt.Errorf("price %q: no field=value given (fields: %s)", s, strings.Join(priceFields, ", "))
	}
	return p, nil
}

// With returns a copy of t in which model ("provider:model" or "model")
// costs p; a later Lookup of model or of its dated snapshots finds p.
func (t PriceTable) With(model string, p Price) PriceTable {
	out := make(PriceTable, len(t)+1)
	for k, v := range t {
		out[k] = v
	}
	out[priceKey(model)] = p
	return out
}

// priceKey is the table key of a model name: without the provider, lower
// case.
func priceKey(name string) string {
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	return strings.ToLower(name)
}
