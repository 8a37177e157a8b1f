package glove

import (
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/situatetest"
)

// The GloVe embedder passes the Embedder conformance suite on the test
// vocabulary. It has no server, so the suite's refusal checks do not apply.
func TestConformance(t *testing.T) {
	situatetest.TestEmbedder(t, situatetest.EmbedderHarness{
		New: func(t *testing.T, _ situate.UsageRecorder) situate.Embedder { return tiny(t, Options{}) },
	})
}
