package bm25

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/situate/situate/internal/testskip"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func openT(t testing.TB, dir string, opts Options) *Index {
	t.Helper()
	ix, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestPersistRoundTrip indexes, replaces and deletes on disk, closes, reopens
// and checks that every search and statistic is unchanged.
func TestPersistRoundTrip(t *testing.T) {
	docs := readCACM(t)
	topics := readTopics(t)
	dir := t.TempDir()
	opts := Options{K1: 0.9, B: 0.4, Analyzer: "english", MergeFactor: 3}
	ix := openT(t, dir, opts)
	for i := 0; i < len(docs); i += 400 {
		var b Batch
		for _, d := range docs[i:min(i+400, len(docs))] {
			b.Replace(d.id, []Doc{{ID: d.id, Fields: map[string]string{"text": d.text}, Attrs: map[string]string{"n": d.id[5:]}}})
		}
		if err := ix.Apply(&b); err != nil {
			t.Fatal(err)
		}
	}
	// Delete every 7th doc, in 10 commits.
	for c := 0; c < 10; c++ {
		var b Batch
		for i := 7 * c; i < len(docs); i += 70 {
			b.Delete(docs[i].id)
		}
		if err := ix.Apply(&b); err != nil {
			t.Fatal(err)
		}
	}
	before := map[string][]Result{}
	for _, tp := range topics {
		r, err := ix.Search(Query{Text: tp.text, K: 50})
		if err != nil {
			t.Fatal(err)
		}
		before[tp.id] = r
	}
	st := ix.Stats()
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Search(Query{Text: "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("search after Close: %v, want ErrClosed", err)
	}

	ix = openT(t, dir, opts)
	defer ix.Close()
	st2 := ix.Stats()
	if fmt.Sprint(st) != fmt.Sprint(st2) {
		t.Fatalf("stats changed on reopen:\n%+v\n%+v", st, st2)
	}
	for _, tp := range topics {
		r, err := ix.Search(Query{Text: tp.text, K: 50})
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, "reopened topic "+tp.id, r, before[tp.id])
	}
	// Attributes survive.
	r, err := ix.Search(Query{Text: topics[0].text, K: 1, Filter: &Filter{Accept: func(id, g string, a map[string]string) bool {
		return a["n"] == id[5:]
	}}})
	if err != nil || len(r) != 1 {
		t.Fatalf("filter on reopened attrs: %v %v", r, err)
	}
	// A second Open of the same directory is refused while this one is open.
	if ix2, err := Open(dir, opts); err == nil {
		ix2.Close()
		t.Fatal("second Open of a locked directory succeeded")
	}
}

