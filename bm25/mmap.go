//go:build unix

package bm25

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// mapSegment maps a segment file read-only and opens it. The mapping is
// released when the segment becomes unreachable: only term lookups and
// postings point into it, and those never outlive the snapshot that holds
// the segment (searches keep their snapshot alive to the end).
func mapSegment(path, name string) (*segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < int64(len(segMagic)+footerSize) || size != int64(int(size)) {
		return nil, fmt.Errorf("segment %s: size %d: %w", name, size, ErrCorrupt)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	seg, err := openSegment(name, data)
	if err != nil {
		syscall.Munmap(data)
		return nil, err
	}
	seg.path = path
	runtime.AddCleanup(seg, func(b []byte) { syscall.Munmap(b) }, data)
	return seg, nil
}
