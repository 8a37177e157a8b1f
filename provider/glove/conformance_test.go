package glove

import (
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/situatetest"
)

// The GloVe embedder passes the Embedder conformance suite on the test
// vocabulary. It has no server, so the suite's refusal checks do not apply.
func TestConformance(t *testing.T) {
	situatetest.TestEmbedder(t, situatetest.EmbedderHarness{
		New: func(t *testing.T, _ driver.UsageRecorder) driver.Embedder { return tiny(t, Options{}) },
	})
}
