package situate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

// smallDisk mounts a tmpfs of size bytes (root only; skipped where mount
// is not allowed unless SITUATE_REQUIRE_ROFS=1).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	os.Mkdir(dir, 0o755)
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		if os.Getenv("SITUATE_REQUIRE_ROFS") == "1" {
			t.Fatalf("mount tmpfs: %v: %s", err, out)
		}
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestIndexDiskFull indexes into a 1 MB file system until it is full: the
// run stops at the first commit that fails (not once per document), its
// error matches syscall.ENOSPC, the counts it reports are what the store
// holds, the last commit stays readable and sound, and once space is
// freed a rerun finishes the job.
func TestIndexDiskFull(t *testing.T) {
	ctx := context.Background()
	dir := smallDisk(t, "1m")
	store, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := situate.DefaultOptions()
	eng, err := situate.Open(ctx, dir, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	stamps := map[string]string{}
	for i := range 400 {
		id := fmt.Sprintf("doc%03d.txt", i)
		files[id] = strings.Repeat(fmt.Sprintf("Entity%03d harbour ledger revenue grew by %d percent in the quarter. ", i, i), 20)
		stamps[id] = fmt.Sprint(i)
	}
	var read []string
	res, err := eng.Index(ctx, stampSource(files, stamps, &read), situate.IndexOptions{})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Index on a full disk: %v (result %+v); want an error matching ENOSPC", err, res)
	}
	t.Logf("stopped: %v", err)
	eng.Close()
	docs, derr := store.Documents(ctx)
	if derr != nil {
		t.Fatal(derr)
	}
	if res.Added != len(docs) || res.Added == 0 {
		t.Fatalf("Index reported %d added; the store holds %d documents", res.Added, len(docs))
	}
	if res.Failed > opts.ParallelDocuments+situate.DefaultCommitDocuments {
		t.Errorf("%d documents failed: the run went on after the disk was full", res.Failed)
	}
	t.Logf("%d added (the store holds %d), %d failed, %d left for a rerun", res.Added, len(docs), res.Failed, len(files)-res.Added-res.Failed)
	// The last commit is readable and sound.
	r, err := situate.Check(ctx, dir, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range r.Arms {
		if a.Damaged() || len(a.Extra) > 0 {
			t.Errorf("after the full disk, arm %s: %+v", a.Name, a)
		}
	}
	// A reader (no lock, no writes) searches the last commit on the full
	// disk.
	ro := opts
	ro.OpenMode = situate.OpenReader
	reader, err := situate.Open(ctx, dir, store, ro)
	if err != nil {
		t.Fatalf("read-only open after the full disk: %v", err)
	}
	hits, err := reader.Search(ctx, situate.Query{Text: "Entity001 harbour", K: 3})
	reader.Close()
	if err != nil {
		t.Fatalf("search after the full disk: %v", err)
	}
	inStore := map[string]bool{}
	for _, d := range docs {
		inStore[d.ID] = true
	}
	for _, h := range hits {
		if !inStore[h.DocID] {
			t.Fatalf("search after the full disk returned %s, which the store does not hold", h.DocID)
		}
	}
	t.Logf("read-only search of the last commit: %d hits (documents stored but not yet indexed wait for the next writer: %d pending)", len(hits), len(r.Pending))
	// Space back: a rerun finishes.
	if out, err := exec.Command("mount", "-o", "remount,size=64m", dir).CombinedOutput(); err != nil {
		t.Fatalf("grow the tmpfs: %v: %s", err, out)
	}
	eng, err = situate.Open(ctx, dir, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	read = nil
	res2, err := eng.Index(ctx, stampSource(files, stamps, &read), situate.IndexOptions{})
	if err != nil {
		t.Fatalf("rerun with space: %v", err)
	}
	if res.Added+res2.Added != len(files) {
		t.Fatalf("%d + %d added, want %d", res.Added, res2.Added, len(files))
	}
	r, err = situate.Check(ctx, dir, store, opts)
	if err != nil || !r.OK() {
		t.Fatalf("check after the rerun: %v %+v", err, r)
	}
}

// TestIndexCompactionDiskFull fills the disk during the compaction that
// ends an index run (Engine.Index compacts after a run that wrote a tenth
// or more of the chunks): the run's documents are committed and found by
// search, the error says so and matches ENOSPC, and the store and indexes
// check sound, with no file left behind. It tries disk sizes above what a
// first run left, in steps, until one is large enough for the run's
// commits and too small for the compaction's copy of an arm.
func TestIndexCompactionDiskFull(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	stamps := map[string]string{}
	add := func(from, to int) {
		for i := from; i < to; i++ {
			id := fmt.Sprintf("doc%03d.txt", i)
			files[id] = strings.Repeat(fmt.Sprintf("Entity%03d harbour ledger revenue grew by %d percent in quarter %d. ", i, i, i%4), 12)
			stamps[id] = fmt.Sprint(i)
		}
	}
	opts := situate.DefaultOptions()
	index := func(dir string) (situate.IndexResult, error) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		store, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
		if err != nil {
			return situate.IndexResult{}, errOpen{err}
		}
		defer store.Close()
		eng, err := situate.Open(ctx, dir, store, opts)
		if err != nil {
			return situate.IndexResult{}, errOpen{err}
		}
		defer eng.Close()
		var read []string
		return eng.Index(ctx, stampSource(files, stamps, &read), situate.IndexOptions{})
	}
	dirSize := func(dir string) int64 {
		var n int64
		filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				n += (fi.Size() + 4095) &^ 4095 // tmpfs counts pages
			}
			return nil
		})
		return n
	}

	// The first run, on a roomy disk.
	first := filepath.Join(smallDisk(t, "64m"), "store")
	add(0, 200)
	if res, err := index(first); err != nil || !res.Compacted {
		t.Fatalf("first run: %v, compacted %v", err, res.Compacted)
	}
	used := dirSize(first)
	var largestArm int64
	arms, _ := filepath.Glob(filepath.Join(first, "bm25*"))
	for _, a := range arms {
		largestArm = max(largestArm, dirSize(a))
	}
	add(200, 300) // a third of the store: the second run compacts

	step := max(largestArm/4, 16<<10)
	for free := step; free <= 4*largestArm+(8<<20); free += step {
		disk := smallDisk(t, fmt.Sprint(used+free))
		dir := filepath.Join(disk, "store")
		if out, err := exec.Command("cp", "-a", first, dir).CombinedOutput(); err != nil {
			t.Fatalf("copy the store: %v: %s", err, out)
		}
		res, err := index(dir)
		if errors.As(err, new(errOpen)) {
			continue // too small for SQLite to open the store (its shared-memory file)
		}
		switch {
		case err == nil:
			t.Fatalf("with %d bytes free the run and its compaction fit, and no smaller size made only the compaction fail (steps of %d bytes)", free, step)
		case !strings.Contains(err.Error(), "merging the index segments failed"):
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("with %d bytes free: %v; want ENOSPC", free, err)
			}
			continue // too small for the run's own commits
		}
		t.Logf("with %d bytes free: %v", free, err)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("the compaction's error does not match ENOSPC: %v", err)
		}
		if res.Added != 100 || res.Failed != 0 || res.Compacted {
			t.Fatalf("result %+v; want 100 added, none failed, not compacted", res)
		}
		// The segment file the compaction could not finish is gone at once,
		// not when the next writer opens: it held the space a retry needs.
		atFailure := segmentFiles(t, dir)
		store, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		r, err := situate.Check(ctx, dir, store, opts)
		if err != nil || !r.OK() {
			t.Fatalf("check after the failed compaction: %v %+v", err, r)
		}
		if r.Documents != 300 {
			t.Fatalf("the store holds %d documents, want 300", r.Documents)
		}
		eng, err := situate.Open(ctx, dir, store, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		if opened := segmentFiles(t, dir); !slices.Equal(opened, atFailure) {
			t.Fatalf("segment files after the failure: %v; a writer's open left %v (it removes files no manifest lists)", atFailure, opened)
		}
		hits, err := eng.Search(ctx, situate.Query{Text: "Entity250 harbour", K: 1})
		if err != nil || len(hits) == 0 || hits[0].DocID != "doc250.txt" {
			t.Fatalf("search for a document of the second run: %v %v", hits, err)
		}
		return
	}
	t.Fatal("no disk size made the compaction fail")
}

// errOpen is a store or engine that could not open.
type errOpen struct{ error }
