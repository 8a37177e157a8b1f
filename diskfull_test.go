package situate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	ro.ReadOnly = true
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
