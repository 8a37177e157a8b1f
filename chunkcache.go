package situate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/maypok86/otter/v2"
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
type chunkCache struct {
	c *otter.Cache[ChunkRef, cachedChunk]
}

type cachedChunk struct {
	tag   docTag
	chunk StoredChunk
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

func newChunkCache(maxBytes int64) (*chunkCache, error) {
	c, err := otter.New(&otter.Options[ChunkRef, cachedChunk]{
		MaximumWeight: uint64(maxBytes),
		Weigher:       chunkWeight,
	})
	if err != nil {
		return nil, fmt.Errorf("chunk cache: %w", err)
	}
	return &chunkCache{c: c}, nil
}

// chunkWeight is an entry's weight in the cache: the strings' bytes and a
// fixed share for the entry itself.
func chunkWeight(ref ChunkRef, v cachedChunk) uint32 {
	n := 160 + len(ref.DocID) + len(v.chunk.Text) + len(v.chunk.Heading) + len(v.chunk.Context.Text) +
		len(v.chunk.Context.Source) + len(v.tag.hash)
	for _, f := range v.chunk.Context.Flags {
		n += 16 + len(f)
	}
	return uint32(min(n, 1<<31))
}

// chunksAt reads refs through cr, serving from the cache the chunks of
// documents whose record the Engine holds and caching what it reads.
func (e *Engine) chunksAt(ctx context.Context, cr ChunkReader, refs []ChunkRef) (map[ChunkRef]StoredChunk, error) {
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
			if v, ok := e.chunks.c.GetIfPresent(r); ok && v.tag == tags[i] {
				got[r] = v.chunk
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
			e.chunks.c.Set(r, cachedChunk{tag: tags[i], chunk: ch})
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
	limit := uint64(float64(e.chunks.c.GetMaximum()) * warmFill)
	// The cache counts its weight as it applies writes, later: the warm-up
	// adds up its own entries' weights to stop at the bound.
	used := e.chunks.c.WeightedSize()
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
			ref, v := ChunkRef{rec.ID, ch.Index}, cachedChunk{tag: tag, chunk: ch}
			// A hit cached meanwhile is as fresh as this read or fresher.
			if _, ok := e.chunks.c.SetIfAbsent(ref, v); ok {
				added++
				used += uint64(chunkWeight(ref, v))
			}
		}
	}
	return added, nil
}

// warmFill is the share of the chunk cache WarmChunkCache fills, leaving
// the rest to the hits of the searches that follow.
const warmFill = 0.9
