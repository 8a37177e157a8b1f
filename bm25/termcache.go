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
// partition's size. So each partition gets a Bloom filter of its terms
// (four bits of one 64-bit word per term, 16 bits per term; 0.14-0.15% false
// positives measured): an absent term then costs a hash and one read.

// A filter is built once a partition has had a lookup for every
// filterTermsPerLookup of its terms: building one reads every term (some
// 20 ns each), a lookup that misses the cache searches the dictionary's
// blocks (about a microsecond), so the build costs no more than the
// lookups before it, and a single command-line search, a few lookups per
// partition, builds none but the smallest. A partition of up to
// termFilterInlineTerms terms is built by the lookup that reaches the
// count; a larger one on a goroutine of its own, its lookups going on
// without the filter meanwhile. Large partitions need one too: the
// word-pair arm's query terms are pairs, nearly all absent and nearly all
// different, so its cache rarely holds them.
const (
	filterTermsPerLookup  = 64
	termFilterInlineTerms = 1 << 14
	// termFilterMaxTerms is the largest partition that gets a filter
	// (16 MiB).
	termFilterMaxTerms = 1 << 23
)

// lazyFilter builds a partition's filter when it is needed.
type lazyFilter struct {
	after   int64 // lookups before the filter is built
	inline  bool  // built by the lookup that reaches after
	lookups atomic.Int64
	once    sync.Once
	f       atomic.Pointer[termFilter] // nil until built, or if unreadable
}

// newLazyFilter returns nil for a partition too large for a filter.
func newLazyFilter(numTerms int) *lazyFilter {
	if numTerms > termFilterMaxTerms {
		return nil
	}
	return &lazyFilter{after: max(1, int64(numTerms/filterTermsPerLookup)), inline: numTerms <= termFilterInlineTerms}
}

// get returns the partition's filter, or nil when it has none (yet).
func (l *lazyFilter) get(s *segment, p *segPart) *termFilter {
	if l == nil {
		return nil
	}
	if f := l.f.Load(); f != nil {
		return f
	}
	if l.lookups.Add(1) < l.after {
		return nil
	}
	l.once.Do(func() {
		if l.inline {
			l.f.Store(newTermFilter(s, p))
			return
		}
		// The goroutine keeps the segment, and so its mapping, alive.
		go func() { l.f.Store(newTermFilter(s, p)) }()
	})
	return l.f.Load()
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

// newTermFilter returns a filter of p's terms, or nil when its dictionary
// cannot be read whole (then lookups report the damage).
func newTermFilter(s *segment, p *segPart) *termFilter {
	if s.check(p.entriesOff, len(p.entries)) != nil || s.check(p.blobOff, len(p.blob)) != nil {
		return nil
	}
	n := 1 << bits.Len(uint(max(p.numTerms/4, 1)))
	f := &termFilter{words: make([]uint64, n), mask: uint64(n - 1)}
	add := func(h uint64) { f.words[h&f.mask] |= filterBits(h) }
	if !p.compact {
		for i := range p.numTerms {
			t := p.term(i)
			if t == "" { // an entry outside the term blob: damaged
				return nil
			}
			add(termHash(t))
		}
		return f
	}
	// The cursor's bytes, hashed in place: a string per term would be
	// an allocation per term. (maphash.Bytes and String agree.)
	c := dictCursor{s: s, p: p}
	for range p.numTerms {
		if _, ok := c.next(); !ok {
			return nil
		}
		add(maphash.Bytes(termSeed, c.term))
	}
	return f
}
