package main

import (
	"context"
	"fmt"
	"github.com/situate/situate/internal/testskip"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/situate/situate/sqlite"
)

// TestMain lets tests re-execute this binary as the situate command, so a
// test can SIGKILL a real indexing process.
func TestMain(m *testing.M) {
	if os.Getenv("SITUATE_TEST_AS_MAIN") == "1" {
		// As main does: SIGINT and SIGTERM cancel the command's context.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		wd, _ := os.Getwd()
		e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, workDir: wd}
		code := Main(ctx, e, os.Args[1:])
		stop()
		os.Exit(code)
	}
	code := testskip.Run(m)
	removeBin()
	os.Exit(code)
}

func TestReindexIsIncremental(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	copyTree(t, filepath.Join(root, "ingest", "testdata", "corpus"), corpus)
	store := filepath.Join(dir, "store")

	_, first := mustRun(t, dir, "index", "--store", store, corpus)
	if !strings.Contains(first, "11 added, 0 updated, 0 unchanged") {
		t.Fatalf("first run: %s", first)
	}
	before := dumpStore(t, store)
	_, second := mustRun(t, dir, "index", "--store", store, corpus)
	if !strings.Contains(second, "nothing changed: 11 documents unchanged") {
		t.Fatalf("second run did work: %s", second)
	}
	if after := dumpStore(t, store); after != before {
		t.Fatalf("unchanged re-index changed the store")
	}

	md := filepath.Join(corpus, "en", "brennick-lighthouse.md")
	data, _ := os.ReadFile(md)
	os.WriteFile(md, append(data, []byte("\n\n## Visitors\n\nThe lamp room opened to visitors in 1998.\n")...), 0o644)
	_, third := mustRun(t, dir, "index", "--store", store, corpus)
	if !strings.Contains(third, "0 added, 1 updated, 10 unchanged") {
		t.Fatalf("after editing one file: %s", third)
	}
	out, _ := mustRun(t, dir, "show", "--store", store, "en/brennick-lighthouse.md")
	if !strings.Contains(out, "version 2") || !strings.Contains(out, "opened to visitors in 1998") {
		t.Fatalf("edited document not re-situated:\n%s", out)
	}
	res := search(t, dir, store, 1, "Brennick lamp room visitors")
	if len(res.Results) == 0 || !strings.Contains(res.Results[0].Text, "1998") {
		t.Fatalf("new text not searchable: %+v", res)
	}

	os.Remove(md)
	_, fourth := mustRun(t, dir, "index", "--store", store, "--prune", corpus)
	if !strings.Contains(fourth, "1 removed") {
		t.Fatalf("prune: %s", fourth)
	}
	if code, _, _ := run(t, dir, "show", "--store", store, "en/brennick-lighthouse.md"); code != exitFailure {
		t.Fatalf("pruned document still shown (exit %d)", code)
	}
	if r := search(t, dir, store, 5, "Brennick Lighthouse"); slices.ContainsFunc(r.Results, func(x searchResult) bool { return x.Doc == "en/brennick-lighthouse.md" }) {
		t.Fatalf("pruned document still found: %+v", r.Results)
	}
	mustRun(t, dir, "rm", "--store", store, "de/burg-falkenried.pdf")
	if code, _, errOut := run(t, dir, "rm", "--store", store, "de/burg-falkenried.pdf"); code != exitFailure || !strings.Contains(errOut, "not indexed") {
		t.Fatalf("second rm: exit %d %s", code, errOut)
	}
}

// dumpStore renders everything a store holds for comparison: documents with
// versions and hashes, chunks with spans and contexts.
func dumpStore(t *testing.T, storeDir string) string {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(storeDir, storeFile))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&b, "doc %s v%d %s %s %d\n", d.ID, d.Version, d.Hash, d.Lang, d.Chunks)
		chunks, err := s.Chunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			fmt.Fprintf(&b, "  %d %d-%d %q %q %q\n", c.Index, c.Start, c.End, c.Heading, c.Context.Text, c.Text)
		}
	}
	return b.String()
}

