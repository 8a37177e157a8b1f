package postgres_test

import (
	"context"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/postgres"
	"github.com/situate/situate/situatetest"
)

// The PostgreSQL store passes the Store conformance suite every store
// backend runs, including the MetaStore, ContextCache, VectorCache and
// UsageRecorder checks and persistence across close and reopen.
func TestConformance(t *testing.T) {
	situatetest.TestStore(t, situatetest.StoreHarness{
		New: func(t *testing.T) (driver.Store, func() (driver.Store, error)) {
			url := postgres.NewTestDatabase(t)
			s, err := postgres.Open(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			return s, func() (driver.Store, error) { return postgres.Open(context.Background(), url) }
		},
	})
}
