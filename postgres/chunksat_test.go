package postgres_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/postgres"
)

// TestChunksAtAndCount: ChunksAt reads exactly the chunks named (those the
// store holds, over more than one query's worth of refs), equal to what
// Chunks returns; ChunkCount sums the chunks.
func TestChunksAtAndCount(t *testing.T) {
	ctx := context.Background()
	s, err := postgres.Open(ctx, postgres.NewTestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.ChunkCount(ctx); err != nil || n != 0 {
		t.Fatalf("empty store: %d chunks, %v", n, err)
	}
	total := 0
	for i := range 5 {
		id := fmt.Sprintf("doc%d", i)
		chunks := make([]situate.StoredChunk, 3)
		for j := range chunks {
			text := fmt.Sprintf("chunk %d of %s", j, id)
			chunks[j] = situate.StoredChunk{Chunk: situate.Chunk{DocID: id, Index: j, Start: 20 * j, End: 20*j + len(text), Text: text, Heading: "H", Tokens: 4},
				Context: situate.Context{Text: "context of " + id, Source: "offline", Flags: []string{"f"}}}
		}
		if err := s.PutDocument(ctx, situate.DocumentRecord{ID: id, Version: 1}, chunks); err != nil {
			t.Fatal(err)
		}
		total += len(chunks)
	}
	// A document whose id holds bytes that are not UTF-8 and a NUL.
	odd := "odd\x00\xff"
	if err := s.PutDocument(ctx, situate.DocumentRecord{ID: odd, Version: 1},
		[]situate.StoredChunk{{Chunk: situate.Chunk{Index: 0, End: 1, Text: "x"}}}); err != nil {
		t.Fatal(err)
	}
	total++
	if n, err := s.ChunkCount(ctx); err != nil || n != total {
		t.Fatalf("ChunkCount %d, %v; want %d", n, err, total)
	}
	all, err := s.Chunks(ctx, "doc3")
	if err != nil {
		t.Fatal(err)
	}
	var refs []situate.ChunkRef
	for i := range 2100 { // more than two queries' worth
		refs = append(refs, situate.ChunkRef{DocID: fmt.Sprintf("doc%d", i%7), Index: i % 4})
	}
	refs = append(refs, situate.ChunkRef{DocID: "doc3", Index: len(all)}, situate.ChunkRef{DocID: "doc3", Index: -1},
		situate.ChunkRef{DocID: odd, Index: 0}, situate.ChunkRef{DocID: "odd", Index: 0}, situate.ChunkRef{DocID: strings.Repeat("x", 5000), Index: 0})
	got, err := s.ChunksAt(ctx, refs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		c, ok := got[r]
		want := r.DocID < "doc5" && r.DocID >= "doc0" && r.Index >= 0 && r.Index < len(all) || r.DocID == odd
		if ok != want {
			t.Errorf("%q#%d: found %v, want %v", r.DocID, r.Index, ok, want)
		}
		if ok && r.DocID == "doc3" && !reflect.DeepEqual(c, all[r.Index]) {
			t.Errorf("%v: %+v, Chunks gives %+v", r, c, all[r.Index])
		}
	}
	if len(got) != 5*len(all)+1 {
		t.Errorf("%d chunks read, want %d", len(got), 5*len(all)+1)
	}
	if got, err := s.ChunksAt(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("no refs: %v %v", got, err)
	}
}
