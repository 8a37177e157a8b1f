package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"testing"
)

// TestCompactCommand indexes a directory in one run and then file by file
// (runs too small to compact), so the indexes hold several segments;
// "situate compact" merges each into one and searches return what they
// returned before.
func TestCompactCommand(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.Mkdir(docs, 0o755)
	write := func(i int) {
		text := fmt.Sprintf("# Harbour report %d\n\nThe quay number %d of town %d was rebuilt in stone after the flood of year %d.\n", i, i*7, i, 1900+i)
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("r%02d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := filepath.Join(dir, "store")
	for i := range 30 {
		write(i)
	}
	mustRun(t, dir, "index", "--quiet", "--store", store, docs)
	for i := 30; i < 33; i++ {
		write(i)
		mustRun(t, dir, "index", "--quiet", "--store", store, docs)
	}
	queries := []string{"quay 217 flood", "harbour report town 5", "stone 1931"}
	var before []jsonSearch
	for _, q := range queries {
		before = append(before, search(t, dir, store, 5, q))
	}

	out, _ := mustRun(t, dir, "compact", "--store", store)
	m := regexp.MustCompile(`^compacted (\d+) indexes in \S+: (\d+) segment files before, (\d+) after; store `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("compact printed %q", out)
	}
	arms, _ := strconv.Atoi(m[1])
	nb, _ := strconv.Atoi(m[2])
	na, _ := strconv.Atoi(m[3])
	if na != arms || nb <= na {
		t.Fatalf("compact: %q; want more segments before than after, and one per index after", out)
	}
	files, _ := filepath.Glob(filepath.Join(store, "bm25*", "*.seg"))
	if len(files) != arms {
		t.Fatalf("%d segment files after compact, want %d: %v", len(files), arms, files)
	}
	for i, q := range queries {
		if got := search(t, dir, store, 5, q); !reflect.DeepEqual(got, before[i]) || len(got.Results) == 0 {
			t.Fatalf("%q after compact:\n%+v\nbefore:\n%+v", q, got, before[i])
		}
	}
	if code, _, errOut := run(t, dir, "compact", "--store", store, "extra"); code != exitUsage {
		t.Fatalf("compact with an argument: exit %d, %s", code, errOut)
	}
}
