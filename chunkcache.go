package situate

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/situate/situate/driver"

	"github.com/allegro/bigcache/v3"
)

// DefaultChunkCacheBytes is the default Options.ChunkCacheBytes: enough
// for every chunk of a 100k-chunk store of short chunks (the load test's:
// about 650 bytes an entry), which a server then reads from the store only
// for documents changed since (WarmChunkCache).
const DefaultChunkCacheBytes = 128 << 20

// chunkCache holds the stored chunks of recent hits in memory, so that a
// server answering the same popular results again does not read and decode
// their rows each time: under a writer every commit empties the store's
// page caches (SQLite resets a connection's cache when the database
// changed), and reading ten rows was a quarter of a search's processor
// time (bench/serve-load). An entry is valid only for the document record
// it was read under (docTag): a new version, a re-processing or a delete
// of the document makes it a miss, never a stale answer.
//
// The entries are encoded into bigcache's byte arrays, which hold no
// pointers: the garbage collector marks a full cache as a few large
// objects instead of a hundred thousand nodes and half a million strings.
// With the chunks kept as Go values (an otter cache), marking them was
// half of each collection's work in a server under load, and a collection
// took 130-170 ms in which searches had a quarter less processor time: the
// collections, one every two seconds, made the tail of the latencies
// (bench/serve-load). A hit costs one copy of its entry, which the decoded
// chunk's strings then share.
type chunkCache struct {
	c *bigcache.BigCache
	// maxBytes is the cache's bound, in whole MiB (bigcache's unit).
	maxBytes int64
}

// docTag identifies one stored state of a document's chunks: the store
// replaces them only in PutDocument, which always writes a record with a
// new IndexedAt.
type docTag struct {
	version, chunks int
	indexedAt       int64
	hash            string
}

func tagOf(rec DocumentRecord) docTag {
	return docTag{version: rec.Version, chunks: rec.Chunks, indexedAt: rec.IndexedAt.UnixNano(), hash: rec.Hash}
}

// newChunkCache makes a cache of maxBytes rounded up to whole MiB.
func newChunkCache(maxBytes int64) (*chunkCache, error) {
	mib := max(1, int((maxBytes+1<<20-1)>>20))
	// Shards lock apart; each is one byte array, addressed by 32-bit
	// offsets, so none may pass 2 GiB.
	shards := 16
	for mib/shards > 2048 {
		shards *= 2
	}
	for shards > 1 && mib/shards < 1 {
		shards /= 2
	}
	c, err := bigcache.New(context.Background(), bigcache.Config{
		Shards: shards,
		// Entries leave the cache only to make room, oldest first: no
		// expiry (a tag, not a time, says whether an entry is current)
		// and no cleaning goroutine, so nothing to stop: the cache needs no
		// Close.
		LifeWindow:  math.MaxInt64,
		CleanWindow: 0,
		// Each shard starts at 64 KiB and doubles as it fills, up to its
		// share of HardMaxCacheSize.
		MaxEntriesInWindow: shards * 64,
		MaxEntrySize:       1024,
		HardMaxCacheSize:   mib,
	})
	if err != nil {
		return nil, fmt.Errorf("chunk cache: %w", err)
	}
	return &chunkCache{c: c, maxBytes: int64(mib) << 20}, nil
}

// entryOverhead is what bigcache adds to a key and a value: its header
// (timestamp, hash, key length) and its queue's length prefix.
const entryOverhead = 8 + 8 + 2 + 5

// get returns ref's chunk if the cache holds it under tag.
func (cc *chunkCache) get(ref ChunkRef, tag docTag) (StoredChunk, bool) {
	b, ok := cc.entry(ref)
	if !ok {
		return StoredChunk{}, false
	}
	return decodeCachedChunk(b, ref, tag)
}

// holds reports whether the cache holds an entry for ref, of any tag.
func (cc *chunkCache) holds(ref ChunkRef) bool {
	_, ok := cc.entry(ref)
	return ok
}

