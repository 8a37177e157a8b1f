package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate"
)

// TestErrorsHaveOnePrefix: an error printed by the command line starts with
// "situate CMD: " and says "situate:" nowhere else, while the sentinel is
// still found with errors.Is.
func TestErrorsHaveOnePrefix(t *testing.T) {
	wrapped := fmt.Errorf("document %q: %w", "x", situate.ErrNotFound)
	if got := errorText(wrapped); got != `document "x": not found` {
		t.Errorf("errorText(wrapped) = %q", got)
	}
	if got := errorText(situate.ErrLocked); got != "store is locked by another writer" {
		t.Errorf("errorText(sentinel) = %q", got)
	}
	joined := errors.Join(fmt.Errorf("a: %w", situate.ErrInvalid), situate.ErrReadOnly)
	if got := errorText(joined); got != "a: invalid input\nengine is open read-only" {
		t.Errorf("errorText(joined) = %q", got)
	}
	if !errors.Is(wrapped, situate.ErrNotFound) {
		t.Error("the sentinel is lost")
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nSome text about apples.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, filepath.Join(dir, "a.md"))
	for _, args := range [][]string{
		{"show", "--store", store, "no-such-doc"},
		{"ls", "--store", store, "--filter", `{"docs":3}`},
	} {
		code, _, errOut := run(t, dir, args...)
		if code == exitOK {
			t.Fatalf("situate %s succeeded", strings.Join(args, " "))
		}
		first := strings.SplitN(errOut, "\n", 2)[0]
		if !strings.HasPrefix(first, "situate "+args[0]+": ") || strings.Count(errOut, "situate:") != 0 {
			t.Errorf("situate %s: error stutters or lacks its prefix:\n%s", strings.Join(args, " "), errOut)
		}
	}
}

// TestIndexMissingPathKeepsStore: a path given to index that does not
// exist (a typo) fails the run with one error naming it, before anything
// is read, and --prune removes nothing; a JSONL path likewise. An empty
// directory says that it found no documents.
func TestIndexMissingPathKeepsStore(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.md", "b.md"} {
		if err := os.WriteFile(filepath.Join(corpus, name), []byte("# "+name+"\n\nSome text about apples and pears.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, corpus)
	for _, missing := range []string{filepath.Join(dir, "corpsu"), filepath.Join(dir, "docs.jsonl")} {
		code, _, errOut := run(t, dir, "index", "--prune", "--store", store, corpus, missing)
		if code != exitFailure {
			t.Fatalf("index of a missing %s: exit %d, want %d\n%s", missing, code, exitFailure, errOut)
		}
		want := "situate index: read documents: open " + missing + ": no such file or directory\n"
		if errOut != want {
			t.Errorf("index of a missing %s printed\n%q\nwant\n%q", missing, errOut, want)
		}
		out, _ := mustRun(t, dir, "ls", "--store", store)
		if !strings.Contains(out, "a.md") || !strings.Contains(out, "b.md") {
			t.Errorf("after index --prune of a missing path, the store lists:\n%s", out)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut := mustRun(t, dir, "index", "--store", store, empty)
	if !strings.HasPrefix(errOut, "found no documents to index;") {
		t.Errorf("index of an empty directory printed %q", errOut)
	}
}