// writeCorpus writes n Markdown documents, each about a named entity.
func writeCorpus(t *testing.T, dir string, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("harbour ledger quarterly revenue grew tower lamp keeper railway freight bell foundry observatory telescope winter supply mountain river dam turbine village council archive")
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# Entity%04d Works\n\nEntity%04d Works is a company founded in %d.\n\n", i, i, 1800+i%200)
		for s := range 6 {
			fmt.Fprintf(&b, "## Section %d\n\n", s)
			for range 40 {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			b.WriteString(".\n\n")
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%04d.md", i)), []byte(b.String()), 0o644)
	}
}

// TestKilledIndexResumes SIGKILLs "situate index" at random moments and
// checks that rerunning ends in the same store as an uninterrupted run.
func TestKilledIndexResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary several times")
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(corpus, 0o755)
	writeCorpus(t, corpus, 600)
	ref := filepath.Join(dir, "ref")
	refStart := time.Now()
	mustRun(t, dir, "index", "--store", ref, corpus)
	full := time.Since(refStart)
	want := dumpStore(t, ref)
	wantSearch := search(t, dir, ref, 10, "Entity0123 Works revenue")

	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 5
	killedMidway := 0
	for trial := range trials {
		store := filepath.Join(dir, fmt.Sprintf("killed%d", trial))
		for kill := 0; kill < 2; kill++ {
			cmd := exec.Command(os.Args[0], "index", "--store", store, corpus)
			cmd.Env = append(os.Environ(), "SITUATE_TEST_AS_MAIN=1")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the run has created its store (start-up time
			// varies by machine), then kill it in the first half of a run.
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if _, err := os.Stat(filepath.Join(store, storeFile)); err == nil {
					break
				}
			}
			time.Sleep(time.Duration(rng.IntN(int(full/time.Millisecond)/2+1)) * time.Millisecond)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				killedMidway++
			}
		}
		mustRun(t, dir, "index", "--store", store, corpus)
		if got := dumpStore(t, store); got != want {
			t.Fatalf("trial %d: store after SIGKILL + rerun differs from an uninterrupted run", trial)
		}
		got := search(t, dir, store, 10, "Entity0123 Works revenue")
		if fmt.Sprint(got.Results) != fmt.Sprint(wantSearch.Results) {
			t.Fatalf("trial %d: search differs after SIGKILL + rerun:\n got %+v\nwant %+v", trial, got.Results, wantSearch.Results)
		}
	}
	t.Logf("%d of %d runs were killed before they finished", killedMidway, 2*trials)
	if killedMidway < trials {
		t.Errorf("only %d runs were killed midway: the corpus indexes too fast for this test to mean anything", killedMidway)
	}
}

// A changed processing setting re-processes files whose size and
// modification time did not change (the stat fast path must not hide it).
func TestReindexAfterSettingChange(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	copyTree(t, filepath.Join(root, "ingest", "testdata", "corpus"), corpus)
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, corpus)
	_, second := mustRun(t, dir, "index", "--store", store, "--chunk-size", "300", corpus)
	// Every document is re-processed; those whose chunks came out
	// different (the longer ones) get a new version, the others keep
	// theirs.
	m := regexp.MustCompile(`indexed 11 documents .*: 0 added, (\d+) updated, (\d+) unchanged`).FindStringSubmatch(second)
	if m == nil || m[1] == "0" || atoi(m[1])+atoi(m[2]) != 11 {
		t.Fatalf("after --chunk-size 300: %s", second)
	}
	_, third := mustRun(t, dir, "index", "--store", store, "--chunk-size", "300", corpus)
	if !strings.Contains(third, "nothing changed: 11 documents unchanged") {
		t.Fatalf("same settings again: %s", third)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
