package llm_test

import (
	"fmt"

	"github.com/situate/situate"
	"github.com/situate/situate/llm"
)

// A price from configuration replaces the built-in one for a model; fields
// not given keep the table's values.
func ExampleParsePrice() {
	table := llm.DefaultPrices()
	base, _ := table.Lookup("anthropic:claude-haiku-4-5")
	p, err := llm.ParsePrice("input=0.8,output=4", base)
	if err != nil {
		fmt.Println(err)
		return
	}
	table = table.With("anthropic:claude-haiku-4-5", p)
	got, _ := table.Lookup("claude-haiku-4-5-20251001")
	fmt.Printf("input $%g, cache read $%g, output $%g per million tokens\n", got.Input, got.CacheRead, got.Output)
	u := situate.Usage{InputTokens: 1_000_000, OutputTokens: 100_000}
	fmt.Printf("one call: $%.2f\n", got.Cost(u, "5m"))
	_, err = llm.ParsePrice("output=five", base)
	fmt.Println(err)
	// Output:
	// input $0.8, cache read $0.1, output $4 per million tokens
	// one call: $1.20
	// price field output: "five" is not a number >= 0
}
