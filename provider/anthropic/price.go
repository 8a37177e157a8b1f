package anthropic

import "strings"

// Price is a model's list price in USD per million tokens. Cache writes
// cost 1.25x input (5-minute TTL) or 2x input (1-hour TTL), cache reads
// 0.1x input; Message Batches halve every figure.
type Price struct {
	InputPerMTok  float64
	OutputPerMTok float64
}

// Pricing multipliers from Anthropic's pricing page.
const (
	CacheWrite5mFactor = 1.25
	CacheWrite1hFactor = 2.0
	CacheReadFactor    = 0.1
	BatchFactor        = 0.5
)

// prices is matched by longest model-id prefix (list prices, mid-2026).
var prices = []struct {
	prefix string
	price  Price
}{
	{"claude-opus-4-6", Price{5, 25}},
	{"claude-opus-4-5", Price{5, 25}},
	{"claude-opus-4-1", Price{15, 75}},
	{"claude-opus-4", Price{15, 75}},
	{"claude-sonnet-4", Price{3, 15}},
	{"claude-3-7-sonnet", Price{3, 15}},
	{"claude-haiku-4-5", Price{1, 5}},
	{"claude-3-5-haiku", Price{0.8, 4}},
	{"claude-3-haiku", Price{0.25, 1.25}},
}

// DefaultPrice returns the built-in price of model, false if unknown.
func DefaultPrice(model string) (Price, bool) {
	best, found := -1, Price{}
	for _, p := range prices {
		if strings.HasPrefix(model, p.prefix) && len(p.prefix) > best {
			best, found = len(p.prefix), p.price
		}
	}
	return found, best >= 0
}

func (p Price) cost(t tokens, batch bool) float64 {
	in := p.InputPerMTok
	usd := float64(t.input)*in + float64(t.write5m)*in*CacheWrite5mFactor +
		float64(t.write1h)*in*CacheWrite1hFactor + float64(t.cacheRead)*in*CacheReadFactor +
		float64(t.output)*p.OutputPerMTok
	// tokens() assigns a write without a cache_creation breakdown to the
	// configured TTL, so write5m+write1h always equals the cache write.
	usd /= 1e6
	if batch {
		usd *= BatchFactor
	}
	return usd
}
