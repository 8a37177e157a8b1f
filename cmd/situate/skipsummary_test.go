package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Skipped files are counted by reason on one line, listed with --verbose,
// not reported again while unchanged, silenced by --quiet; a run that
// changes nothing says so.
func TestIndexSkipSummary(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	os.MkdirAll(tree, 0o755)
	// Each write dates its file an hour back, a second later than the
	// one before: a file modified within situate.RacyStampWindow is read
	// again on every run, and these are files that were written a while
	// before the runs.
	written := time.Now().Add(-time.Hour)
	write := func(name, text string) {
		path := filepath.Join(tree, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		written = written.Add(time.Second)
		if err := os.Chtimes(path, written, written); err != nil {
			t.Fatal(err)
		}
	}
	write("good.md", "# Ostmark\n\nThe Ostmark ferry leaves at nine.\n")
	write("logo.png", "\x89PNG\r\n\x1a\nnot really an image")
	write("table.bin.txt", "abc\x00\x01\x02def")
	write("zone.txt", "TZif\x00\x00\x00")
	write("empty.txt", "")
	store := filepath.Join(dir, "store")
	noSkipLines := func(step, out string) {
		t.Helper()
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "skip ") {
				t.Errorf("%s: a skipped file listed without --verbose: %q\n%s", step, l, out)
			}
		}
	}

	_, first := mustRun(t, dir, "index", "--store", store, tree)
	noSkipLines("first run", first)
	if !strings.Contains(first, "skipped 4 files: 2 binary, 1 empty, 1 image (--verbose lists them)") {
		t.Errorf("first run: no summary of the skipped files by reason:\n%s", first)
	}
	if !strings.Contains(first, "1 added") {
		t.Errorf("first run: good.md not added:\n%s", first)
	}

	_, second := mustRun(t, dir, "index", "--store", store, tree)
	noSkipLines("second run", second)
	if strings.Contains(second, "skipped 4") || !strings.Contains(second, "nothing changed: 1 document unchanged, 4 skipped files unchanged") {
		t.Errorf("unchanged run:\n%s", second)
	}
	if strings.Count(strings.TrimSpace(second), "\n") != 0 {
		t.Errorf("unchanged run prints more than one line:\n%s", second)
	}

	// A changed file that is still binary is reported again; --quiet
	// prints nothing at all.
	write("zone.txt", "TZif2\x00\x00\x00")
	if _, out := mustRun(t, dir, "index", "--store", store, "--quiet", tree); out != "" {
		t.Errorf("--quiet printed:\n%s", out)
	}

	// An empty file that gets text is indexed and no longer remembered.
	write("empty.txt", "The Ostmark ferry timetable changes in May.\n")
	_, third := mustRun(t, dir, "index", "--store", store, tree)
	if !strings.Contains(third, "1 added") || !strings.Contains(third, "3 skipped files unchanged") || strings.Contains(third, "skipped 1") {
		t.Errorf("after empty.txt got text:\n%s", third)
	}

	// --verbose lists every skipped file, those remembered too.
	_, verbose := mustRun(t, dir, "index", "--store", store, "--verbose", tree)
	for _, name := range []string{"logo.png", "table.bin.txt", "zone.txt"} {
		if n := strings.Count(verbose, "skip "); n != 3 || !strings.Contains(verbose, filepath.Join(tree, name)) {
			t.Errorf("--verbose: %d skip lines, %s missing:\n%s", n, name, verbose)
		}
	}
	if !strings.Contains(verbose, "skipped 3 files: 2 binary, 1 image\n") {
		t.Errorf("--verbose summary:\n%s", verbose)
	}
	// --strict fails on remembered skips too: it reads them again.
	code, _, strict := run(t, dir, "index", "--store", store, "--strict", tree)
	if code != exitFailure || !strings.Contains(strict, "skipped 3 files") {
		t.Errorf("--strict with skipped files: exit %d, want %d:\n%s", code, exitFailure, strict)
	}
}

// A file changed again in the clock tick it was indexed in, keeping its
// size, keeps its stamp (size and modification time); the next run must
// still index the new text (git's "racily clean" files): a stamp is
// remembered only for a file older than situate.RacyStampWindow.
func TestIndexRacyFileChange(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	os.MkdirAll(tree, 0o755)
	path := filepath.Join(tree, "ferry.md")
	if err := os.WriteFile(path, []byte("# Ferry\n\nThe ferry leaves at nine.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, tree)
	// The same size, the same modification time: what a second write in
	// the same tick of a coarse file system clock leaves.
	if err := os.WriteFile(path, []byte("# Ferry\n\nThe ferry leaves at ten.\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); after.Size() != info.Size() || !after.ModTime().Equal(info.ModTime()) {
		t.Fatalf("the rewrite changed the stamp: %d %v, was %d %v", after.Size(), after.ModTime(), info.Size(), info.ModTime())
	}
	_, out := mustRun(t, dir, "index", "--store", store, tree)
	if !strings.Contains(out, "1 updated") {
		t.Errorf("the rewritten file was not indexed again:\n%s", out)
	}
	if found, _ := mustRun(t, dir, "search", "--store", store, "--json", "ferry leaves at ten"); !strings.Contains(found, "at ten") {
		t.Errorf("the new text is not found:\n%s", found)
	}
}
