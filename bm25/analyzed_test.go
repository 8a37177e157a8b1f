package bm25

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestReplaceAnalyzedSameSegment checks that docs analysed ahead by
// Index.Analyze and applied with Batch.ReplaceAnalyzed give the segment
// Replace gives, byte for byte, mixed with groups replaced plainly; that a later Replace of the group wins; that Apply refuses docs
// analysed by another index, and bad docs analysed ahead.
func TestReplaceAnalyzedSameSegment(t *testing.T) {
	opts := Options{Fields: []Field{{Name: "chunk", Weight: 1}, {Name: "context", Weight: 0.5}}}
	docsOf := func(g int) []Doc {
		var docs []Doc
		for i := range 3 {
			docs = append(docs, Doc{ID: fmt.Sprintf("d%d#%d", g, i), Lang: []string{"en", "de", ""}[g%3],
				Fields: map[string]string{
					"chunk":   strings.Repeat(fmt.Sprintf("running dogs jumped %d Häuser über parseHTTPHeader ", g*i), 1+i),
					"context": fmt.Sprintf("From doc %d: the things", g),
				},
				Attrs: map[string]string{"k": fmt.Sprint(g)}})
		}
		return docs
	}
	plain, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ahead, _ := New(opts)
	other, _ := New(opts)
	var pb, ab Batch
	for g := range 12 {
		id := fmt.Sprint("g", g)
		pb.Replace(id, docsOf(g))
		switch g % 4 {
		case 0:
			ab.Replace(id, docsOf(g))
		case 1:
			a, err := ahead.Analyze(id, docsOf(g))
			if err != nil {
				t.Fatal(err)
			}
			ab.ReplaceAnalyzed(id, a)
		case 2:
			a, _ := ahead.Analyze(id, docsOf(g))
			ab.ReplaceAnalyzed(id, a)
		case 3:
			a, _ := ahead.Analyze(id, docsOf(g+100))
			ab.ReplaceAnalyzed(id, a)
			ab.Replace(id, docsOf(g))
		}
	}
	if err := plain.Apply(&pb); err != nil {
		t.Fatal(err)
	}
	if err := ahead.Apply(&ab); err != nil {
		t.Fatal(err)
	}
	p, a := plain.snap.Load().segs[0].seg.data, ahead.snap.Load().segs[0].seg.data
	if !bytes.Equal(p, a) {
		t.Fatalf("segment built from docs analysed ahead differs: %d bytes, want %d", len(a), len(p))
	}

	var foreign Batch
	an, _ := other.Analyze("g1", docsOf(1))
	foreign.ReplaceAnalyzed("g1", an)
	if err := ahead.Apply(&foreign); err == nil || !strings.Contains(err.Error(), "another index") {
		t.Fatalf("Apply of docs analysed by another index: %v", err)
	}

	var bad Batch
	an, err = ahead.Analyze("x", []Doc{{ID: "x#0", Fields: map[string]string{"nofield": "text"}}})
	if err != nil {
		t.Fatal(err)
	}
	bad.ReplaceAnalyzed("x", an)
	if err := ahead.Apply(&bad); err == nil || !strings.Contains(err.Error(), `unknown field "nofield"`) {
		t.Fatalf("Apply of a doc with an unknown field analysed ahead: %v", err)
	}
}
