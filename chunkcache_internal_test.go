package situate

import (
	"fmt"
	"strings"
	"testing"
)

// TestCachedChunkRoundTrip: a chunk read back from the cache equals the one
// cached, under the tag it was cached with only; an entry that does not
// decode whole is a miss.
func TestCachedChunkRoundTrip(t *testing.T) {
	cc, err := newChunkCache(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	tag := docTag{version: 3, chunks: 2, indexedAt: 1764700000123456789, hash: "sha256:ab"}
	chunks := []StoredChunk{
		{Chunk: Chunk{DocID: "docs/a.md", Index: 1, Start: 10, End: 52, Text: "Revenue grew 3% — Ümsatz, выручка, 收入.", Heading: "Q3 > Results", Tokens: 12},
			Context: Context{Text: "From ACME's Q3 2023 report.", Source: "anthropic:claude-haiku-4-5", Flags: []string{"fallback", "unknown-number:3"}}},
		{Chunk: Chunk{DocID: "", Index: 0}}, // every field empty
		{Chunk: Chunk{DocID: strings.Repeat("x", 300), Index: 1 << 40, Text: strings.Repeat("y", 70000)}}, // long id and text
	}
	for _, ch := range chunks {
		ref := ChunkRef{DocID: ch.DocID, Index: ch.Index}
		if n := cc.set(ref, tag, ch); n <= len(ch.Text) {
			t.Fatalf("set %q: took %d bytes", ref.DocID, n)
		}
		got, ok := cc.get(ref, tag)
		if !ok || fmt.Sprint(got) != fmt.Sprint(ch) {
			t.Errorf("get %q: %v %+v, want %+v", ref.DocID, ok, got, ch)
		}
		for _, other := range []docTag{
			{version: 4, chunks: 2, indexedAt: tag.indexedAt, hash: tag.hash},
			{version: 3, chunks: 2, indexedAt: tag.indexedAt + 1, hash: tag.hash},
			{version: 3, chunks: 2, indexedAt: tag.indexedAt, hash: "sha256:ac"},
		} {
			if _, ok := cc.get(ref, other); ok {
				t.Errorf("get %q under tag %+v: a hit, want a miss", ref.DocID, other)
			}
		}
		if _, ok := cc.get(ChunkRef{DocID: ref.DocID, Index: ref.Index + 1}, tag); ok {
			t.Errorf("get %q's next chunk: a hit, want a miss", ref.DocID)
		}
	}
	// A document id that is a prefix of another's does not share its keys.
	cc.set(ChunkRef{DocID: "ab", Index: 1}, tag, StoredChunk{Chunk: Chunk{DocID: "ab", Index: 1, Text: "ab one"}})
	if got, ok := cc.get(ChunkRef{DocID: "a", Index: 1}, tag); ok {
		t.Errorf("get a#1 after caching ab#1: %+v", got)
	}
	b := encodeCachedChunk(tag, chunks[0])
	for n := range len(b) {
		if got, ok := decodeCachedChunk(b[:n], ChunkRef{DocID: "docs/a.md", Index: 1}, tag); ok {
			t.Fatalf("an entry cut to %d of %d bytes decoded: %+v", n, len(b), got)
		}
	}
	if _, ok := decodeCachedChunk(append(b, 0), ChunkRef{DocID: "docs/a.md", Index: 1}, tag); ok {
		t.Error("an entry with a byte more decoded")
	}
	// An id too long for bigcache's 16-bit key length is not cached.
	long := ChunkRef{DocID: strings.Repeat("z", 70000), Index: 0}
	if n := cc.set(long, tag, StoredChunk{Chunk: Chunk{DocID: long.DocID}}); n != 0 {
		t.Errorf("set with a 70000-byte id: took %d bytes, want 0", n)
	}
}
