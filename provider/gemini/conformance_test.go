package gemini_test

import (
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/gemini"
	"github.com/situate/situate/provider/gemini/geminitest"
	"github.com/situate/situate/situatetest"
)

// The Gemini embedder passes the conformance suite (Gemini has no reranker) against the
// fake Gemini API (geminitest) and, for the refusals, a server answering
// Gemini's error shape.
func TestConformance(t *testing.T) {
	server := func(t *testing.T) string {
		s := geminitest.NewServer(geminitest.Config{APIKey: situatetest.Key})
		t.Cleanup(s.Close)
		return s.URL
	}
	must := func(t *testing.T, err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	embedder := func(t *testing.T, url string, rec driver.UsageRecorder) driver.Embedder {
		e, err := gemini.NewEmbedder(gemini.Options{APIKey: situatetest.Key, BaseURL: url, Usage: rec})
		must(t, err)
		return e
	}
	situatetest.TestEmbedder(t, situatetest.EmbedderHarness{
		New:       func(t *testing.T, rec driver.UsageRecorder) driver.Embedder { return embedder(t, server(t), rec) },
		Fault:     embedder,
		ErrorBody: geminitest.WriteError,
	})
}
