package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// indexFiles describes every file under the store's index directories:
// name, size and modification time.
func indexFiles(t *testing.T, store string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(store, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "situate.db") || d.Name() == "LOCK" {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s %d %d", path, fi.Size(), fi.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestQueryOptionsNeverRewriteIndex: query-time options never rewrite an
// index. --recipe lucene searches the arm the store has; options that would
// need the index built another way (--context-weight, --analyzer) are
// refused with a message saying to run situate index; the index files are
// untouched throughout and the default search gives what it gave before.
func TestQueryOptionsNeverRewriteIndex(t *testing.T) {
	dir := t.TempDir()
	p := proc{bin: situateBin(t, dir)}
	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(corpus, 0o755)
	writeCorpus(t, corpus, 20)
	store := filepath.Join(dir, "store")
	p.mustRun(t, "index", "--store", store, corpus)
	before := indexFiles(t, store)
	search := []string{"search", "--store", store, "--json", "-k", "5", "lamp keeper tower"}
	want := p.mustRun(t, search...)

	lucene := p.mustRun(t, append([]string{"search", "--recipe", "lucene"}, search[1:]...)...)
	if !strings.Contains(lucene, `"doc": "doc`) {
		t.Errorf("--recipe lucene found nothing:\n%s", lucene)
	}
	for _, opt := range [][]string{{"--context-weight", "1"}, {"--analyzer", "german"}} {
		code, out, errOut := p.run(append(append([]string{"search"}, opt...), search[1:]...)...)
		if code == 0 || !strings.Contains(errOut, "situate index") || !strings.Contains(errOut, "rebuilt") {
			t.Errorf("search %v: exit %d, want a refusal saying to run situate index:\n%s%s", opt, code, out, errOut)
		}
	}
	if after := indexFiles(t, store); after != before {
		t.Errorf("a search changed the index files:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if got := p.mustRun(t, search...); got != want {
		t.Errorf("the default search differs after the others:\n%s", firstDiff(got, want))
	}
}

// TestStatusOnLuceneStore: a store indexed with --recipe lucene holds one
// arm; search with the default recipe is refused (saying to run situate
// index), while status, show and ls, which do not search, work.
func TestStatusOnLuceneStore(t *testing.T) {
	dir := t.TempDir()
	p := proc{bin: situateBin(t, dir)}
	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(corpus, 0o755)
	writeCorpus(t, corpus, 5)
	store := filepath.Join(dir, "store")
	p.mustRun(t, "index", "--store", store, "--recipe", "lucene", corpus)
	if code, _, errOut := p.run("search", "--store", store, "lamp keeper"); code == 0 || !strings.Contains(errOut, "situate index") {
		t.Errorf("default search on a lucene store: exit %d, want a refusal naming situate index:\n%s", code, errOut)
	}
	p.mustRun(t, "search", "--store", store, "--recipe", "lucene", "lamp keeper")
	for _, args := range [][]string{{"status", "--store", store}, {"show", "--store", store, "doc0003.md"}, {"ls", "--store", store}} {
		p.mustRun(t, args...)
	}
}
