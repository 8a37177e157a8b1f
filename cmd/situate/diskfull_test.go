package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/situate/situate/sqlite"
)

// TestIndexFullDisk runs "situate index" into a 2 MB tmpfs (root only;
// skipped where mount is not allowed unless SITUATE_REQUIRE_ROFS=1): it
// fails at the first commit the full disk refuses, saying so, reports as
// added exactly what the database holds, leaves a store that search and
// check read, and once the disk has room a rerun ends equal to a clean
// build.
func TestIndexFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 300 documents three times (TestIndexDiskFull covers the library with -short)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	p := proc{bin: situateBin(t, dir)}
	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(corpus, 0o755)
	writeCorpus(t, corpus, 300)
	disk := filepath.Join(dir, "disk")
	os.Mkdir(disk, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk).CombinedOutput(); err != nil {
		if os.Getenv("SITUATE_REQUIRE_ROFS") == "1" {
			t.Fatalf("mount tmpfs: %v: %s", err, out)
		}
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", disk).Run() })
	store := filepath.Join(disk, "store")
	code, _, errOut := p.run("index", "--store", store, corpus)
	if code == 0 {
		t.Fatalf("index into a 2 MB disk succeeded:\n%s", errOut)
	}
	if !strings.Contains(errOut, "no space left on device") || !strings.Contains(errOut, "The disk is full") {
		t.Fatalf("index on a full disk does not say so:\n%s", errOut)
	}
	if n := strings.Count(errOut, "\nfail "); n > 64 {
		t.Errorf("%d documents failed: the run went on after the disk was full", n)
	}
	m := regexp.MustCompile(`indexed \d+ documents in [^:]+: (\d+) added`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no summary:\n%s", errOut)
	}
	added, _ := strconv.Atoi(m[1])
	s, err := sqlite.OpenReadOnly(context.Background(), filepath.Join(store, storeFile))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := s.Documents(context.Background())
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if added != len(docs) || added == 0 {
		t.Fatalf("index reported %d added; the database holds %d documents", added, len(docs))
	}
	t.Logf("full disk: %d added, the database holds %d", added, len(docs))
	if code, out, errOut := p.run("search", "--store", store, "-k", "3", "Entity0001 Works"); code != 0 {
		t.Fatalf("search after the full disk: exit %d\n%s\n%s", code, out, errOut)
	}
	if out, err := exec.Command("mount", "-o", "remount,size=64m", disk).CombinedOutput(); err != nil {
		t.Fatalf("grow the tmpfs: %v: %s", err, out)
	}
	p.mustRun(t, "index", "--store", store, corpus)
	clean := filepath.Join(dir, "clean")
	p.mustRun(t, "index", "--store", clean, corpus)
	if got, want := dumpStore(t, store)+armState(t, store), dumpStore(t, clean)+armState(t, clean); got != want {
		t.Fatalf("store after the full disk and a rerun differs from a clean build:\n%s", firstDiff(got, want))
	}
	p.mustRun(t, "check", "--store", store)
}