// TestCorruptionDetected damages files and expects Open to fail with a clear
// error rather than serve wrong results.
func TestCorruptionDetected(t *testing.T) {
	dir := t.TempDir()
	ix := openT(t, dir, Options{Analyzer: "english"})
	if err := ix.Replace("g", []Doc{{ID: "a", Fields: map[string]string{"text": "hello corrupted world"}}}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.seg"))
	if len(segs) != 1 {
		t.Fatalf("%d segment files", len(segs))
	}
	data, _ := os.ReadFile(segs[0])
	for _, tc := range []struct {
		name string
		file string
		mut  func([]byte) []byte
	}{
		{"segment byte flipped", segs[0], func(b []byte) []byte { b = append([]byte(nil), b...); b[len(b)/2] ^= 0x40; return b }},
		{"segment truncated", segs[0], func(b []byte) []byte { return b[:len(b)-5] }},
		{"manifest truncated", filepath.Join(dir, manifestName), func(b []byte) []byte { return b[:len(b)-3] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(tc.file, orig, 0o644)
			if err := os.WriteFile(tc.file, tc.mut(orig), 0o644); err != nil {
				t.Fatal(err)
			}
			ix, err := Open(dir, Options{Analyzer: "english"})
			if err == nil {
				ix.Close()
				t.Fatal("Open succeeded on a damaged index")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			t.Log(err)
		})
	}
	_ = data
	ix = openT(t, dir, Options{Analyzer: "english"})
	defer ix.Close()
	if r, _ := ix.Search(Query{Text: "corrupted"}); len(r) != 1 {
		t.Fatalf("restored index: %v", r)
	}
}

const crashEnv = "BM25_CRASH_CHILD_DIR"

// crashChild is the writer process TestCrashRecovery kills: it commits
// numbered versions of groups forever, printing each commit once durable.
// Every doc of version v of group g contains the word "vN" with N = v and
// the group has v%5+1 docs, so a reader can tell a whole version from a
// torn one.
func crashChild(dir string) {
	ix, err := Open(dir, Options{Analyzer: "english", MergeFactor: 3})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	start, _ := strconv.Atoi(os.Getenv("BM25_CRASH_START"))
	rng := rand.New(rand.NewSource(int64(start)))
	filler := strings.Repeat("lorem ipsum dolor sit amet consectetur ", 200)
	w := bufio.NewWriter(os.Stdout)
	for v := start; ; v++ {
		g := fmt.Sprintf("g%d", v%13)
		if rng.Intn(10) == 0 {
			if err := ix.Delete(g); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
			fmt.Fprintf(w, "delete %s %d\n", g, v)
		} else {
			n := v%5 + 1
			docs := make([]Doc, n)
			for i := range docs {
				docs[i] = Doc{ID: fmt.Sprintf("%s-%d", g, i), Fields: map[string]string{"text": fmt.Sprintf("v%d %s %s", v, g, filler)}}
			}
			if err := ix.Replace(g, docs); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
			fmt.Fprintf(w, "replace %s %d\n", g, v)
		}
		w.Flush()
		// Now and then a compaction, which a kill may interrupt too: it
		// changes no group, so the checks after the kill hold as they are.
		if rng.Intn(6) == 0 {
			if err := ix.Compact(); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
	}
}

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashEnv); dir != "" {
		crashChild(dir)
		return
	}
	if dir := os.Getenv(rssEnv); dir != "" {
		rssChild(dir)
		return
	}
	code := testskip.Run(m)
	if benchIndexDir != "" {
		os.RemoveAll(benchIndexDir)
	}
	os.Exit(code)
}

// TestCrashRecovery SIGKILLs a writer process (which also compacts now and
// then) at random moments, reopens
// the index and checks it is the last committed state (or the one commit in
// flight), with every group whole.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(7))
	type state struct {
		v       int
		deleted bool
	}
	committed := map[string]state{} // last durable op per group
	next := 1
	for round := 0; round < 6; round++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir, fmt.Sprintf("BM25_CRASH_START=%d", next))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it commit a random number of times, then kill it mid-write.
		want := 20 + rng.Intn(60)
		sc := bufio.NewScanner(out)
		lines := 0
		deadline := time.After(60 * time.Second)
		done := make(chan struct{})
		var mu sync.Mutex
		var childErr string
		go func() {
			defer close(done)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				mu.Lock()
				if len(f) == 3 && (f[0] == "replace" || f[0] == "delete") {
					v, _ := strconv.Atoi(f[2])
					committed[f[1]] = state{v: v, deleted: f[0] == "delete"}
					if v >= next {
						next = v + 1
					}
					lines++
				} else {
					childErr = sc.Text()
				}
				mu.Unlock()
			}
		}()
		for {
			mu.Lock()
			n, ce := lines, childErr
			mu.Unlock()
			if ce != "" {
				t.Fatalf("child: %s", ce)
			}
			if n >= want {
				break
			}
			select {
			case <-deadline:
				t.Fatal("child made no progress")
			case <-time.After(time.Millisecond):
			}
		}
		time.Sleep(time.Duration(rng.Intn(3000)) * time.Microsecond)
		cmd.Process.Kill()
		<-done
		cmd.Wait()
		inflight := next // the op the child may have been committing

		filesAtKill, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
		ix, err := Open(dir, Options{Analyzer: "english", MergeFactor: 3})
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		total := 0
		for gi := 0; gi < 13; gi++ {
			g := fmt.Sprintf("g%d", gi)
			res, err := ix.Search(Query{Text: g, K: 100})
			if err != nil {
				t.Fatal(err)
			}
			total += len(res)
			st := committed[g]
			if len(res) == 0 {
				if st.v != 0 && !st.deleted && inflight%13 != gi {
					t.Fatalf("round %d: group %s lost (last commit v%d)", round, g, st.v)
				}
				if inflight%13 == gi {
					committed[g] = state{v: inflight, deleted: true}
				}
				continue
			}
			// All docs must be of one version, whole.
			vres, err := ix.Search(Query{Text: fmt.Sprintf("v%d", st.v), K: 100, Filter: &Filter{Groups: map[string]bool{g: true}}})
			if err != nil {
				t.Fatal(err)
			}
			v := st.v
			if len(vres) != len(res) || st.deleted {
				// Only the in-flight op may be visible instead.
				if inflight%13 != gi {
					t.Fatalf("round %d: group %s has %d docs, %d of the last committed version v%d", round, g, len(res), len(vres), st.v)
				}
				v = inflight
				vres, _ = ix.Search(Query{Text: fmt.Sprintf("v%d", v), K: 100, Filter: &Filter{Groups: map[string]bool{g: true}}})
				if len(vres) != len(res) {
					t.Fatalf("round %d: group %s is torn: %d docs, %d of version v%d", round, g, len(res), len(vres), v)
				}
				committed[g] = state{v: v}
			}
			if len(res) != v%5+1 {
				t.Fatalf("round %d: group %s version v%d has %d docs, want %d", round, g, v, len(res), v%5+1)
			}
		}
		st := ix.Stats()
		if st.Docs != total {
			t.Fatalf("round %d: stats say %d docs, groups hold %d", round, st.Docs, total)
		}
		// A merge or compaction cut short leaves its new segment file
		// unlisted; opening removes it.
		if segs, _ := filepath.Glob(filepath.Join(dir, "*.seg")); len(segs) != st.Segments {
			t.Fatalf("round %d: %d segment files, the manifest lists %d", round, len(segs), st.Segments)
		}
		ix.Close()
		leftovers, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
		if len(leftovers) != 0 {
			t.Fatalf("round %d: leftover files %v", round, leftovers)
		}
		t.Logf("round %d: killed after %d commits, reopened with %d docs; %d segment files at the kill, %d listed", round, lines, total, len(filesAtKill), st.Segments)
		next++
	}
}

