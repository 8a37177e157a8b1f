package situate

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/situate/situate/internal/lockfile"
)

// writerLockName is the Engine's write lock in its index directory: one
// writer at a time opens the store for writing, while readers (Options
// ReadOnly) take no lock at all.
const writerLockName = "LOCK"

// lockWriter takes the exclusive write lock of dir, waiting up to wait for
// the writer that holds it, and records this process in the file so that
// the next writer can say who holds it.
func lockWriter(dir string, wait time.Duration) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open engine: %w", err)
	}
	path := filepath.Join(dir, writerLockName)
	f, holder, err := lockfile.Acquire(path, wait)
	if err != nil {
		return nil, fmt.Errorf("open engine: write lock %s: %w", path, err)
	}
	if f == nil {
		return nil, fmt.Errorf("open engine: %s is being written by %s (waited %v; searches still work meanwhile): %w",
			dir, holder, wait.Round(time.Millisecond), ErrLocked)
	}
	return f, nil
}
