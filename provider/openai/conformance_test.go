package openai_test

import (
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/llamatest"
	"github.com/situate/situate/provider/openai"
	"github.com/situate/situate/provider/openai/openaitest"
	"github.com/situate/situate/situatetest"
)

// The chat client in each flavour (OpenAI, vLLM, llama.cpp), the embedder
// and the reranker pass the conformance suites against the fake
// OpenAI-compatible server (openaitest) and, for the refusals, a server
// answering the flavour's error shape.
func TestConformance(t *testing.T) {
	server := func(t *testing.T, flavor string) *openaitest.Server {
		s := openaitest.NewServer(openaitest.Config{Flavor: fakeFlavor(flavor), APIKey: situatetest.Key, Model: "gpt-5-mini"})
		t.Cleanup(s.Close)
		return s
	}
	for _, flavor := range []string{openai.FlavorOpenAI, openai.FlavorVLLM, openai.FlavorLlamaCpp, openai.FlavorGeneric} {
		t.Run("LLM/"+flavor, func(t *testing.T) {
			servers := map[driver.LLM]*openaitest.Server{}
			client := func(t *testing.T, url string) driver.LLM {
				c, err := openai.New(openai.Options{Flavor: flavor, APIKey: situatetest.Key, BaseURL: url + "/v1", Model: "gpt-5-mini"})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			situatetest.TestLLM(t, situatetest.LLMHarness{
				New: func(t *testing.T) driver.LLM {
					s := server(t, flavor)
					c := client(t, s.URL)
					servers[c] = s
					return c
				},
				Requests: func(t *testing.T, m driver.LLM) [][]byte {
					var out [][]byte
					for _, r := range servers[m].Requests() {
						if r.Path == "/v1/chat/completions" {
							out = append(out, r.Body)
						}
					}
					return out
				},
				Fault:     client,
				ErrorBody: openaitest.ErrorWriter(fakeFlavor(flavor)),
			})
		})
	}
	embedder := func(t *testing.T, url string, rec driver.UsageRecorder) driver.Embedder {
		e, err := openai.NewEmbedder(openai.EmbedOptions{APIKey: situatetest.Key, BaseURL: url + "/v1", Model: "text-embedding-3-small", Usage: rec})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	t.Run("Embedder", func(t *testing.T) {
		situatetest.TestEmbedder(t, situatetest.EmbedderHarness{
			New: func(t *testing.T, rec driver.UsageRecorder) driver.Embedder {
				return embedder(t, server(t, openai.FlavorOpenAI).URL, rec)
			},
			Fault:     embedder,
			ErrorBody: openaitest.ErrorWriter(openai.FlavorOpenAI),
		})
	})
	reranker := func(t *testing.T, url string, _ driver.UsageRecorder) driver.Reranker {
		r, err := openai.NewReranker(openai.RerankOptions{APIKey: situatetest.Key, BaseURL: url + "/v1", Model: "bge-reranker-v2-m3"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Run("Reranker", func(t *testing.T) {
		situatetest.TestReranker(t, situatetest.RerankerHarness{
			New: func(t *testing.T, rec driver.UsageRecorder) driver.Reranker {
				return reranker(t, server(t, openai.FlavorLlamaCpp).URL, rec)
			},
			Fault:     reranker,
			ErrorBody: openaitest.ErrorWriter(openai.FlavorLlamaCpp),
		})
	})
}

// fakeFlavor is the fake server standing in for a flavour: the generic
// client talks to a server that speaks OpenAI's API and says no more.
func fakeFlavor(flavor string) string {
	if flavor == openai.FlavorGeneric {
		return openai.FlavorOpenAI
	}
	return flavor
}

// The llama.cpp client passes the LLM suite against a real llama-server
// serving a generated random-weight model (skipped without the binary,
// a failure with SITUATE_REQUIRE_LLAMA=1); the grammar keeps its output
// to words the client can read.
func TestConformanceLlamaServer(t *testing.T) {
	if testing.Short() {
		t.Skip("real llama-server: skipped with -short")
	}
	s := llamatest.Start(t, llamatest.Options{})
	situatetest.TestLLM(t, situatetest.LLMHarness{
		New: func(t *testing.T) driver.LLM {
			c, err := openai.New(openai.Options{BaseURL: s.BaseURL, Flavor: openai.FlavorLlamaCpp, ExtraBody: grammar})
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
	})
}
