package situate_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/situatetest"
	"github.com/situate/situate/sqlite"
)

// memBackendHarness runs situatetest.TestIndexBackend on memBackend over
// SQLite stores.
func memBackendHarness() situatetest.IndexBackendHarness {
	return situatetest.IndexBackendHarness{
		Open: func(t *testing.T) driver.IndexBackend { return newMemBackend() },
		Reopen: func(t *testing.T, old driver.IndexBackend) driver.IndexBackend {
			return old.(*memBackend).reopen()
		},
		NewStore: func(t *testing.T) driver.Store {
			s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "situate.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
}

// TestIndexBackendSuiteOnMemBackend: an Engine over an index backend
// (Options.Backend, the path Weaviate takes) ranks, filters, updates,
// deletes and repairs as the embedded engine does; memBackend, written
// from the driver's documentation, is the backend, so the suite runs
// without a Weaviate server.
func TestIndexBackendSuiteOnMemBackend(t *testing.T) {
	situatetest.TestIndexBackend(t, memBackendHarness())
}
