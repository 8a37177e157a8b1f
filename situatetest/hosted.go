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
		build, fault := builders(h.Serve, h.Embedder)
		t.Run("Embedder", func(t *testing.T) {
			TestEmbedder(t, EmbedderHarness{New: build, Fault: fault, ErrorBody: h.ErrorBody})
		})
	}
	if h.Reranker != nil {
		build, fault := builders(h.Serve, h.Reranker)
		t.Run("Reranker", func(t *testing.T) {
			TestReranker(t, RerankerHarness{New: build, Fault: fault, ErrorBody: h.ErrorBody})
		})
	}
}

// builders are a harness's New (the adapter against a fake server from
// serve) and Fault (against the server at url), failing the test if
// building the adapter fails.
func builders[A any](serve func(t *testing.T) string, build func(url string, rec driver.UsageRecorder) (A, error)) (
	func(t *testing.T, rec driver.UsageRecorder) A, func(t *testing.T, url string, rec driver.UsageRecorder) A) {
	fault := func(t *testing.T, url string, rec driver.UsageRecorder) A {
		t.Helper()
		a, err := build(url, rec)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	return func(t *testing.T, rec driver.UsageRecorder) A { return fault(t, serve(t), rec) }, fault
}
