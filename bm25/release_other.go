//go:build !linux

package bm25

// releasePages does nothing where madvise(MADV_DONTNEED) is not used.
func releasePages(*segment) {}