// entry returns a copy of ref's encoded entry.
func (cc *chunkCache) entry(ref ChunkRef) ([]byte, bool) {
	var kb [64]byte
	key, ok := cacheKey(kb[:0], ref)
	if !ok {
		return nil, false
	}
	b, err := cc.c.Get(unsafe.String(unsafe.SliceData(key), len(key)))
	return b, err == nil
}

// set caches ch under tag and returns the bytes it takes (0 when it is not
// cached: a key too long for bigcache or an entry larger than a shard).
func (cc *chunkCache) set(ref ChunkRef, tag docTag, ch StoredChunk) int {
	var kb [64]byte
	key, ok := cacheKey(kb[:0], ref)
	if !ok {
		return 0
	}
	v := encodeCachedChunk(tag, ch)
	if cc.c.Set(unsafe.String(unsafe.SliceData(key), len(key)), v) != nil {
		return 0
	}
	return len(key) + len(v) + entryOverhead
}

// cacheKey appends ref's cache key to b: the document id, its length first
// so that no id is a prefix of another's key, and the chunk's index.
func cacheKey(b []byte, ref ChunkRef) ([]byte, bool) {
	b = binary.AppendUvarint(b, uint64(len(ref.DocID)))
	b = append(b, ref.DocID...)
	b = binary.AppendVarint(b, int64(ref.Index))
	return b, len(b) <= math.MaxUint16 // bigcache stores a key's length in 16 bits
}

// encodeCachedChunk encodes what a cache entry holds besides its key: the
// tag and the chunk (its DocID and Index are the key's).
func encodeCachedChunk(tag docTag, ch StoredChunk) []byte {
	// Twelve varints (six numbers, five string lengths, the flag count),
	// the strings, and a length for each flag.
	n := 12*binary.MaxVarintLen64 + len(tag.hash) + len(ch.Text) + len(ch.Heading) + len(ch.Context.Text) + len(ch.Context.Source)
	for _, f := range ch.Context.Flags {
		n += binary.MaxVarintLen64 + len(f)
	}
	b := make([]byte, 0, n)
	for _, v := range []int64{int64(tag.version), int64(tag.chunks), tag.indexedAt, int64(ch.Start), int64(ch.End), int64(ch.Tokens)} {
		b = binary.AppendVarint(b, v)
	}
	for _, s := range []string{tag.hash, ch.Text, ch.Heading, ch.Context.Text, ch.Context.Source} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(ch.Context.Flags)))
	for _, f := range ch.Context.Flags {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// decodeCachedChunk decodes an entry read for ref; it reports false if the
// entry was cached under another tag (or cannot be read). The chunk's
// strings share b, which the cache copied for this read alone.
func decodeCachedChunk(b []byte, ref ChunkRef, want docTag) (StoredChunk, bool) {
	d := entryDecoder{b: b}
	var tag docTag
	ch := StoredChunk{Chunk: Chunk{DocID: ref.DocID, Index: ref.Index}}
	tag.version, tag.chunks, tag.indexedAt = int(d.varint()), int(d.varint()), d.varint()
	if d.bad || tag.version != want.version || tag.chunks != want.chunks || tag.indexedAt != want.indexedAt {
		return StoredChunk{}, false
	}
	ch.Start, ch.End, ch.Tokens = int(d.varint()), int(d.varint()), int(d.varint())
	if tag.hash = d.str(); tag.hash != want.hash {
		return StoredChunk{}, false
	}
	ch.Text, ch.Heading, ch.Context.Text, ch.Context.Source = d.str(), d.str(), d.str(), d.str()
	if n := d.uvarint(); n > 0 && n <= uint64(len(d.b)) {
		ch.Context.Flags = make([]string, n)
		for i := range ch.Context.Flags {
			ch.Context.Flags[i] = d.str()
		}
	} else if n > 0 {
		d.bad = true
	}
	if d.bad || len(d.b) != 0 {
		return StoredChunk{}, false
	}
	return ch, true
}

// entryDecoder reads an entry's fields in order; a field that runs past
// the entry sets bad.
type entryDecoder struct {
	b   []byte
	bad bool
}

func (d *entryDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *entryDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *entryDecoder) str() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := unsafe.String(unsafe.SliceData(d.b), int(n))
	if n == 0 {
		s = ""
	}
	d.b = d.b[n:]
	return s
}

