package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSameIDFromTwoRootsIsReported: two directories given to one index run
// that hold the same relative path map to one document id. The second file
// is skipped and reported (it used to replace the first silently: "1 added,
// 1 updated"), on the first run and on a rerun where the first is unchanged.
func TestSameIDFromTwoRootsIsReported(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for p, text := range map[string]string{a: "# Apples\n\nThe orchard grows apples.\n", b: "# Bananas\n\nThe plantation grows bananas.\n"} {
		os.MkdirAll(p, 0o755)
		if err := os.WriteFile(filepath.Join(p, "README.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := filepath.Join(dir, "store")
	for run := 1; run <= 2; run++ {
		_, errOut := mustRun(t, dir, "index", "--verbose", "--store", store, a, b)
		if !strings.Contains(errOut, "skipped 1 file: 1 duplicate id") ||
			!strings.Contains(errOut, filepath.Join(b, "README.md")+`: id "README.md" is also the id of`) {
			t.Errorf("run %d: the second README.md is not reported:\n%s", run, errOut)
		}
		if strings.Contains(errOut, "1 updated") {
			t.Errorf("run %d: a document was replaced:\n%s", run, errOut)
		}
		if out, _ := mustRun(t, dir, "search", "--store", store, "apples"); !strings.Contains(out, "The orchard grows apples") {
			t.Errorf("run %d: the first root's document is gone:\n%s", run, out)
		}
		if out, _ := mustRun(t, dir, "search", "--store", store, "bananas"); !strings.Contains(out, "no results") {
			t.Errorf("run %d: the skipped file was indexed:\n%s", run, out)
		}
	}
	if code, _, errOut := run(t, dir, "index", "--strict", "--store", store, a, b); code == exitOK {
		t.Errorf("--strict with a duplicate id: exit 0\n%s", errOut)
	}
}
