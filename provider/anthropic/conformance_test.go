package anthropic_test

import (
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
	"github.com/situate/situate/situatetest"
)

// The Claude client passes the LLM conformance suite against the fake
// Anthropic API (anthropictest) and, for the refusals, a server answering
// Anthropic's error shape.
func TestConformance(t *testing.T) {
	servers := map[driver.LLM]*anthropictest.Server{}
	client := func(t *testing.T, url string) driver.LLM {
		c, err := anthropic.New(anthropic.Options{APIKey: situatetest.Key, BaseURL: url, Model: "claude-haiku-4-5"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	situatetest.TestLLM(t, situatetest.LLMHarness{
		New: func(t *testing.T) driver.LLM {
			s := anthropictest.NewServer(anthropictest.Config{APIKey: situatetest.Key})
			t.Cleanup(s.Close)
			c := client(t, s.URL)
			servers[c] = s
			return c
		},
		Requests: func(t *testing.T, m driver.LLM) [][]byte {
			var out [][]byte
			for _, r := range servers[m].Requests() {
				if r.Path == "/v1/messages" {
					out = append(out, r.Body)
				}
			}
			return out
		},
		Fault:     client,
		ErrorBody: anthropictest.WriteError,
	})
}
