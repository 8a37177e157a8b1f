package situate_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/offline"
)

// TestIndexCompactsAfterBulkLoad checks Engine.Index's compaction rule: a
// run that writes a tenth or more of the store's chunks ends with every
// lexical arm in one segment file, and finds what it found before; a run
// that changes one document of forty leaves the segments its commit made.
func TestIndexCompactsAfterBulkLoad(t *testing.T) {
	ctx := context.Background()
	eng, st := openIndexEngine(t, offline.New(offline.DefaultOptions()))
	var docs []situate.Document
	for i := range 40 {
		docs = append(docs, idxDoc(fmt.Sprintf("d%02d", i),
			fmt.Sprintf("Report %d on the harbour of town %d. The quay number %d was rebuilt in stone after the flood of year %d.", i, i, i*7, 1900+i)))
	}
	segFiles := func() map[string]int {
		m, err := filepath.Glob(filepath.Join(st.dir, "bm25*", "*.seg"))
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, f := range m {
			n[filepath.Base(filepath.Dir(f))]++
		}
		return n
	}
	// Commits of five documents each: eight segments per arm before the
	// compaction.
	opts := situate.IndexOptions{CommitDocuments: 5}
	res, err := eng.Index(ctx, situate.Documents(docs...), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Compacted || res.Added != 40 {
		t.Fatalf("bulk load: Compacted %v, %d added; want true, 40", res.Compacted, res.Added)
	}
	files := segFiles()
	if len(files) < 2 {
		t.Fatalf("segment files by arm: %v; the test expects several arms", files)
	}
	for arm, n := range files {
		if n != 1 {
			t.Fatalf("after the bulk load the %s arm has %d segment files, want 1", arm, n)
		}
	}
	hits, err := eng.Search(ctx, situate.Query{Text: "quay number 133 flood 1919", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].DocID != "d19" {
		t.Fatalf("search after compaction: %v, want d19 first", hits)
	}

	// One document of forty changed: no compaction, its commit's segment
	// stays beside the compacted one.
	docs[3].Text += " A second quay was added later."
	res, err = eng.Index(ctx, situate.Documents(docs...), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Compacted || res.Updated != 1 {
		t.Fatalf("one changed document: Compacted %v, %d updated; want false, 1", res.Compacted, res.Updated)
	}
	for arm, n := range segFiles() {
		if n != 2 {
			t.Fatalf("after a one-document run the %s arm has %d segment files, want 2", arm, n)
		}
	}
}
