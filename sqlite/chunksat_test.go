package sqlite_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/situate/situate"
)

// TestChunksAtAndCount: ChunksAt reads exactly the chunks named (those the
// store holds), equal to what Chunks returns; ChunkCount sums the chunks.
func TestChunksAtAndCount(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	if n, err := s.ChunkCount(ctx); err != nil || n != 0 {
		t.Fatalf("empty store: %d chunks, %v", n, err)
	}
	total := 0
	for i := range 5 {
		rec, chunks := makeDoc(fmt.Sprintf("doc%d", i), 1)
		if err := s.PutDocument(ctx, rec, chunks); err != nil {
			t.Fatal(err)
		}
		total += len(chunks)
	}
	if n, err := s.ChunkCount(ctx); err != nil || n != total {
		t.Fatalf("ChunkCount %d, %v; want %d", n, err, total)
	}
	all, err := s.Chunks(ctx, "doc3")
	if err != nil {
		t.Fatal(err)
	}
	var refs []situate.ChunkRef
	for i := range 600 { // more than one query's worth
		refs = append(refs, situate.ChunkRef{DocID: fmt.Sprintf("doc%d", i%7), Index: i % 4})
	}
	refs = append(refs, situate.ChunkRef{DocID: "doc3", Index: len(all)}) // past the end
	got, err := s.ChunksAt(ctx, refs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		c, ok := got[r]
		want := r.DocID < "doc5" && r.Index < len(all)
		if ok != want {
			t.Errorf("%v: found %v, want %v", r, ok, want)
		}
		if ok && r.DocID == "doc3" && !reflect.DeepEqual(c, all[r.Index]) {
			t.Errorf("%v: %+v, Chunks gives %+v", r, c, all[r.Index])
		}
	}
	if len(got) != 5*min(4, len(all)) {
		t.Errorf("%d chunks read, want %d", len(got), 5*min(4, len(all)))
	}
}
