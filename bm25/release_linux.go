package bm25

import "golang.org/x/sys/unix"

// releasePages drops a mapped segment's pages from the process's resident
// memory (the page cache keeps them; a later read faults them back in from
// the mapping, which stays valid). A merge reads every byte of the
// segments it replaces, and their mappings last until the garbage
// collector finds them unreachable: without this an index run held the
// pages of every segment merged since the last collection.
func releasePages(s *segment) {
	if s.name == "" || len(s.data) == 0 {
		return // in memory: the heap is the garbage collector's
	}
	unix.Madvise(s.data, unix.MADV_DONTNEED)
}
