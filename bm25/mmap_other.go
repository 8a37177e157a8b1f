//go:build !unix

package bm25

import (
	"os"
	"time"
)

// mapSegment reads a segment file into memory where mmap is not available.
func mapSegment(path, name string) (*segment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return openSegment(name, data)
}

// lockDir only creates dir/LOCK: without flock, keeping a second process
// out of the directory is the caller's job.
func lockDir(dir string, wait time.Duration) (*os.File, error) {
	return acquireLock(dir, wait, func(*os.File) (bool, error) { return false, nil })
}