// chunksAt reads refs through cr, serving from the cache the chunks of
// documents whose record the Engine holds and caching what it reads.
func (e *Engine) chunksAt(ctx context.Context, cr driver.ChunkReader, refs []ChunkRef) (map[ChunkRef]StoredChunk, error) {
	if e.chunks == nil {
		return cr.ChunksAt(ctx, refs)
	}
	tags := make([]docTag, len(refs))
	known := make([]bool, len(refs))
	e.mu.RLock()
	for i, r := range refs {
		if rec, ok := e.docs[r.DocID]; ok {
			tags[i], known[i] = tagOf(rec), true
		}
	}
	e.mu.RUnlock()
	got := make(map[ChunkRef]StoredChunk, len(refs))
	var missing []ChunkRef
	for i, r := range refs {
		if known[i] {
			if ch, ok := e.chunks.get(r, tags[i]); ok {
				got[r] = ch
				continue
			}
		}
		missing = append(missing, r)
	}
	if len(missing) == 0 {
		return got, nil
	}
	read, err := cr.ChunksAt(ctx, missing)
	if err != nil {
		return nil, err
	}
	for i, r := range refs {
		ch, ok := read[r]
		if !ok {
			continue
		}
		got[r] = ch
		if known[i] {
			// The record was read before the rows: if the document
			// changed in between, the entry's tag is the old record's,
			// which the next lookup no longer matches.
			e.chunks.set(r, tags[i], ch)
		}
	}
	return got, nil
}

// WarmChunkCache reads stored chunks into the chunk cache, document by
// document in id order, until the cache is nearly full (warmFill of its
// bound) or holds every chunk. A server calls it when it opens a tenant:
// its first searches would otherwise read every hit from the store, and
// under a writer each read is slow, because every commit makes SQLite drop
// its read connections' mappings of the database, so the next page each
// of them touches faults in again (bench/serve-load-*.txt: 0.87 ms of
// processor time per search on a cold cache, 0.40 ms on a warm one).
// It returns the number of chunks it added; without a cache it does
// nothing.
func (e *Engine) WarmChunkCache(ctx context.Context) (int, error) {
	if e.chunks == nil {
		return 0, nil
	}
	if err := e.ensureDocs(ctx); err != nil {
		return 0, fmt.Errorf("warm chunk cache: %w", err)
	}
	e.mu.RLock()
	recs := make([]DocumentRecord, 0, len(e.docs))
	for _, rec := range e.docs {
		recs = append(recs, rec)
	}
	e.mu.RUnlock()
	slices.SortFunc(recs, func(a, b DocumentRecord) int { return strings.Compare(a.ID, b.ID) })
	// The warm-up adds up the sizes of the entries it adds to stop near the
	// bound (bigcache does not say how full it is); what searches add
	// meanwhile makes the cache evict its oldest entries, not grow.
	limit := int64(float64(e.chunks.maxBytes) * warmFill)
	used := int64(0)
	added := 0
	for _, rec := range recs {
		if used >= limit {
			break
		}
		if err := ctx.Err(); err != nil {
			return added, err
		}
		chunks, err := e.store.Chunks(ctx, rec.ID)
		if errors.Is(err, ErrNotFound) {
			continue // deleted since the list was taken
		}
		if err != nil {
			return added, fmt.Errorf("warm chunk cache: %w", err)
		}
		tag := tagOf(rec)
		for _, ch := range chunks {
			if used >= limit {
				break
			}
			ref := ChunkRef{DocID: rec.ID, Index: ch.Index}
			// A hit cached meanwhile is as fresh as this read or fresher.
			if e.chunks.holds(ref) {
				continue
			}
			if n := e.chunks.set(ref, tag, ch); n > 0 {
				added++
				used += int64(n)
			}
		}
	}
	return added, nil
}

// warmFill is the share of the chunk cache WarmChunkCache fills, leaving
// the rest to the hits of the searches that follow.
const warmFill = 0.9
