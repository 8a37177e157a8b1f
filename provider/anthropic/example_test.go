package anthropic_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
)

// Two chunks of one document: the first call writes the document prefix to
// the prompt cache, the second reads it. The fake server stands in for
// api.anthropic.com.
func Example() {
	srv := anthropictest.NewServer(anthropictest.Config{})
	defer srv.Close()
	c, err := anthropic.New(anthropic.Options{APIKey: "sk-ant-example", BaseURL: srv.URL, Model: "claude-sonnet-4-5"})
	if err != nil {
		fmt.Println(err)
		return
	}
	doc := strings.Repeat("ACME Corp annual report 2023: revenue, costs and outlook. ", 100)
	for _, chunk := range []string{"Revenue grew 3% over the previous quarter.", "Costs fell in every region."} {
		comp, err := c.Complete(context.Background(), driver.Prompt{
			DocID:     "acme-2023.md",
			Prefix:    "<document>\n" + doc + "\n</document>",
			Suffix:    "<chunk>\n" + chunk + "\n</chunk>\nGive a short context to situate this chunk.",
			MaxTokens: 100,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q cache write %d, read %d\n", comp.Text, comp.Usage.CacheWriteTokens, comp.Usage.CacheReadTokens)
	}
	fmt.Println(c.Name())
	// Output:
	// "Context for: Revenue grew 3% over the previous quarter." cache write 1463, read 0
	// "Context for: Costs fell in every region." cache write 0, read 1463
	// anthropic:claude-sonnet-4-5
}

// Batch mode: submit, keep the id, fetch results when the batch has ended.
func ExampleClient_SubmitBatch() {
	srv := anthropictest.NewServer(anthropictest.Config{})
	defer srv.Close()
	c, _ := anthropic.New(anthropic.Options{APIKey: "sk-ant-example", BaseURL: srv.URL})
	ctx := context.Background()
	var reqs []anthropic.BatchRequest
	for i, chunk := range []string{"First chunk.", "Second chunk."} {
		reqs = append(reqs, anthropic.BatchRequest{
			CustomID: anthropic.BatchCustomID("notes.txt", i),
			Prompt:   driver.Prompt{DocID: "notes.txt", Prefix: "Some notes.", Suffix: "<chunk>" + chunk + "</chunk>"},
		})
	}
	id, err := c.SubmitBatch(ctx, reqs) // store id to resume after a restart
	if err != nil {
		fmt.Println(err)
		return
	}
	st, _ := c.PollBatch(ctx, id)
	fmt.Println(st.ProcessingStatus, st.RequestCounts.Succeeded)
	texts := map[string]string{}
	err = c.BatchResults(ctx, id, func(customID string, comp driver.Completion, err error) error {
		texts[customID] = comp.Text
		return err
	})
	fmt.Println(err, texts[anthropic.BatchCustomID("notes.txt", 1)])
	// Output:
	// ended 2
	// <nil> Context for: Second chunk.
}
