package llm

import (
	"math"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Offline token estimates use OpenAI's o200k_base vocabulary (compiled into
// github.com/tiktoken-go/tokenizer, no download). It is exact for GPT-4o,
// GPT-4.1 and GPT-5; for Claude and local models it is an estimate, so
// budgets add Options.EstimateMargin (25% by default) and one token per
// joined part. When the model implements situate.TokenCounter and a window
// is known, a document whose largest prompt would not fit by the estimate,
// or would not fit with twice the estimate, is counted exactly once (one
// CountTokens call, recorded as a "count" usage) and the estimate is
// rescaled for that document (exact/o200k ratio + 5%).

var (
	o200kOnce sync.Once
	o200k     tokenizer.Codec
	o200kErr  error
)

// rawTokens counts o200k tokens; on tokenizer failure it falls back to one
// token per 3 bytes (an overestimate for most text).
func rawTokens(text string) int {
	if text == "" {
		return 0
	}
	o200kOnce.Do(func() { o200k, o200kErr = tokenizer.Get(tokenizer.O200kBase) })
	if o200kErr == nil {
		if n, err := o200k.Count(text); err == nil {
			return n
		}
	}
	return (len(text) + 2) / 3
}

// scaled turns a raw count into a budget count with a factor (>= 1).
func scaled(raw int, factor float64) int {
	if raw == 0 {
		return 0
	}
	return int(math.Ceil(float64(raw)*factor)) + 1
}
