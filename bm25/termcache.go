package bm25

import (
	"hash/maphash"
	"math/bits"
	"sync"
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

// termHash is a term's hash for the cache and the filter.
func termHash(term string) uint64 { return maphash.String(termSeed, term) }

func (c *termCache) get(term string, h uint64) (e termEntry, found, ok bool) {
	ct := c.slots[h&c.mask].Load()
	if ct == nil || ct.term != term {
		return termEntry{}, false, false
	}
	return ct.ent, ct.found, true
}

func (c *termCache) put(term string, h uint64, e termEntry, found bool) {
	c.slots[h&c.mask].Store(&cachedTerm{term: term, ent: e, found: found})
}

// A small partition (a segment of a few upserted documents) holds few of
// the terms a query asks for, and a server under writes keeps a dozen such
// segments per arm until they merge: most of its lookups are of absent
// terms, from a query vocabulary far larger than a cache of the
// partition's size. So each partition of up to termFilterMaxTerms terms
// gets a Bloom filter of its terms when it is first searched (one 64-bit
// word per term, four bits set in it; 16 bits per term, under 1% false
// positives): an absent term then costs a hash and one read.

// termFilterMaxTerms is the largest partition that gets a filter: building
// one reads every term, which a large partition would make its first
// search pay for (its lookups go to the cache instead).
const termFilterMaxTerms = 1 << 16

// lazyFilter builds a partition's filter at its first lookup.
type lazyFilter struct {
	once sync.Once
	f    *termFilter // nil when the dictionary could not be read whole
}

// newLazyFilter returns nil for a partition too large for a filter.
func newLazyFilter(numTerms int) *lazyFilter {
	if numTerms > termFilterMaxTerms {
		return nil
	}
	return &lazyFilter{}
}

func (l *lazyFilter) get(s *segment, p *segPart) *termFilter {
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.f = newTermFilter(s, p) })
	return l.f
}

type termFilter struct {
	words []uint64
	mask  uint64
}

func filterBits(h uint64) uint64 {
	return 1<<(h>>40&63) | 1<<(h>>46&63) | 1<<(h>>52&63) | 1<<(h>>58)
}

// mayHave is false when the partition certainly lacks the term of hash h.
func (f *termFilter) mayHave(h uint64) bool {
	m := filterBits(h)
	return f.words[h&f.mask]&m == m
}

// newTermFilter returns a filter of p's terms, or nil when p is too large
// or its dictionary cannot be read whole (then lookups report the damage).
func newTermFilter(s *segment, p *segPart) *termFilter {
	if p.numTerms > termFilterMaxTerms {
		return nil
	}
	if s.check(p.entriesOff, len(p.entries)) != nil || s.check(p.blobOff, len(p.blob)) != nil {
		return nil
	}
	n := 1 << bits.Len(uint(max(p.numTerms/4, 1)))
	f := &termFilter{words: make([]uint64, n), mask: uint64(n - 1)}
	seen := 0
	for it := newTermIter(s, p); it.ok; it.advance() {
		h := termHash(it.term)
		f.words[h&f.mask] |= filterBits(h)
		seen++
	}
	if seen != p.numTerms {
		return nil
	}
	return f
}
