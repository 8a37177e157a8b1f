package bm25

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"
)

// A term lookup in a large partition is a binary search over the
// dictionary's block heads followed by a scan of one block: a dozen or more
// reads of memory-mapped pages scattered over a file of tens of megabytes,
// cache misses each, for every query term in every segment of every arm. A
// server answers the same frequent words again and again (query terms
// follow Zipf's law as document words do), so each large partition keeps
// the results of its recent lookups, found or not, in a small direct-mapped
// cache: a hit costs a hash and a string comparison. Segments are
// immutable, so an entry never goes stale; it lives as long as its segment.
// Only lookups that succeed are cached (never a damaged block's error), and
// a found term's postings were verified when it was first looked up.

// termCacheMinTerms is the smallest partition that gets a cache: below it a
// lookup reads a block or two, as cheap as a cache.
const termCacheMinTerms = 16 * dictBlockTerms

// termCacheMaxSlots bounds a partition's cache: 4096 slots of 8 bytes, and
// as many entries (about 100 bytes each) once filled.
const termCacheMaxSlots = 4096

var termSeed = maphash.MakeSeed()

type termCache struct {
	slots []atomic.Pointer[cachedTerm]
	mask  uint64
}

type cachedTerm struct {
	term  string
	ent   termEntry
	found bool
}

// newTermCache returns a cache for a partition of numTerms terms, or nil
// when the partition is too small to need one.
func newTermCache(numTerms int) *termCache {
	if numTerms < termCacheMinTerms {
		return nil
	}
	n := min(termCacheMaxSlots, 1<<bits.Len(uint(numTerms)))
	return &termCache{slots: make([]atomic.Pointer[cachedTerm], n), mask: uint64(n - 1)}
}

func (c *termCache) get(term string) (e termEntry, found, ok bool) {
	ct := c.slots[maphash.String(termSeed, term)&c.mask].Load()
	if ct == nil || ct.term != term {
		return termEntry{}, false, false
	}
	return ct.ent, ct.found, true
}

func (c *termCache) put(term string, e termEntry, found bool) {
	c.slots[maphash.String(termSeed, term)&c.mask].Store(&cachedTerm{term: term, ent: e, found: found})
}
