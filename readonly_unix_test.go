//go:build unix

package situate_test

import (
	"context"
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

// TestReadOnlyStore: a store nobody may write to (chmod -R a-w) can be
// searched, and the reader writes nothing. Root ignores permissions, so
// as root the search runs in a child process as user nobody.
func TestReadOnlyStore(t *testing.T) {
	ctx := context.Background()
	if dir := os.Getenv("SITUATE_TEST_READONLY_STORE"); dir != "" {
		searchReadOnlyStore(t, dir)
		return
	}
	ts := newTestStore(t)
	opts := situate.DefaultOptions()
	eng := ts.open(opts)
	for _, id := range []string{"a", "b"} {
		if _, err := eng.Put(ctx, doc(id, "orchard "+id)); err != nil {
			t.Fatal(err)
		}
	}
	eng.Close()
	ts.store.Close()
	before := treeState(t, ts.dir)
	chmodTree(t, ts.dir, false)
	t.Cleanup(func() { chmodTree(t, ts.dir, true) })
	if os.Geteuid() != 0 {
		searchReadOnlyStore(t, ts.dir)
	} else {
		// nobody must reach the directory: open up its parents below the
		// temporary directory, and skip when one above it is closed.
		for d := filepath.Dir(ts.dir); d != "/" && d != "."; d = filepath.Dir(d) {
			if strings.HasPrefix(d+"/", filepath.Clean(os.TempDir())+"/") && d != filepath.Clean(os.TempDir()) {
				if err := os.Chmod(d, 0o755); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
				t.Skipf("user nobody cannot reach %s: set TMPDIR to a directory others may traverse", d)
			}
		}
		// The test binary itself, where nobody may run it.
		bin := filepath.Join(ts.dir+"-bin", "situate.test")
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(filepath.Dir(bin)) })
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-test.run", "^TestReadOnlyStore$", "-test.v")
		cmd.Env = append(os.Environ(), "SITUATE_TEST_READONLY_STORE="+ts.dir, "GOCACHE=/nonexistent", "HOME=/nonexistent")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("search as nobody: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "searched a read-only store") {
			t.Fatalf("child did not search:\n%s", out)
		}
	}
	if after := treeState(t, ts.dir); after != before {
		t.Errorf("a read-only search changed the store:\nbefore %s\nafter  %s", before, after)
	}
}

func searchReadOnlyStore(t *testing.T, dir string) {
	ctx := context.Background()
	if f, err := os.Create(filepath.Join(dir, "probe")); err == nil {
		f.Close()
		t.Fatal("the store directory is writable: the test would prove nothing")
	}
	store, err := sqlite.OpenReadOnly(ctx, filepath.Join(dir, "situate.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := situate.DefaultOptions()
	opts.OpenMode = situate.OpenReader
	reader, err := situate.Open(ctx, dir, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if got := searchIDs(t, reader, situate.Query{Text: "orchard"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("read-only store: %v", got)
	}
	t.Log("searched a read-only store")
}

// treeState lists every file under dir with its size and modification time.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			fmt.Fprintf(&b, "%s:%d:%d ", strings.TrimPrefix(path, dir), info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}
