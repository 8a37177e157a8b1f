package vector

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/situate/situate/internal/lockfile"
)

// lockDir takes the exclusive write lock on dir/LOCK for the life of the
// index, waiting up to wait for a writer that holds it.
func lockDir(dir string, wait time.Duration) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, holder, err := lockfile.Acquire(path, wait)
	if err != nil {
		return nil, fmt.Errorf("vector open: lock %s: %w", path, err)
	}
	if f == nil {
		return nil, fmt.Errorf("vector open: %s: waited %v for the write lock held by %s: %w", dir, wait.Round(time.Millisecond), holder, ErrLocked)
	}
	return f, nil
}
