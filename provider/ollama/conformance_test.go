package ollama_test

import (
	"net/http"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/ollama"
	"github.com/situate/situate/provider/ollama/ollamatest"
	"github.com/situate/situate/situatetest"
)

// The Ollama chat client and embedder pass the conformance suites against
// the fake Ollama server (ollamatest) and, for the refusals, a server
// answering Ollama's error shape as a reverse proxy in front of it would
// (Ollama itself has no keys: the suite's key goes in the proxy's
// authorization header).
func TestConformance(t *testing.T) {
	proxyAuth := http.Header{"Authorization": {"Bearer " + situatetest.Key}}
	const chatModel, embedModel = "qwen3:4b", "nomic-embed-text"
	t.Run("LLM", func(t *testing.T) {
		servers := map[driver.LLM]*ollamatest.Server{}
		client := func(t *testing.T, url string) driver.LLM {
			c, err := ollama.New(ollama.Options{BaseURL: url, Model: chatModel, Headers: proxyAuth})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		situatetest.TestLLM(t, situatetest.LLMHarness{
			New: func(t *testing.T) driver.LLM {
				s := ollamatest.NewServer(ollamatest.Config{Model: chatModel})
				t.Cleanup(s.Close)
				c := client(t, s.URL)
				servers[c] = s
				return c
			},
			Requests:  func(t *testing.T, m driver.LLM) [][]byte { return servers[m].Requests() },
			Fault:     client,
			ErrorBody: ollamatest.WriteError,
		})
	})
	t.Run("Embedder", func(t *testing.T) {
		embedder := func(t *testing.T, url string, rec driver.UsageRecorder) driver.Embedder {
			e, err := ollama.NewEmbedder(ollama.EmbedOptions{BaseURL: url, Model: embedModel, Headers: proxyAuth, Usage: rec})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		situatetest.TestEmbedder(t, situatetest.EmbedderHarness{
			New: func(t *testing.T, rec driver.UsageRecorder) driver.Embedder {
				s := ollamatest.NewServer(ollamatest.Config{Model: embedModel})
				t.Cleanup(s.Close)
				return embedder(t, s.URL, rec)
			},
			Fault:     embedder,
			ErrorBody: ollamatest.WriteError,
		})
	})
}
