package llm_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/llm"
)

// echoModel answers with the chunk's first words, as a stand-in for a chat
// model provider.
type echoModel struct{}

func (echoModel) Name() string { return "echo:model" }

func (echoModel) Complete(_ context.Context, p driver.Prompt) (driver.Completion, error) {
	if p.Started != nil {
		p.Started()
	}
	_, chunk, _ := strings.Cut(p.Suffix, "<chunk>\n")
	chunk, _, _ = strings.Cut(chunk, "\n</chunk>")
	words := strings.Fields(chunk)
	return driver.Completion{Text: "Context: From the ACME report, about " + strings.ToLower(strings.Join(words[:2], " ")) + "."}, nil
}

func Example() {
	text := "ACME annual report 2023.\nRevenue grew by 3% over the previous quarter."
	doc := situate.Document{ID: "acme.txt", Text: text, Lang: "en"}
	chunks := []situate.Chunk{
		{DocID: doc.ID, Index: 0, Start: 0, End: 24, Text: text[:24]},
		{DocID: doc.ID, Index: 1, Start: 25, End: len(text), Text: text[25:]},
	}
	c, err := llm.New(echoModel{}, llm.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	contexts, err := c.Contextualize(context.Background(), doc, chunks)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, x := range contexts {
		fmt.Printf("%s [%s] %v\n", x.Text, x.Source, x.Flags)
		fmt.Println(driver.Contextualize(x.Text, chunks[i].Text))
	}
	// Output:
	// From the ACME report, about acme annual. [echo:model] []
	// From the ACME report, about acme annual.
	//
	// ACME annual report 2023.
	// From the ACME report, about revenue grew. [echo:model] []
	// From the ACME report, about revenue grew.
	//
	// Revenue grew by 3% over the previous quarter.
}

func ExampleEstimate() {
	doc := situate.Document{ID: "a.txt", Text: strings.Repeat("The quick brown fox jumps over the lazy dog. ", 400)}
	var chunks []situate.Chunk
	for i := range 10 {
		s, e := i*len(doc.Text)/10, (i+1)*len(doc.Text)/10
		chunks = append(chunks, situate.Chunk{DocID: doc.ID, Index: i, Start: s, End: e, Text: doc.Text[s:e]})
	}
	e := llm.Estimate([]llm.DocChunks{{Doc: doc, Chunks: chunks}}, "anthropic:claude-sonnet-4-5", nil, llm.EstimateOptions{Options: llm.DefaultOptions()})
	fmt.Printf("%d calls; cache: %d written, %d read; caching saves %.0f%%\n",
		e.Calls, e.CacheWriteTokens, e.CacheReadTokens, 100*(1-e.CostUSD/e.CostNoCacheUSD))
	// Output:
	// 10 calls; cache: 5011 written, 45099 read; caching saves 65%
}
