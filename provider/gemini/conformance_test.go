package gemini_test

import (
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/gemini"
	"github.com/situate/situate/provider/gemini/geminitest"
	"github.com/situate/situate/situatetest"
)

// The Gemini embedder passes the conformance suite (Gemini has no
// reranker) against the fake Gemini API (geminitest) and, for the
// refusals, a server answering Gemini's error shape.
func TestConformance(t *testing.T) {
	situatetest.TestHosted(t, situatetest.HostedHarness{
		Serve: func(t *testing.T) string {
			s := geminitest.NewServer(geminitest.Config{APIKey: situatetest.Key})
			t.Cleanup(s.Close)
			return s.URL
		},
		ErrorBody: geminitest.WriteError,
		Embedder: func(url string, rec driver.UsageRecorder) (driver.Embedder, error) {
			return gemini.NewEmbedder(gemini.Options{APIKey: situatetest.Key, BaseURL: url, Usage: rec})
		},
	})
}
