package anthropic_test

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/anthropic"
)

var integration = flag.Bool("integration", false, "call the live Anthropic API (needs ANTHROPIC_API_KEY; costs about $0.01)")

// TestLive checks the client against api.anthropic.com: streaming, prompt
// caching (a 5,000-token prefix, above Haiku 4.5's 4,096 minimum, written
// then read) and count_tokens.
func TestLive(t *testing.T) {
	if !*integration {
		t.Skip("live API test: run with -integration and ANTHROPIC_API_KEY set")
	}
	key := os.Getenv("ANTHROPIC_API_KEY")
	if key == "" {
		t.Skip("ANTHROPIC_API_KEY is not set")
	}
	model := os.Getenv("ANTHROPIC_MODEL")
	if model == "" {
		model = "claude-haiku-4-5"
	}
	c, err := anthropic.New(anthropic.Options{APIKey: key, BaseURL: os.Getenv("ANTHROPIC_BASE_URL"), Model: model, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// A unique prefix so an earlier run's cache entry cannot answer.
	doc := time.Now().Format(time.RFC3339Nano) + "\n" + strings.Repeat("Situate integration test paragraph about quarterly revenue, costs and regional outlook. ", 400)
	n, err := c.CountTokens(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("count_tokens: %d", n)
	if n < 4200 {
		t.Fatalf("prefix has %d tokens, want > 4096 so it is cacheable", n)
	}
	var usages []driver.Usage
	for _, chunk := range []string{"Revenue grew 3%.", "Costs fell."} {
		started := false
		comp, err := c.Complete(ctx, driver.Prompt{DocID: "live", Prefix: "<document>" + doc + "</document>",
			Suffix: "<chunk>" + chunk + "</chunk>\nIn one sentence, situate this chunk in the document.", MaxTokens: 60,
			Started: func() { started = true }})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%q %+v", comp.Text, comp.Usage)
		if !started || comp.Text == "" {
			t.Errorf("started=%v text=%q", started, comp.Text)
		}
		usages = append(usages, comp.Usage)
	}
	if usages[0].CacheWriteTokens == 0 || usages[1].CacheReadTokens == 0 {
		t.Errorf("caching not observed: first %+v, second %+v", usages[0], usages[1])
	}
}
