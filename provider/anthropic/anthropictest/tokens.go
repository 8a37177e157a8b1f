package anthropictest

import (
	"strings"
	"sync"
	"time"
)

// Token counting in the fake is a deterministic approximation, not
// Claude's tokenizer: a text block costs ceil(UTF-8 bytes / 4) tokens
// (at least 1), and a request adds MessageOverhead tokens for its framing.
// count_tokens and the usage of /v1/messages use the same formula, so a
// client sees consistent figures.
const (
	BytesPerToken   = 4
	MessageOverhead = 7
)

// CountTokens is the fake's token count of one text block.
func CountTokens(text string) int {
	if text == "" {
		return 0
	}
	n := (len(text) + BytesPerToken - 1) / BytesPerToken
	return max(n, 1)
}

// Minimum cacheable prompt lengths per model, from Anthropic's prompt
// caching documentation: a prefix shorter than this is processed but not
// cached, without an error.
var minCacheTokens = []struct {
	prefix string
	tokens int
}{
	{"claude-opus-4-6", 4096},
	{"claude-opus-4-5", 4096},
	{"claude-haiku-4-5", 4096},
	{"claude-3-5-haiku", 2048},
	{"claude-3-haiku", 2048},
	{"claude-", 1024}, // Sonnet 4.x / 3.7, Opus 4 / 4.1
}

// MinCacheTokens returns the minimum cacheable prefix length of model.
func MinCacheTokens(model string) int {
	best, n := -1, 1024
	for _, m := range minCacheTokens {
		if strings.HasPrefix(model, m.prefix) && len(m.prefix) > best {
			best, n = len(m.prefix), m.tokens
		}
	}
	return n
}

// Clock is a manual clock for Config.Now: time moves only by Advance.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock set to t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
