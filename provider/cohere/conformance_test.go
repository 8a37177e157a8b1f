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
	situatetest.TestHosted(t, situatetest.HostedHarness{
		Serve: func(t *testing.T) string {
			s := coheretest.NewServer(coheretest.Config{APIKey: situatetest.Key})
			t.Cleanup(s.Close)
			return s.URL
		},
		ErrorBody: coheretest.WriteError,
		Embedder: func(url string, rec driver.UsageRecorder) (driver.Embedder, error) {
			return cohere.NewEmbedder(cohere.Options{APIKey: situatetest.Key, BaseURL: url, Usage: rec})
		},
		Reranker: func(url string, rec driver.UsageRecorder) (driver.Reranker, error) {
			return cohere.NewReranker(cohere.Options{APIKey: situatetest.Key, BaseURL: url, Usage: rec})
		},
	})
}
