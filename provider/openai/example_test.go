package openai_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/openai"
	"github.com/situate/situate/provider/openai/openaitest"
)

// Two chunks of one document against a llama.cpp server: both are pinned
// to the same slot, and the second reuses the document's KV cache. The fake
// server stands in for llama-server (-np 2).
func Example() {
	srv := openaitest.NewServer(openaitest.Config{Flavor: openaitest.FlavorLlamaCpp})
	defer srv.Close()
	c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1", Flavor: openai.FlavorLlamaCpp,
		ExtraBody: map[string]any{"temperature": 0}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	doc := strings.Repeat("ACME Corp annual report 2023: revenue, costs and outlook. ", 40)
	for _, chunk := range []string{"Revenue grew 3% over the previous quarter.", "Costs fell in every region."} {
		comp, t, err := c.CompleteTimings(ctx, driver.Prompt{
			DocID:  "acme-2023.md",
			Prefix: "<document>\n" + doc + "\n</document>\n",
			Suffix: "<chunk>\n" + chunk + "\n</chunk>\nGive a short context to situate this chunk.",
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q cached %d, evaluated %d\n", comp.Text, comp.Usage.CacheReadTokens, t.PromptN)
	}
	w, _ := c.ContextWindow(ctx)
	fmt.Println(c.Name(), "slot", openai.Slot("acme-2023.md", 2), "window", w)
	// Output:
	// "Context for: Revenue grew 3% over the previous" cached 0, evaluated 625
	// "Context for: Costs fell in every region." cached 592, evaluated 29
	// llamacpp:local slot 0 window 4096
}

// Embeddings from any /v1/embeddings endpoint, with E5-style prefixes.
func ExampleEmbedder() {
	srv := openaitest.NewServer(openaitest.Config{EmbedDim: 4})
	defer srv.Close()
	e, err := openai.NewEmbedder(openai.EmbedOptions{BaseURL: srv.URL + "/v1", Model: "multilingual-e5-small",
		DocumentPrefix: "passage: ", QueryPrefix: "query: ", BatchSize: 32})
	if err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := e.Embed(context.Background(), []string{"Umsatz stieg um 3 %.", "Выручка выросла."}, driver.InputDocument)
	fmt.Println(len(vecs), len(vecs[0]), err)
	// Output:
	// 2 4 <nil>
}