// TestSnapshotIsolation runs searches while a writer commits: every search
// must see one whole version of a group, never a mix or a gap.
func TestSnapshotIsolation(t *testing.T) {
	for _, persistent := range []bool{false, true} {
		t.Run(fmt.Sprintf("persistent=%v", persistent), func(t *testing.T) {
			opts := Options{Analyzer: "english", MergeFactor: 3}
			var ix *Index
			if persistent {
				ix = openT(t, t.TempDir(), opts)
			} else {
				var err error
				if ix, err = New(opts); err != nil {
					t.Fatal(err)
				}
			}
			defer ix.Close()
			version := func(v int) []Doc {
				docs := make([]Doc, v%7+1)
				for i := range docs {
					docs[i] = Doc{ID: fmt.Sprintf("doc-%d", i), Attrs: map[string]string{"v": strconv.Itoa(v)},
						Fields: map[string]string{"text": fmt.Sprintf("alpha beta version%d", v)}}
				}
				return docs
			}
			if err := ix.Replace("g", version(0)); err != nil {
				t.Fatal(err)
			}
			var stop atomic.Bool
			var wg sync.WaitGroup
			var searches atomic.Int64
			errc := make(chan error, 4)
			for r := 0; r < 3; r++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !stop.Load() {
						var seen []string
						res, err := ix.Search(Query{Text: "alpha", K: 100, Filter: &Filter{Accept: func(id, g string, a map[string]string) bool {
							seen = append(seen, a["v"])
							return true
						}}})
						if err != nil {
							errc <- err
							return
						}
						v, _ := strconv.Atoi(seen[0])
						for _, s := range seen {
							if s != seen[0] {
								errc <- fmt.Errorf("search saw versions %v", seen)
								return
							}
						}
						if len(res) != v%7+1 {
							errc <- fmt.Errorf("version %d: %d results, want %d", v, len(res), v%7+1)
							return
						}
						searches.Add(1)
					}
				}()
			}
			commits := 200
			if persistent {
				commits = 60 // each commit fsyncs
				if testing.Short() {
					commits = 15
				}
			}
			for v := 1; v <= commits; v++ {
				var b Batch
				b.Replace("g", version(v))
				b.Replace(fmt.Sprintf("other%d", v%5), []Doc{{ID: fmt.Sprintf("o%d", v%5), Fields: map[string]string{"text": "beta gamma"}}})
				if err := ix.Apply(&b); err != nil {
					t.Fatal(err)
				}
			}
			stop.Store(true)
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Fatal(err)
			}
			t.Logf("%d searches during %d commits, %d segments", searches.Load(), commits, ix.Stats().Segments)
		})
	}
}
