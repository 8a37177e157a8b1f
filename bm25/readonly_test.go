package bm25

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestOpenReadOnlyBesideWriter opens readers over and over while a writer
// commits and merges (segment files vanish under the readers): every open
// succeeds and sees whole groups of one committed version.
func TestOpenReadOnlyBesideWriter(t *testing.T) {
	dir := t.TempDir()
	w := openT(t, dir, Options{Analyzer: "english", MergeFactor: 2})
	defer w.Close()
	commits := 300
	if testing.Short() {
		commits = 60
	}
	retries0 := readRetried.Load()
	var done atomic.Bool
	var opens, failures atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				ix, err := OpenReadOnly(dir, Options{Analyzer: "english", MergeFactor: 2})
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				opens.Add(1)
				res, err := ix.Search(Query{Text: "common", K: 1000})
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
				// Every doc of a group carries the group's version: a group
				// seen with two versions is a torn commit.
				ver := map[string]string{}
				for _, h := range res {
					v := strings.SplitN(h.ID, "/", 2)[1]
					if pv, ok := ver[h.Group]; ok && pv != v {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, fmt.Errorf("group %s seen at versions %s and %s", h.Group, pv, v))
					}
					ver[h.Group] = v
				}
				if err := ix.Close(); err != nil {
					failures.Add(1)
				}
				time.Sleep(200 * time.Microsecond) // leave the writer some CPU
			}
		}()
	}
	for v := 0; v < commits; v++ {
		g := fmt.Sprintf("g%d", v%7)
		docs := make([]Doc, v%3+1)
		for i := range docs {
			docs[i] = Doc{ID: fmt.Sprintf("%s-%d/%d", g, i, v), Fields: map[string]string{"text": fmt.Sprintf("common v%d", v)}}
		}
		if err := w.Replace(g, docs); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d reader failures of %d opens; first: %v", n, opens.Load(), firstErr.Load())
	}
	if opens.Load() < 10 {
		t.Fatalf("only %d reader opens", opens.Load())
	}
	t.Logf("%d read-only opens beside %d commits, %d restarted on a vanished segment, no failure",
		opens.Load(), commits, readRetried.Load()-retries0)
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	ix, err := OpenReadOnly(dir, Options{})
	if err != nil {
		t.Fatalf("read-only open of a missing index: %v", err)
	}
	if st := ix.Stats(); st.Docs != 0 {
		t.Fatalf("missing index has %d docs", st.Docs)
	}
	if err := ix.Replace("g", []Doc{{ID: "a", Fields: map[string]string{"text": "x"}}}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write to a read-only index: %v, want ErrReadOnly", err)
	}
	ix.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only open created %s (%v)", dir, err)
	}
}

// TestWriterLockWait: a second writer waits LockWait, then fails naming
// the process that holds the lock; once released it gets in.
func TestWriterLockWait(t *testing.T) {
	dir := t.TempDir()
	a := openT(t, dir, Options{})
	start := time.Now()
	_, err := Open(dir, Options{LockWait: 150 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second writer: %v, want ErrLocked", err)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Fatalf("second writer gave up after %v", waited)
	}
	if want := fmt.Sprintf("pid %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not name the holder (%s)", err, want)
	}
	t.Log(err)
	go func() {
		time.Sleep(100 * time.Millisecond)
		a.Close()
	}()
	b, err := Open(dir, Options{LockWait: 5 * time.Second})
	if err != nil {
		t.Fatalf("writer after the holder closed: %v", err)
	}
	b.Close()
}

// TestMissingSegment: a segment named by the manifest that is gone is
// ErrCorrupt naming the file, for writers, readers and Verify.
func TestMissingSegment(t *testing.T) {
	dir := t.TempDir()
	ix := openT(t, dir, Options{Analyzer: "english"})
	for i := 0; i < 3; i++ {
		if err := ix.Replace(fmt.Sprint("g", i), []Doc{{ID: fmt.Sprint(i), Fields: map[string]string{"text": "hello"}}}); err != nil {
			t.Fatal(err)
		}
	}
	ix.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.seg"))
	if len(segs) == 0 {
		t.Fatal("no segment")
	}
	if err := os.Remove(segs[0]); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func(string, Options) (*Index, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		_, err := open(dir, Options{Analyzer: "english"})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), segs[0]) {
			t.Fatalf("%s with a missing segment: %v; want ErrCorrupt naming %s", name, err, segs[0])
		}
	}
	files, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, f := range files {
		if f.Err != nil {
			bad++
			if f.Path != segs[0] || !errors.Is(f.Err, ErrCorrupt) {
				t.Fatalf("Verify: %s: %v", f.Path, f.Err)
			}
		}
	}
	if bad != 1 || len(files) != 1+len(segs) {
		t.Fatalf("Verify: %d files, %d bad: %+v", len(files), bad, files)
	}
	// Reset empties it; the next Open starts from no documents.
	if err := Reset(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	ix = openT(t, dir, Options{Analyzer: "english"})
	defer ix.Close()
	if st := ix.Stats(); st.Docs != 0 {
		t.Fatalf("after Reset: %d docs", st.Docs)
	}
	if err := ix.Replace("g", []Doc{{ID: "x", Fields: map[string]string{"text": "hello"}}}); err != nil {
		t.Fatal(err)
	}
}
