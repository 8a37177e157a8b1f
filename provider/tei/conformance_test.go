package tei_test

import (
	"context"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/tei"
	"github.com/situate/situate/provider/tei/teitest"
	"github.com/situate/situate/situatetest"
)

// The TEI embedder and reranker pass the conformance suites against the
// fake Text Embeddings Inference server (teitest, with --api-key) and, for
// the refusals, a server answering as TEI or a proxy in front of it does.
func TestConformance(t *testing.T) {
	server := func(t *testing.T, reranker bool) string {
		s := teitest.NewServer(teitest.Config{APIKey: situatetest.Key, Reranker: reranker})
		t.Cleanup(s.Close)
		return s.URL
	}
	// The refusing server has no /info: the options name what it would say.
	fixed := func(url string, rec driver.UsageRecorder) tei.Options {
		return tei.Options{APIKey: situatetest.Key, BaseURL: url, Usage: rec, Model: teitest.DefaultModelID, MaxInputTokens: 512, BatchSize: 32}
	}
	t.Run("Embedder", func(t *testing.T) {
		situatetest.TestEmbedder(t, situatetest.EmbedderHarness{
			New: func(t *testing.T, rec driver.UsageRecorder) driver.Embedder {
				e, err := tei.NewEmbedder(context.Background(), tei.Options{APIKey: situatetest.Key, BaseURL: server(t, false), Usage: rec})
				if err != nil {
					t.Fatal(err)
				}
				return e
			},
			Fault: func(t *testing.T, url string, rec driver.UsageRecorder) driver.Embedder {
				e, err := tei.NewEmbedder(context.Background(), fixed(url, rec))
				if err != nil {
					t.Fatal(err)
				}
				return e
			},
			ErrorBody: teitest.WriteError,
		})
	})
	t.Run("Reranker", func(t *testing.T) {
		situatetest.TestReranker(t, situatetest.RerankerHarness{
			New: func(t *testing.T, rec driver.UsageRecorder) driver.Reranker {
				r, err := tei.NewReranker(context.Background(), tei.Options{APIKey: situatetest.Key, BaseURL: server(t, true), Usage: rec})
				if err != nil {
					t.Fatal(err)
				}
				return r
			},
			Fault: func(t *testing.T, url string, rec driver.UsageRecorder) driver.Reranker {
				o := fixed(url, rec)
				o.Model = teitest.DefaultRerankerID
				r, err := tei.NewReranker(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				return r
			},
			ErrorBody: teitest.WriteError,
		})
	})
}
