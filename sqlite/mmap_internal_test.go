package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// TestReadConnectionsMapTheFile: the read connections read the database
// through a memory mapping (PRAGMA mmap_size > 0), the writer does not need
// one.
func TestReadConnectionsMapTheFile(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "situate.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var size int64
	if err := s.r.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size <= 0 {
		t.Errorf("read connection mmap_size = %d, want > 0", size)
	}
}
