package llm

import (
	"context"
	"testing"

	"github.com/situate/situate/driver"
)

// A document that is one chunk gets no call: the offline context serves,
// labelled with the fallback's name and not flagged. A one-chunk slice of a
// larger document, and any document with CallWholeDocuments, still gets
// its call.
func TestWholeDocumentNoCall(t *testing.T) {
	whole := "\n# Short note\n\nThe Ostmark ferry leaves at nine from pier four.\n"
	start := len("\n")
	one := DocChunks{Doc: driver.Document{ID: "note.md", Text: whole},
		Chunks: []driver.Chunk{{DocID: "note.md", Start: start, End: len(whole) - 1, Text: whole[start : len(whole)-1]}}}
	many := synthDocs(3, []int{3})[0]
	part := synthDocs(4, []int{2})[0]
	part.Doc.ID = "part.md"
	part.Chunks = part.Chunks[1:] // one chunk, but not the whole document
	for i := range part.Chunks {
		part.Chunks[i].DocID = "part.md"
	}
	docs := []DocChunks{one, many, part}

	for _, callAll := range []bool{false, true} {
		f := newFake()
		o := testOptions()
		o.Fallback = offlineFake{}
		o.CallWholeDocuments = callAll
		c, err := New(f, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := collect(t, context.Background(), c, docs)
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]int{}
		for _, cl := range f.snapshot() {
			calls[cl.DocID]++
		}
		wantOne := 0
		if callAll {
			wantOne = 1
		}
		if calls["note.md"] != wantOne || calls[many.Doc.ID] != 3 || calls["part.md"] != 1 {
			t.Errorf("CallWholeDocuments=%v: calls by document %v, want note.md %d, %s 3, part.md 1", callAll, calls, wantOne, many.Doc.ID)
		}
		x := got[0][0]
		if !callAll && (x.Source != "offline" || len(x.Flags) != 0 || x.Text != "From note.md.") {
			t.Errorf("one-chunk document's context: %+v, want the offline context, unflagged", x)
		}
		if callAll && x.Source != f.Name() {
			t.Errorf("with CallWholeDocuments the context is by %q, want the model", x.Source)
		}
	}

	// Without a fallback the context is empty and says so.
	c, err := New(newFake(), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	xs, err := c.Contextualize(context.Background(), one.Doc, one.Chunks)
	if err != nil || len(xs) != 1 || xs[0].Source != "none" || xs[0].Text != "" || len(xs[0].Flags) != 0 {
		t.Errorf("no fallback: %+v, %v", xs, err)
	}
}
