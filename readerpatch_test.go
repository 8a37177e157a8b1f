package situate_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// TestReaderSeesAccessChange: a reader beside the writer (situate mcp,
// search --as, a second process) judges access by the records as the
// writer last committed them: after the writer narrows a document's access
// with Patch, the reader's very next search, list and Document no longer
// show it to a principal the change shut out.
func TestReaderSeesAccessChange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(mode situate.OpenMode) *situate.Engine {
		st, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		o := situate.DefaultOptions()
		o.Contextualizer = nil
		o.OpenMode = mode
		e, err := situate.Open(ctx, dir, st, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	w := open(situate.OpenWriter)
	if _, err := w.Put(ctx, situate.Document{ID: "plan.md", Text: "The lakeside office opens in spring.", Access: []string{"alice", "bob"}}); err != nil {
		t.Fatal(err)
	}
	r := open(situate.OpenReader)
	asAlice := situate.Query{Text: "lakeside office", Filter: situate.Filter{Principals: []string{"alice"}}}
	if hits, err := r.Search(ctx, asAlice); err != nil || len(hits) != 1 {
		t.Fatalf("alice before the change: %v %v", hits, err)
	}
	if _, err := w.Patch(ctx, "plan.md", situate.Patch{Access: &[]string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	if hits, err := r.Search(ctx, asAlice); err != nil || len(hits) != 0 {
		t.Errorf("the reader's search shows alice a document her access was taken from: %v %v", hits, err)
	}
	if rec, err := r.Document("plan.md"); err != nil || len(rec.Access) != 1 || rec.Access[0] != "bob" {
		t.Errorf("the reader's Document after the change: %+v %v, want access [bob]", rec, err)
	}
	if docs, err := r.DocumentsMatching(situate.Filter{Principals: []string{"alice"}}); err != nil || len(docs) != 0 {
		t.Errorf("the reader lists for alice %v %v, want nothing", docs, err)
	}
}

// BenchmarkPatchAccess measures one access change of a document in a store
// of 1,000 (SQLite, the embedded arms): the store's record, the arms'
// entries of the document written again (so readers see the change), and
// the records.
func BenchmarkPatchAccess(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	opts := situate.DefaultOptions()
	opts.ChunkSize, opts.ChunkOverlap = 32, 0
	opts.Contextualizer = offline.New(offline.DefaultOptions())
	eng, err := situate.Open(ctx, dir, store, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	words := strings.Fields("harbour ledger tide lock keeper barge canal quay pilot buoy salt crane office plan move spring")
	var docs []situate.Document
	for i := range 1000 {
		var t strings.Builder
		for j := range 400 {
			t.WriteString(words[(i*7+j*3)%len(words)])
			t.WriteString(" ")
			if j%20 == 19 {
				t.WriteString(". ")
			}
		}
		docs = append(docs, situate.Document{ID: fmt.Sprintf("doc%04d", i), Text: t.String(), Lang: "en"})
	}
	if _, err := eng.Index(ctx, situate.Documents(docs...), situate.IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	lists := [][]string{{"hr"}, {"alice", "hr"}}
	b.ResetTimer()
	for i := range b.N {
		if _, err := eng.Patch(ctx, "doc0500", situate.Patch{Access: &lists[i%2]}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	rec, _ := eng.Document("doc0500")
	b.ReportMetric(float64(rec.Chunks), "chunks/doc")
}
