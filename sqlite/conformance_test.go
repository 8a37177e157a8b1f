package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/situatetest"
	"github.com/situate/situate/sqlite"
)

// The SQLite store passes the Store conformance suite every store backend
// runs, including the MetaStore, ContextCache, VectorCache and
// UsageRecorder checks and persistence across close and reopen.
func TestConformance(t *testing.T) {
	situatetest.TestStore(t, situatetest.StoreHarness{
		New: func(t *testing.T) (driver.Store, func() (driver.Store, error)) {
			path := filepath.Join(t.TempDir(), "situate.db")
			s, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			return s, func() (driver.Store, error) { return sqlite.Open(context.Background(), path) }
		},
	})
}
