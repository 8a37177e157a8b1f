package bm25

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/situate/situate/internal/lockfile"
)

// ErrLocked is wrapped by Open's error when another process held the
// directory's write lock for longer than Options.LockWait. The error says
// which process holds it, as that process wrote it into the LOCK file.
var ErrLocked = errors.New("bm25: index is locked by another writer")

// ErrReadOnly is returned by the writes of an index opened with
// OpenReadOnly.
var ErrReadOnly = errors.New("bm25: index is open read-only")

// lockDir takes the exclusive write lock on dir/LOCK for the life of the
// index, waiting up to wait for a writer that holds it.
func lockDir(dir string, wait time.Duration) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, holder, err := lockfile.Acquire(path, wait)
	if err != nil {
		return nil, fmt.Errorf("bm25 open: lock %s: %w", path, err)
	}
	if f == nil {
		return nil, fmt.Errorf("bm25 open: %s: waited %v for the write lock held by %s: %w", dir, wait.Round(time.Millisecond), holder, ErrLocked)
	}
	return f, nil
}
