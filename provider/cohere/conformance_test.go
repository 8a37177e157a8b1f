package cohere_test

import (
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/cohere"
	"github.com/situate/situate/provider/cohere/coheretest"
	"github.com/situate/situate/situatetest"
)

// The Cohere embedder and reranker pass the conformance suites against the
// fake Cohere API (coheretest) and, for the refusals, a server answering
// Cohere's error shape.
func TestConformance(t *testing.T) {
	server := func(t *testing.T) string {
		s := coheretest.NewServer(coheretest.Config{APIKey: situatetest.Key})
		t.Cleanup(s.Close)
		return s.URL
	}
	must := func(t *testing.T, err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	embedder := func(t *testing.T, url string, rec driver.UsageRecorder) driver.Embedder {
		e, err := cohere.NewEmbedder(cohere.Options{APIKey: situatetest.Key, BaseURL: url, Usage: rec})
		must(t, err)
		return e
	}
	reranker := func(t *testing.T, url string, rec driver.UsageRecorder) driver.Reranker {
		r, err := cohere.NewReranker(cohere.Options{APIKey: situatetest.Key, BaseURL: url, Usage: rec})
		must(t, err)
		return r
	}
	t.Run("Embedder", func(t *testing.T) {
		situatetest.TestEmbedder(t, situatetest.EmbedderHarness{
			New:       func(t *testing.T, rec driver.UsageRecorder) driver.Embedder { return embedder(t, server(t), rec) },
			Fault:     embedder,
			ErrorBody: coheretest.WriteError,
		})
	})
	t.Run("Reranker", func(t *testing.T) {
		situatetest.TestReranker(t, situatetest.RerankerHarness{
			New:       func(t *testing.T, rec driver.UsageRecorder) driver.Reranker { return reranker(t, server(t), rec) },
			Fault:     reranker,
			ErrorBody: coheretest.WriteError,
		})
	})
}
