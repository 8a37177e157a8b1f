package ollama_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/ollama"
	"github.com/situate/situate/provider/ollama/ollamatest"
)

// The fake server stands in for `ollama serve`; in a program the base URL
// comes from ollama.BaseURL(os.Getenv("OLLAMA_HOST")).
func Example() {
	srv := ollamatest.NewServer(ollamatest.Config{Model: "qwen3:8b", ContextLength: 40960})
	defer srv.Close()
	base, _ := ollama.BaseURL("gpu-box:11434")
	fmt.Println(base)
	c, err := ollama.New(ollama.Options{BaseURL: srv.URL, Model: "qwen3:8b"})
	if err != nil {
		fmt.Println(err)
		return
	}
	doc := strings.Repeat("ACME Corp annual report 2023: revenue, costs and outlook. ", 300)
	for _, chunk := range []string{"Revenue grew 3% over the previous quarter.", "Costs fell in every region."} {
		comp, err := c.Complete(context.Background(), driver.Prompt{DocID: "acme.md",
			Prefix: "<document>\n" + doc + "\n</document>\n", Suffix: "<chunk>\n" + chunk + "\n</chunk>"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q evaluated %d tokens\n", comp.Text, comp.Usage.InputTokens)
	}
	fmt.Println("num_ctx sent:", srv.Stats().NumCtx, "truncated:", srv.Stats().Truncated)
	// Output:
	// http://gpu-box:11434
	// "Context for: Revenue grew 3% over the previous" evaluated 4377 tokens
	// "Context for: Costs fell in every region." evaluated 13 tokens
	// num_ctx sent: [8192 8192] truncated: 0
}
