package situate_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/offline"
)

// segmentFiles lists the segment files of the lexical arms in dir.
func segmentFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "bm25*", "*.seg"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// armSegments counts the segment files of each lexical arm in dir.
func armSegments(t *testing.T, dir string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, f := range segmentFiles(t, dir) {
		n[filepath.Base(filepath.Dir(f))]++
	}
	return n
}

func harbourDoc(i int) situate.Document {
	return idxDoc(fmt.Sprintf("d%02d", i),
		fmt.Sprintf("Report %d on the harbour of town %d. The quay number %d was rebuilt in stone after the flood of year %d.", i, i, i*7, 1900+i))
}

// TestIndexCompactsAfterBulkLoad checks Engine.Index's compaction rule: a
// run that writes a tenth or more of the store's chunks ends with every
// lexical arm in one segment file, and finds what it found before; a run
// that changes one document of forty leaves the segments its commit made.
func TestIndexCompactsAfterBulkLoad(t *testing.T) {
	ctx := context.Background()
	eng, st := openIndexEngine(t, offline.New(offline.DefaultOptions()))
	var docs []situate.Document
	for i := range 40 {
		docs = append(docs, harbourDoc(i))
	}
	segFiles := func() map[string]int { return armSegments(t, st.dir) }
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

// TestJobRunnerCompactsWhenIdle checks the same rule for documents that
// arrive through the job queue (a server's uploads): forty one-document
// jobs leave the merge policy's segments, and the runner, once the queue
// is empty, merges each arm into one; a later job of one changed document
// is left in its own segment.
func TestJobRunnerCompactsWhenIdle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eng, st := openIndexEngine(t, offline.New(offline.DefaultOptions()))
	enqueue := func(d situate.Document) {
		t.Helper()
		if _, err := st.EnqueueUpload(ctx, driver.Upload{DocID: d.ID, Title: d.Title, Lang: d.Lang, Format: d.Format, Data: []byte(d.Text)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		enqueue(harbourDoc(i))
	}
	r := &situate.JobRunner{Engine: eng, Jobs: st, Poll: 10 * time.Millisecond}
	stopped := make(chan struct{})
	go func() { r.Run(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped }()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); {
			if time.Now().After(deadline) {
				t.Fatalf("waited 30 s for %s; segment files by arm: %v", what, armSegments(t, st.dir))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	done := func(n int) func() bool {
		return func() bool {
			c, err := st.JobCounts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return c[situate.JobDone] == n
		}
	}
	waitFor("40 jobs done", done(40))
	oneEach := func() bool {
		files := armSegments(t, st.dir)
		for _, n := range files {
			if n != 1 {
				return false
			}
		}
		return len(files) > 1
	}
	waitFor("one segment per arm", oneEach)
	hits, err := eng.Search(ctx, situate.Query{Text: "quay number 133 flood 1919", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].DocID != "d19" {
		t.Fatalf("search after compaction: %v, want d19 first", hits)
	}

	d := harbourDoc(3)
	d.Text += " A second quay was added later."
	enqueue(d)
	waitFor("the 41st job done", done(41))
	time.Sleep(100 * time.Millisecond) // ten idle polls
	for arm, n := range armSegments(t, st.dir) {
		if n != 2 {
			t.Fatalf("after a one-document job the %s arm has %d segment files, want 2", arm, n)
		}
	}
}

// TestIndexSegmentsCompactAndWarm: IndexSegments counts each lexical
// arm's segments as the files on disk hold them; CompactIndexes leaves one
// per arm and the same ranking; WarmIndexes readies them without error;
// a reader cannot compact (ErrReadOnly), and an Engine over an index
// backend has no segments of its own.
func TestIndexSegmentsCompactAndWarm(t *testing.T) {
	ctx := context.Background()
	eng, st := openIndexEngine(t, offline.New(offline.DefaultOptions()))
	for i := range 3 {
		if _, err := eng.Put(ctx, harbourDoc(i)); err != nil {
			t.Fatal(err)
		}
	}
	segs := eng.IndexSegments()
	if files := armSegments(t, st.dir); len(segs) != len(files) || len(segs) < 2 {
		t.Fatalf("IndexSegments %v, segment files by arm %v: want the same arms", segs, files)
	}
	for arm, n := range armSegments(t, st.dir) {
		if segs[arm] != n || n < 2 {
			t.Errorf("arm %s: IndexSegments says %d, %d files on disk; want equal, 2 or more after three commits", arm, segs[arm], n)
		}
	}
	q := situate.Query{Text: "quay flood harbour", K: 3}
	before := search(t, eng, q)
	if err := eng.CompactIndexes(); err != nil {
		t.Fatal(err)
	}
	for arm, n := range eng.IndexSegments() {
		if n != 1 {
			t.Errorf("arm %s after CompactIndexes: %d segments, want 1", arm, n)
		}
	}
	after := search(t, eng, q)
	if len(after) != len(before) {
		t.Fatalf("compaction changed the results: %v, then %v", before, after)
	}
	for i := range before {
		if before[i].DocID != after[i].DocID || before[i].Chunk != after[i].Chunk || before[i].Score != after[i].Score {
			t.Errorf("hit %d: %s#%d %g before compaction, %s#%d %g after", i+1, before[i].DocID, before[i].Chunk, before[i].Score, after[i].DocID, after[i].Chunk, after[i].Score)
		}
	}
	if err := eng.WarmIndexes(); err != nil {
		t.Errorf("WarmIndexes: %v", err)
	}

	ro := situate.DefaultOptions()
	ro.OpenMode = situate.OpenReader
	reader, err := situate.Open(ctx, st.dir, st.Store, ro)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if err := reader.CompactIndexes(); !errors.Is(err, situate.ErrReadOnly) {
		t.Errorf("a reader's CompactIndexes: %v, want ErrReadOnly", err)
	}

	be := backendEngine(t, newSQLiteStore(t), newMemBackend(), nil)
	if _, err := be.Put(ctx, harbourDoc(0)); err != nil {
		t.Fatal(err)
	}
	if segs := be.IndexSegments(); len(segs) != 0 {
		t.Errorf("IndexSegments over an index backend: %v, want none", segs)
	}
}
