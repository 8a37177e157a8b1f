package situate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/sqlite"
)

// waitUntil polls cond every few milliseconds, failing after 30 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
	}
}

// blockingContextualizer blocks every call until its context ends,
// saying when it started: a model call in flight when a worker stops.
type blockingContextualizer struct{ started chan struct{} }

func (b blockingContextualizer) Name() string { return "test:blocking" }
func (b blockingContextualizer) Contextualize(ctx context.Context, _ situate.Document, _ []situate.Chunk) ([]situate.Context, error) {
	close(b.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestJobRunnerRunWakesAndStops: an idle Run claims a new job as soon as
// Wake says so, not at its next poll (an hour away here), reports it to
// Finished and its calls to Observe; when its context ends it returns,
// and a job it was running goes back to the queue without counting the
// attempt.
func TestJobRunnerRunWakesAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := situate.DefaultOptions()
	o.Contextualizer = &callContextualizer{name: "test:llm"}
	eng, store := openTestEngine(t, t.TempDir(), o)
	wake := make(chan struct{}, 1)
	var finished, observed atomic.Int64
	r := &situate.JobRunner{Engine: eng, Jobs: store, Poll: time.Hour, Wake: wake,
		Finished: func(driver.Job, time.Duration) { finished.Add(1) },
		Observe:  func(situate.CallEvent) { observed.Add(1) }}
	stopped := make(chan struct{})
	go func() { r.Run(ctx); close(stopped) }()
	if _, err := store.EnqueueUpload(ctx, driver.Upload{DocID: "a", Lang: "en", Data: []byte("The ferry crosses the sound at dawn.")}); err != nil {
		t.Fatal(err)
	}
	wake <- struct{}{}
	waitUntil(t, "the woken runner to finish the job", func() bool { return finished.Load() == 1 })
	if observed.Load() == 0 {
		t.Error("Observe saw none of the job's calls")
	}
	if ids := searchIDs(t, eng, situate.Query{Text: "ferry", K: 5}); len(ids) != 1 {
		t.Errorf("after the job: %v, want a", ids)
	}
	cancel()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30 s of its context's end")
	}

	// A job in flight when the runner stops.
	opts := situate.DefaultOptions()
	bc := blockingContextualizer{started: make(chan struct{})}
	opts.Contextualizer = bc
	beng, bstore := openTestEngine(t, t.TempDir(), opts)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	job, err := bstore.EnqueueUpload(ctx, driver.Upload{DocID: "b", Lang: "en", Data: []byte("Stone bridges span the river.")})
	if err != nil {
		t.Fatal(err)
	}
	stopped = make(chan struct{})
	go func() { (&situate.JobRunner{Engine: beng, Jobs: bstore, Poll: time.Hour}).Run(ctx); close(stopped) }()
	<-bc.started
	cancel()
	<-stopped
	j, err := bstore.Job(context.Background(), job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != situate.JobQueued || j.Attempts != 0 {
		t.Errorf("the job in flight when the runner stopped: %s after %d attempts, want queued, no attempt counted", j.State, j.Attempts)
	}
}

// TestFileStamp: a file's stamp is its size and modification time, so an
// unchanged file is not read again; a file modified within
// RacyStampWindow has none, since a change later in the same clock tick
// would keep it.
func TestFileStamp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := situate.FileStamp(info); s != "" {
		t.Errorf("a file written just now has stamp %q, want none", s)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if info, err = os.Stat(path); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("5:%d", info.ModTime().UnixNano())
	if s := situate.FileStamp(info); s != want {
		t.Errorf("stamp of an hour-old file: %q, want %q", s, want)
	}
}

// TestIndexDuplicateIDs: a source that reports two documents with one id
// (two files mapped to one name) indexes the first and skips the second
// with ErrDuplicateID, naming both files; nothing of the first is lost.
func TestIndexDuplicateIDs(t *testing.T) {
	ctx := context.Background()
	eng, _ := openTestEngine(t, t.TempDir(), situate.DefaultOptions())
	src := func(ctx context.Context, f *situate.Feed) error {
		a := doc("notes", "The ferry crosses the sound at dawn.")
		a.Path = "docs/notes.md"
		if err := f.Add(a, ""); err != nil {
			return err
		}
		b := doc("notes", "Stone bridges span the river.")
		b.Path = "docs/notes.txt"
		if err := f.Add(b, ""); err != nil {
			return err
		}
		return f.Add(doc("notes", "A third, with no file."), "")
	}
	res, err := eng.Index(ctx, src, situate.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || len(res.Skipped) != 2 {
		t.Fatalf("index of three documents with one id: %+v, want 1 added, 2 skipped", res)
	}
	for _, err := range res.Skipped {
		if !errors.Is(err, situate.ErrDuplicateID) {
			t.Errorf("skipped: %v, want ErrDuplicateID", err)
		}
	}
	if msg := res.Skipped[0].Error(); !strings.Contains(msg, "docs/notes.txt") || !strings.Contains(msg, "docs/notes.md") {
		t.Errorf("skip of the second file: %q, want both files named", msg)
	}
	if ids := searchIDs(t, eng, situate.Query{Text: "ferry", K: 5}); len(ids) != 1 {
		t.Errorf("the first document: %v", ids)
	}
}

// damagedStore is a SQLite store whose integrity check finds damage.
type damagedStore struct{ *sqlite.Store }

func (damagedStore) IntegrityCheck(context.Context, bool) ([]string, error) {
	return []string{"page 7: btree cell out of order"}, nil
}

// TestRepairRefuses: Repair rebuilds nothing from a damaged store (the
// indexes cannot be rebuilt from it) and leaves the damaged arm as it is;
// a damaged vector arm without an embedder to rebuild it is an error
// naming it, while the other arms are repaired.
func TestRepairRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := situate.DefaultOptions()
	opts.Embedder = &hashEmbedder{dim: 16}
	eng, store := openTestEngine(t, dir, opts)
	for _, d := range []situate.Document{doc("a", "The ferry crosses the sound."), doc("b", "Stone bridges span the river.")} {
		if _, err := eng.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	eng.Close()
	flipByte(t, filepath.Join(dir, "bm25", "MANIFEST"))
	flipByte(t, filepath.Join(dir, "vectors", "MANIFEST"))

	r, err := situate.Repair(ctx, dir, damagedStore{store}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r.RepairErr == nil || !strings.Contains(r.RepairErr.Error(), "store is damaged") || len(r.Repaired) != 0 {
		t.Errorf("Repair over a damaged store: repaired %v, %v; want nothing repaired and an error saying the store is damaged", r.Repaired, r.RepairErr)
	}
	if c, _ := situate.Check(ctx, dir, store, opts); c.OK() {
		t.Error("Repair over a damaged store rebuilt the damaged arm")
	}

	noEmbedder := opts
	noEmbedder.Embedder = nil
	r, err = situate.Repair(ctx, dir, store, noEmbedder)
	if err != nil {
		t.Fatal(err)
	}
	if r.RepairErr == nil || !strings.Contains(r.RepairErr.Error(), "no embedder") || !strings.Contains(r.RepairErr.Error(), "vectors") {
		t.Errorf("Repair of a damaged vector arm without an embedder: %v, want an error naming the vectors and the missing embedder", r.RepairErr)
	}
	for _, a := range r.Arms {
		if a.Name == "bm25" && !a.OK() {
			t.Errorf("the bm25 arm was not repaired beside the vector arm: %+v", a)
		}
	}
}
