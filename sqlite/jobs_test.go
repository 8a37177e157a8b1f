package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/situatetest"
	"github.com/situate/situate/sqlite"
)

func openTemp(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestJobQueue(t *testing.T) {
	situatetest.TestJobStore(t, func(t *testing.T) driver.JobStore { return openTemp(t) })
}

func TestKeys(t *testing.T) {
	situatetest.TestKeyStore(t, func(t *testing.T) driver.KeyStore { return openTemp(t) })
}

func BenchmarkEnqueueUpload(b *testing.B) {
	ctx := context.Background()
	s := openTemp(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.EnqueueUpload(ctx, driver.Upload{DocID: "a.md", Data: []byte("hello world")}); err != nil {
			b.Fatal(err)
		}
	}
}
