package vector

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func smallIndex(t *testing.T, dir string) {
	t.Helper()
	ix, err := Open(dir, Options{Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for g := range 2 {
		var items []Item
		for i := range 5 {
			items = append(items, Item{ID: fmt.Sprintf("g%d#%d", g, i), Vector: gaussian(rand.New(rand.NewPCG(uint64(g), uint64(i))), 8)})
		}
		if err := ix.Replace(fmt.Sprint("g", g), items); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEveryByteChecked flips every byte of a segment and of the manifest,
// one at a time: every open fails with ErrCorrupt naming the file, never
// with wrong scores. Truncation and deletion too.
func TestEveryByteChecked(t *testing.T) {
	dir := t.TempDir()
	smallIndex(t, dir)
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.vec"))
	if len(segs) != 2 {
		t.Fatalf("%d segments", len(segs))
	}
	files := []string{filepath.Join(dir, manifestName), segs[0]}
	flips := 0
	for _, path := range files {
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, open func() error) {
			t.Helper()
			err := open()
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Fatalf("%s of %s: %v; want ErrCorrupt naming the file", what, path, err)
			}
		}
		ro := func() error {
			ix, err := OpenReadOnly(dir, Options{})
			if err == nil {
				ix.Close()
			}
			return err
		}
		step := 1
		if testing.Short() {
			step = 7
		}
		for i := 0; i < len(orig); i += step {
			b := append([]byte(nil), orig...)
			b[i] ^= 1 << (i % 8)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("byte %d flipped", i), ro)
			flips++
		}
		for _, n := range []int{0, len(orig) / 2, len(orig) - 1} {
			os.WriteFile(path, orig[:n], 0o644)
			check(fmt.Sprintf("truncated to %d bytes", n), ro)
			check(fmt.Sprintf("truncated to %d bytes (writer)", n), func() error {
				ix, err := Open(dir, Options{})
				if err == nil {
					ix.Close()
				}
				return err
			})
			st, err := Verify(dir)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for _, f := range st {
				if f.Err != nil {
					bad++
					if f.Path != path || !errors.Is(f.Err, ErrCorrupt) {
						t.Fatalf("Verify: %s: %v", f.Path, f.Err)
					}
				}
			}
			if bad != 1 {
				t.Fatalf("Verify after truncating %s: %d bad files: %+v", path, bad, st)
			}
		}
		if path != files[0] {
			os.Remove(path)
			check("deleted", ro)
			check("deleted (writer)", func() error {
				ix, err := Open(dir, Options{})
				if err == nil {
					ix.Close()
				}
				return err
			})
		}
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := OpenReadOnly(dir, Options{})
	if err != nil {
		t.Fatalf("restored index: %v", err)
	}
	defer ix.Close()
	if ix.Len() != 10 {
		t.Fatalf("restored index holds %d vectors", ix.Len())
	}
	t.Logf("%d single-byte flips over %d files, each detected", flips, len(files))
	// A lost manifest beside its segments is damage, not an empty index.
	mf, _ := os.ReadFile(files[0])
	os.Remove(files[0])
	for name, open := range map[string]func(string, Options) (*Index, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		if _, err := open(dir, Options{}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), files[0]) {
			t.Fatalf("%s without a manifest: %v; want ErrCorrupt naming it", name, err)
		}
	}
	os.WriteFile(files[0], mf, 0o644)
	ix.Close()
	// Reset removes it; Open then creates a new, empty index.
	os.Remove(segs[0])
	if err := Reset(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after Reset: %v", err)
	}
	ix, err = Open(dir, Options{Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 0 {
		t.Fatalf("after Reset: %d vectors", ix.Len())
	}
}

// TestDamagedManifestNamesNoGarbage: a manifest whose file name was
// changed (with a valid checksum, as a version 1 manifest has none) is
// refused for the name, not opened as a path.
func TestDamagedManifestNamesNoGarbage(t *testing.T) {
	dir := t.TempDir()
	m := manifest{Version: 1, Dim: 8, Metric: MetricCosine, Next: 2, Segments: []manifestSegment{{File: "../../etc/passwd", Rows: 1}}}
	b, _ := json.Marshal(m)
	os.WriteFile(filepath.Join(dir, manifestName), b, 0o644)
	_, err := OpenReadOnly(dir, Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "bad file name") {
		t.Fatalf("manifest naming ../../etc/passwd: %v", err)
	}
}

// TestReadsVersion2 reads a version 2 segment (no payload checksum) under
// a version 1 manifest (plain JSON), and a writer's Open rewrites both.
func TestReadsVersion2(t *testing.T) {
	dir := t.TempDir()
	smallIndex(t, dir)
	want := func() []Result {
		ix, err := OpenReadOnly(dir, Options{QuantizeAbove: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		r, _ := ix.Search(gaussian(rand.New(rand.NewPCG(9, 9)), 8), 10, nil)
		return r
	}
	before := want()
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.vec"))
	for _, p := range segs {
		b, _ := os.ReadFile(p)
		binary.LittleEndian.PutUint32(b[8:], 2)
		binary.LittleEndian.PutUint32(b[60:], crc32.Checksum(b[:60], castagnoli))
		binary.LittleEndian.PutUint32(b[64:], 0)
		os.WriteFile(p, b, 0o644)
	}
	mp := filepath.Join(dir, manifestName)
	raw, _ := os.ReadFile(mp)
	var m manifest
	if err := json.Unmarshal(raw[len(manifestMagic):len(raw)-4], &m); err != nil {
		t.Fatal(err)
	}
	m.Version = 1
	js, _ := json.Marshal(m)
	os.WriteFile(mp, js, 0o644)
	if got := want(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("old format read differently:\n%v\n%v", got, before)
	}
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	raw, _ = os.ReadFile(mp)
	if !strings.HasPrefix(string(raw), manifestMagic) {
		t.Fatalf("manifest not rewritten: %.40q", raw)
	}
	segs, _ = filepath.Glob(filepath.Join(dir, "seg-*.vec"))
	for _, p := range segs {
		b, _ := os.ReadFile(p)
		if v := binary.LittleEndian.Uint32(b[8:]); v != segVersion {
			t.Fatalf("%s still version %d", p, v)
		}
	}
	if got := want(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("rewritten index reads differently:\n%v\n%v", got, before)
	}
}

// TestOpenReadOnlyBesideWriter opens readers over and over while a writer
// commits and merges: every open succeeds and sees each group whole.
func TestOpenReadOnlyBesideWriter(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{Dim: 8, MaxSegments: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	commits := 300
	if testing.Short() {
		commits = 60
	}
	var done atomic.Bool
	var opens, failures atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	q := gaussian(rand.New(rand.NewPCG(1, 1)), 8)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				ix, err := OpenReadOnly(dir, Options{})
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				opens.Add(1)
				res, err := ix.Search(q, 1000, nil)
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
				ver := map[string]string{}
				n := map[string]int{}
				for _, h := range res {
					v := strings.SplitN(h.ID, "/", 2)[1]
					if pv, ok := ver[h.Group]; ok && pv != v {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, fmt.Errorf("group %s seen at versions %s and %s", h.Group, pv, v))
					}
					ver[h.Group] = v
					n[h.Group]++
				}
				for g, c := range n {
					var v int
					fmt.Sscan(ver[g], &v)
					if c != v%3+1 {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, fmt.Errorf("group %s version %d has %d vectors", g, v, c))
					}
				}
				ix.Close()
				time.Sleep(200 * time.Microsecond)
			}
		}()
	}
	for v := range commits {
		g := fmt.Sprintf("g%d", v%7)
		items := make([]Item, v%3+1)
		for i := range items {
			items[i] = Item{ID: fmt.Sprintf("%s-%d/%d", g, i, v), Vector: gaussian(rand.New(rand.NewPCG(uint64(v), uint64(i))), 8)}
		}
		if err := w.Replace(g, items); err != nil {
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
	t.Logf("%d read-only opens beside %d commits, no failure", opens.Load(), commits)
}

func TestWriterLockWait(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir, Options{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{LockWait: 100 * time.Millisecond})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second writer: %v, want ErrLocked naming pid %d", err, os.Getpid())
	}
	// Readers are not refused.
	r, err := OpenReadOnly(dir, Options{})
	if err != nil {
		t.Fatalf("reader beside a writer: %v", err)
	}
	if err := r.Replace("g", nil); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write through a reader: %v", err)
	}
	r.Close()
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

// TestWriteErrorsNameTheFileOnce: a segment or manifest that cannot be
// written fails with an error that names its temporary file once (the os
// package's errors name it already), and the index keeps what it had.
func TestWriteErrorsNameTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir, Options{Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	item := func(id string) []Item {
		return []Item{{ID: id, Vector: gaussian(rand.New(rand.NewPCG(1, uint64(len(id)))), 8)}}
	}
	if err := ix.Replace("a", item("a#0")); err != nil {
		t.Fatal(err)
	}
	// A directory where the next segment's or the manifest's temporary
	// file goes makes its open fail.
	for _, tmp := range []string{fmt.Sprintf("seg-%012d.vec.tmp", ix.next), manifestName + ".tmp"} {
		path := filepath.Join(dir, tmp)
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		err := ix.Replace("b", item("b#0"))
		if err == nil || strings.Count(err.Error(), path) != 1 {
			t.Errorf("with %s a directory: %v, want an error naming it once", tmp, err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if got := ix.Len(); got != 1 {
			t.Errorf("with %s a directory: %d vectors after the failed write, want 1", tmp, got)
		}
	}
}
