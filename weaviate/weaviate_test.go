package weaviate_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/testskip"
	"github.com/situate/situate/internal/weaviatetest"
	"github.com/situate/situate/situatetest"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/weaviate"
)

func TestMain(m *testing.M) { testskip.Main(m) }

var namespaces atomic.Int64

// TestConformance runs situate's IndexBackend suite against a real Weaviate
// started for the test: every Open gets collections of its own.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Weaviate server")
	}
	cl := weaviatetest.Start(t)
	open := func(t *testing.T, collection string) driver.IndexBackend {
		x, err := weaviate.Open(context.Background(), weaviate.Config{URLs: cl.URLs(), Collection: collection, VectorIndex: "flat"})
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	situatetest.TestIndexBackend(t, situatetest.IndexBackendHarness{
		Open: func(t *testing.T) driver.IndexBackend {
			return open(t, fmt.Sprintf("C%d", namespaces.Add(1)))
		},
		Reopen: func(t *testing.T, old driver.IndexBackend) driver.IndexBackend {
			return open(t, old.(*weaviate.Index).Config().Collection)
		},
		NewStore: func(t *testing.T) driver.Store {
			s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "store.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	})
}
