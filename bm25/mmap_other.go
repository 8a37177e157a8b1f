//go:build !unix

package bm25

import (
	"os"
)

// mapSegment reads a segment file into memory where mmap is not available.
func mapSegment(path, name string) (*segment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	seg, err := openSegment(name, data)
	if err != nil {
		return nil, err
	}
	seg.path = path
	return seg, nil
}
