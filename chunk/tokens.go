package chunk

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names the tokenizer CountTokens uses: OpenAI's o200k_base, which
// is compact for German, Russian and Chinese as well as English. For other
// models (Claude, Llama...) its counts are estimates.
const Encoding = "o200k_base"

// codec is initialised on first use: building the o200k vocabulary map takes
// about 25 ms and ~30 MB, which programs that never chunk should not pay.
var codec = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		// The vocabulary is compiled into the binary; this cannot fail
		// unless the dependency itself is broken.
		panic("chunk: load " + Encoding + " tokenizer: " + err.Error())
	}
	return c
})

// CountTokens returns the number of o200k_base tokens in text. It is safe
// for concurrent use.
func CountTokens(text string) int {
	if text == "" {
		return 0
	}
	n, err := codec().Count(text)
	if err != nil {
		// The codec only fails on a regexp engine error; fall back to a
		// conservative estimate rather than reporting zero.
		return len(text)
	}
	return n
}
