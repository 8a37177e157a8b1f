//go:build !unix

package bm25

import (
	"fmt"
	"os"
	"path/filepath"
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
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("bm25 open: lock %s: %w", path, err)
	}
	return f, nil
}
