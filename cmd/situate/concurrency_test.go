package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
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

// TestSearchProcessesBesideIndexing is the failure issue 14 reported (of two
// simultaneous "situate search" processes one failed; a search loop during
// "index" failed 209 of 210 times), as processes: 8 readers run "situate
// search --json" in a loop while a writer process after process indexes,
// re-indexes edited files (with --prune) and removes documents ("rm").
// Every search must exit 0, and every hit's text must be part of a version
// of its file that was written and indexed. -short runs it for 5 s, the
// full suite for 60 s; SITUATE_CONCURRENCY_SECONDS overrides both.
func TestSearchProcessesBesideIndexing(t *testing.T) {
	duration := 60 * time.Second
	if testing.Short() {
		duration = 5 * time.Second
	}
	if s := os.Getenv("SITUATE_CONCURRENCY_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SITUATE_CONCURRENCY_SECONDS=%q: %v", s, err)
		}
		duration = time.Duration(n) * time.Second
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	store := filepath.Join(dir, "store")
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("harbour lantern granary orchard quarry meadow tannery foundry ferry mill")
	const files = 16
	// versions[name] are every content written to corpus/name.
	var mu sync.Mutex
	versions := map[string][]string{}
	write := func(i, v int) {
		name := fmt.Sprintf("f%02d.md", i)
		var b strings.Builder
		fmt.Fprintf(&b, "# File %d version %d\n\n", i, v)
		for s := range 3 + (i*5+v*3)%12 {
			fmt.Fprintf(&b, "Paragraph %d of file %d, version %d, about the %s and the %s near the %s.\n\n",
				s, i, v, words[(i+s)%len(words)], words[(v+s)%len(words)], words[(i*v+s)%len(words)])
		}
		mu.Lock()
		versions[name] = append(versions[name], b.String())
		mu.Unlock()
		if err := os.WriteFile(filepath.Join(corpus, name), []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	for i := range files {
		write(i, 0)
	}
	situate := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SITUATE_TEST_AS_MAIN=1")
		return cmd
	}
	index := []string{"index", "--store", store, "--chunk-size", "48", "--chunk-overlap", "0", "--quiet", "--prune", corpus}
	if out, err := situate(index...).CombinedOutput(); err != nil {
		t.Fatalf("first index: %v\n%s", err, out)
	}

	var (
		searches, hits, failures, writes atomic.Int64
		wg                               sync.WaitGroup
	)
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
	}
	stop := make(chan struct{})
	// The writer: edit a few files and index with --prune, remove one
	// document with rm (and its file), bring it back.
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(7, 7))
		version := make([]int, files)
		for round := 0; ; round++ {
			select {
			case <-stop:
				return
			default:
			}
			for range 3 {
				i := rng.IntN(files)
				version[i]++
				write(i, version[i])
			}
			if out, err := situate(index...).CombinedOutput(); err != nil {
				fail("writer: index: %v\n%s", err, out)
				return
			}
			i := rng.IntN(files)
			name := fmt.Sprintf("f%02d.md", i)
			if err := os.Remove(filepath.Join(corpus, name)); err != nil {
				fail("writer: %v", err)
				return
			}
			if out, err := situate("rm", "--store", store, name).CombinedOutput(); err != nil {
				fail("writer: rm %s: %v\n%s", name, err, out)
				return
			}
			version[i]++
			write(i, version[i])
			writes.Add(1)
		}
	})
	deadline := time.Now().Add(duration)
	queries := []string{"harbour lantern", "granary", "quarry meadow foundry", "ferry mill paragraph"}
	var readers sync.WaitGroup
	for r := range 8 {
		readers.Go(func() {
			for i := r; time.Now().Before(deadline); i++ {
				cmd := situate("search", "--store", store, "--json", "-k", "10", queries[i%len(queries)])
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				searches.Add(1)
				if err != nil {
					fail("reader %d: search exited with %v\nstderr:\n%s", r, err, stderr.String())
					continue
				}
				var res jsonSearch
				if err := json.Unmarshal(out, &res); err != nil {
					fail("reader %d: output is not JSON: %v\n%s", r, err, out)
					continue
				}
				for _, h := range res.Results {
					hits.Add(1)
					text := strings.TrimSpace(h.Text)
					mu.Lock()
					ok := false
					for _, v := range versions[h.Doc] {
						ok = ok || strings.Contains(v, text)
					}
					mu.Unlock()
					if !ok || text == "" {
						fail("reader %d: hit %s#%d: %q is part of no version of the file", r, h.Doc, h.Chunk, text)
					}
				}
			}
		})
	}
	readers.Wait()
	close(stop)
	wg.Wait()
	t.Logf("%v: %d search processes by 8 readers, %d hits checked, %d failures; writer finished %d rounds (index, rm)",
		duration, searches.Load(), hits.Load(), failures.Load(), writes.Load())
	if searches.Load() < 8 {
		t.Errorf("only %d searches ran", searches.Load())
	}
}

// TestIndexAfterDatabaseDeleted: deleting situate.db and indexing into the
// same store directory gives a store whose searches work and find only
// what the new database holds (before, the old indexes' documents stayed
// and every search that matched one failed with "not found").
func TestIndexAfterDatabaseDeleted(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	copyTree(t, filepath.Join(repoRoot(t), "ingest", "testdata", "corpus", "en"), corpus)
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, "--quiet", corpus)
	before := search(t, dir, store, 10, "lighthouse railway tide gauge")
	if len(before.Results) == 0 {
		t.Fatal("no result before")
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(filepath.Join(store, "situate.db"+suffix))
	}
	// Index only one file this time.
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(corpus, entries[0].Name())
	mustRun(t, dir, "index", "--store", store, "--quiet", one)
	for _, q := range []string{"lighthouse railway tide gauge", before.Results[0].Text[:min(40, len(before.Results[0].Text))]} {
		res := search(t, dir, store, 10, q)
		for _, h := range res.Results {
			if h.Doc != entries[0].Name() {
				t.Errorf("search %q found %s, which the new database does not hold", q, h.Doc)
			}
		}
	}
	out, _ := mustRun(t, dir, "status", "--store", store)
	if !strings.Contains(out, "documents   1\n") {
		t.Errorf("status:\n%s", out)
	}
}
