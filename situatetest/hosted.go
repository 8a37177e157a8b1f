package situatetest

import (
	"testing"

	"github.com/situate/situate/driver"
)

// HostedHarness is a hosted embedding and rerank adapter (cohere,
// voyage, gemini) as its conformance test builds it.
type HostedHarness struct {
	// Serve starts the provider's fake server, configured with Key, for
	// one test and returns its URL.
	Serve func(t *testing.T) string
	// ErrorBody writes the provider's error answer, for FaultServer.
	ErrorBody ErrorBody
	// Embedder and Reranker build the adapter, configured with Key,
	// against the server at url, recording its usage to rec. A nil one
	// skips its suite (Gemini has no reranker).
	Embedder func(url string, rec driver.UsageRecorder) (driver.Embedder, error)
	Reranker func(url string, rec driver.UsageRecorder) (driver.Reranker, error)
}

// TestHosted runs TestEmbedder and TestReranker (subtests "Embedder" and
// "Reranker") on the adapter built against its fake server and, for the
// refusals, against FaultServers answering in the provider's error
// format.
func TestHosted(t *testing.T, h HostedHarness) {
	if h.Embedder != nil {
		t.Run("Embedder", func(t *testing.T) {
			TestEmbedder(t, EmbedderHarness{
				New: func(t *testing.T, rec driver.UsageRecorder) driver.Embedder {
					e, err := h.Embedder(h.Serve(t), rec)
					mustBuild(t, err)
					return e
				},
				Fault: func(t *testing.T, url string, rec driver.UsageRecorder) driver.Embedder {
					e, err := h.Embedder(url, rec)
					mustBuild(t, err)
					return e
				},
				ErrorBody: h.ErrorBody,
			})
		})
	}
	if h.Reranker != nil {
		t.Run("Reranker", func(t *testing.T) {
			TestReranker(t, RerankerHarness{
				New: func(t *testing.T, rec driver.UsageRecorder) driver.Reranker {
					r, err := h.Reranker(h.Serve(t), rec)
					mustBuild(t, err)
					return r
				},
				Fault: func(t *testing.T, url string, rec driver.UsageRecorder) driver.Reranker {
					r, err := h.Reranker(url, rec)
					mustBuild(t, err)
					return r
				},
				ErrorBody: h.ErrorBody,
			})
		})
	}
}

// mustBuild fails the test if building the adapter failed.
func mustBuild(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
