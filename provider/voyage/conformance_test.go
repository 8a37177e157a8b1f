package voyage_test

import (
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/voyage"
	"github.com/situate/situate/provider/voyage/voyagetest"
	"github.com/situate/situate/situatetest"
)

// The Voyage AI embedder and reranker pass the conformance suites against the
// fake Voyage AI API (voyagetest) and, for the refusals, a server answering
// Voyage AI's error shape.
func TestConformance(t *testing.T) {
	situatetest.TestHosted(t, situatetest.HostedHarness{
		Serve: func(t *testing.T) string {
			s := voyagetest.NewServer(voyagetest.Config{APIKey: situatetest.Key})
			t.Cleanup(s.Close)
			return s.URL
		},
		ErrorBody: voyagetest.WriteError,
		Embedder: func(url string, rec driver.UsageRecorder) (driver.Embedder, error) {
			return voyage.NewEmbedder(voyage.Options{APIKey: situatetest.Key, BaseURL: url, Usage: rec})
		},
		Reranker: func(url string, rec driver.UsageRecorder) (driver.Reranker, error) {
			return voyage.NewReranker(voyage.Options{APIKey: situatetest.Key, BaseURL: url, Usage: rec})
		},
	})
}
