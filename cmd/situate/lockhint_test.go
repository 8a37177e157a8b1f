//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestIndexBesideServeSaysUseTheAPI: a newcomer runs 'situate serve' in one
// terminal and 'situate index' in another. serve holds the store's writer
// lock while it runs, so index fails after its wait; the message names the
// holder and says what to do instead (the API), not only "wait for it to
// finish", which never happens with a server.
func TestIndexBesideServeSaysUseTheAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("waits the writer lock's 5 s")
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\nThe ferry leaves at noon.\n"), 0o644)
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, docs)
	// Hold the lock as a running 'situate serve' records itself.
	f, err := os.OpenFile(filepath.Join(store, "LOCK"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f.Truncate(0)
	f.WriteString("pid=4242\ncommand=\"/usr/local/bin/situate serve --store " + store + "\"\n")
	code, _, errOut := run(t, dir, "index", "--store", store, docs)
	if code == exitOK || !strings.Contains(errOut, "pid 4242") || !strings.Contains(errOut, "PUT /v1/documents/ID") {
		t.Errorf("index beside serve: exit %d:\n%s", code, errOut)
	}
	// search takes no lock.
	if out, _ := mustRun(t, dir, "search", "--store", store, "ferry"); !strings.Contains(out, "a.md") {
		t.Errorf("search beside serve:\n%s", out)
	}
}
