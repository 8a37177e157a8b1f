package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/situate/situate"
)

// writeTree creates files (path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWalkIgnoreFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":         "*.log\nbuild/\n/secret.md\n!important.log\n!build/keep.txt\n",
		".git/config":        "[core]\n",
		".situate/store.txt": "store",
		"a.md":               "# A\n",
		"a/b.md":             "# B\n",
		"important.log":      "kept by negation\n",
		"debug.log":          "ignored\n",
		"secret.md":          "ignored, anchored to the root\n",
		"build/out.txt":      "ignored directory\n",
		"build/keep.txt":     "a parent directory is excluded: git cannot re-include\n",
		"sub/.gitignore":     "!debug.log\n*.txt\n",
		"sub/.situateignore": "drafts/\n",
		"sub/debug.log":      "re-included by the nested file\n",
		"sub/secret.md":      "not ignored: /secret.md is anchored to the root\n",
		"sub/x.txt":          "ignored by the nested file\n",
		"sub/drafts/d.md":    "ignored by .situateignore\n",
		"sub/deeper/y.txt":   "ignored: nested rules apply below their directory\n",
		"z.go":               "package z\n",
		"empty.txt":          "",
		".env":               "SECRET=1\n",
		".vscode/notes.md":   "hidden directory\n",
	})
	docs, errs := collect(t, []string{dir}, Options{})
	want := []string{"a.md", "a/b.md", "important.log", "sub/debug.log", "sub/secret.md", "z.go"}
	if got := ids(docs); !slices.Equal(got, want) {
		t.Errorf("ids = %q\nwant %q", got, want)
	}
	if len(errs) != 1 || errs[0].Path != filepath.Join(dir, "empty.txt") || !errors.Is(errs[0], ErrEmpty) {
		t.Errorf("errors = %v, want one ErrEmpty for empty.txt", errs)
	}
	for _, d := range docs {
		if d.Path != filepath.Join(dir, filepath.FromSlash(d.ID)) {
			t.Errorf("%s: Path = %q", d.ID, d.Path)
		}
	}

	// IgnoreFiles: an empty list disables ignore files. Hidden includes
	// dot-files but never .git or .situate.
	docs, _ = collect(t, []string{dir}, Options{IgnoreFiles: []string{}, Hidden: true})
	got := ids(docs)
	for _, id := range []string{"debug.log", "build/keep.txt", ".env", ".vscode/notes.md", ".gitignore", "sub/.situateignore"} {
		if !slices.Contains(got, id) {
			t.Errorf("without ignore files, with hidden: %s missing from %q", id, got)
		}
	}
	if slices.Contains(got, ".git/config") || slices.Contains(got, ".situate/store.txt") {
		t.Errorf("store or VCS directory walked: %q", got)
	}
}

func TestWalkGlobs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.md": "a", "b.txt": "b", "docs/c.md": "c", "docs/d.md": "d",
		"vendor/e.md": "e", "vendor/deep/f.md": "f",
	})
	tests := []struct {
		name             string
		include, exclude []string
		want             []string
	}{
		{"all", nil, nil, []string{"a.md", "b.txt", "docs/c.md", "docs/d.md", "vendor/deep/f.md", "vendor/e.md"}},
		{"include md", []string{"**/*.md"}, nil, []string{"a.md", "docs/c.md", "docs/d.md", "vendor/deep/f.md", "vendor/e.md"}},
		{"exclude wins", []string{"**/*.md"}, []string{"vendor/**", "docs/d.md"}, []string{"a.md", "docs/c.md"}},
		{"top level only", []string{"*"}, nil, []string{"a.md", "b.txt"}},
		{"exclude one level", nil, []string{"vendor/*"}, []string{"a.md", "b.txt", "docs/c.md", "docs/d.md", "vendor/deep/f.md"}},
		{"braces", []string{"{a,docs/c}.md"}, nil, []string{"a.md", "docs/c.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, errs := collect(t, []string{dir}, Options{Include: tt.include, Exclude: tt.exclude})
			if got := ids(docs); !slices.Equal(got, tt.want) || len(errs) > 0 {
				t.Errorf("ids = %q, errors %v\nwant %q", got, errs, tt.want)
			}
		})
	}
	err := Walk(context.Background(), []string{dir}, Options{Include: []string{"[a-"}}, func(situate.Document, error) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "options: Include") {
		t.Errorf("bad glob: err = %v", err)
	}
}

func TestWalkSymlinks(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "# A\n", "sub/b.md": "# B\n"})
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"o.md": "# Outside\n"})
	outside2 := t.TempDir()
	writeTree(t, outside2, map[string]string{"p.md": "# Outside too\n"})
	for link, target := range map[string]string{
		"sub/up":     "..",                            // loop to the root
		"sub/self":   ".",                             // loop to itself
		"link.md":    "a.md",                          // file link inside the root: a.md is indexed, the link is not
		"sub/ext":    outside,                         // a second link to the same outside directory: once only
		"o-link.md":  filepath.Join(outside, "o.md"),  // already reached through ext: once only
		"p-link.md":  filepath.Join(outside2, "p.md"), // file outside the root: followed
		"ext":        outside,                         // directory outside the root: followed
		"broken.md":  "does-not-exist.md",             // dangling
		"sub/deeper": filepath.Join(dir, "sub"),       // absolute loop
		"ext2":       filepath.Join(outside, "..."),   // dangling absolute
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Skipf("symlinks not supported: %v", err)
		}
	}
	docs, errs := collect(t, []string{dir}, Options{})
	want := []string{"a.md", "ext/o.md", "p-link.md", "sub/b.md"}
	if got := ids(docs); !slices.Equal(got, want) {
		t.Errorf("ids = %q, want %q", got, want)
	}
	loops := map[string]int{}
	for _, e := range errs {
		rel, _ := filepath.Rel(dir, e.Path)
		if errors.Is(e, ErrSymlinkLoop) {
			loops[filepath.ToSlash(rel)]++
		} else if rel != "broken.md" && rel != "ext2" {
			t.Errorf("unexpected error %v", e)
		}
	}
	wantLoops := map[string]int{"sub/up": 1, "sub/self": 1, "sub/deeper": 1}
	if len(loops) != len(wantLoops) {
		t.Errorf("loops reported = %v, want %v", loops, wantLoops)
	}
	for k, n := range wantLoops {
		if loops[k] != n {
			t.Errorf("loop %s reported %d times, want %d", k, loops[k], n)
		}
	}
	if len(errs) != 5 {
		t.Errorf("got %d errors, want 3 loops + 2 dangling links: %v", len(errs), errs)
	}
}

func TestWalkMaxDepth(t *testing.T) {
	dir := t.TempDir()
	deep := dir
	for range MaxDepth + 2 {
		deep = filepath.Join(deep, "d")
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Skipf("cannot create a %d-level tree: %v", MaxDepth+2, err)
	}
	writeTree(t, dir, map[string]string{"top.md": "top"})
	docs, errs := collect(t, []string{dir}, Options{})
	if got := ids(docs); !slices.Equal(got, []string{"top.md"}) {
		t.Errorf("ids = %q", got)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "deeper than 256 levels") {
		t.Errorf("errors = %v, want one depth error", errs)
	}
}

func TestWalkUnreadable(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "a", "locked.md": "secret", "lockeddir/x.md": "x", "z.md": "z"})
	file, sub := filepath.Join(dir, "locked.md"), filepath.Join(dir, "lockeddir")
	if err := os.Chmod(file, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sub, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sub, 0o755); os.Chmod(file, 0o644) })
	if _, err := os.ReadFile(file); err == nil {
		t.Skip("running with privileges that ignore file permissions (root?): chmod 000 does not block reads")
	}
	docs, errs := collect(t, []string{dir}, Options{})
	if got := ids(docs); !slices.Equal(got, []string{"a.md", "z.md"}) {
		t.Errorf("ids = %q", got)
	}
	if got := errPaths(errs); !slices.Equal(got, []string{file, sub}) {
		t.Fatalf("error paths = %q, want locked.md and lockeddir", got)
	}
	for _, e := range errs {
		if !errors.Is(e, os.ErrPermission) {
			t.Errorf("%v does not wrap os.ErrPermission", e)
		}
	}
}

func TestWalkSizeAndRoots(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"big.txt": strings.Repeat("x", 5000), "small.txt": "small"})
	docs, errs := collect(t, []string{dir, filepath.Join(dir, "small.txt"), filepath.Join(dir, "missing")}, Options{MaxFileSize: 1000})
	if got := ids(docs); !slices.Equal(got, []string{"small.txt", "small.txt"}) {
		t.Errorf("ids = %q (a file root's id is its base name)", got)
	}
	if len(errs) != 2 || !errors.Is(errs[0], ErrTooLarge) || !errors.Is(errs[1], os.ErrNotExist) || errs[1].Op != "stat" {
		t.Errorf("errors = %v, want too large then stat missing", errs)
	}
}

func TestWalkStops(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "a", "b.md": "b", "c.md": "c"})
	stop := errors.New("stop")
	n := 0
	err := Walk(context.Background(), []string{dir}, Options{}, func(situate.Document, error) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("err = %v after %d calls, want fn's error after 2", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = Walk(ctx, []string{dir}, Options{}, func(situate.Document, error) error {
		t.Error("fn called after cancel")
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

type manifestEntry struct {
	ID      string `json:"id"`
	Lang    string `json:"lang"`
	Title   string `json:"title"`
	Entity  string `json:"entity"`
	Queries []struct {
		Query  string `json:"query"`
		Answer string `json:"answer"`
	} `json:"queries"`
}

func readManifest(t *testing.T) []manifestEntry {
	t.Helper()
	b, err := os.ReadFile("testdata/corpus-queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var m []manifestEntry
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWalkCorpus walks the multilingual fixture corpus. PDFs go through a
// fake extractor here; ingest/pdf repeats this walk with PDFium.
func TestWalkCorpus(t *testing.T) {
	docs, errs := collect(t, []string{"testdata/corpus"}, Options{PDF: fakePDF{}})
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	manifest := readManifest(t)
	var want []string
	for _, m := range manifest {
		want = append(want, m.ID)
	}
	slices.Sort(want)
	if got := ids(docs); !slices.Equal(got, want) {
		t.Fatalf("ids = %q\nwant %q", got, want)
	}
	byID := map[string]situate.Document{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	formats := map[string]string{".md": situate.FormatMarkdown, ".html": situate.FormatHTML, ".pdf": situate.FormatPDF, ".docx": situate.FormatDOCX, ".go": situate.FormatCode}
	for _, m := range manifest {
		d := byID[m.ID]
		if d.Format != formats[filepath.Ext(m.ID)] {
			t.Errorf("%s: Format = %q", m.ID, d.Format)
		}
		if d.Format == situate.FormatPDF {
			continue // fake text
		}
		if d.Title != m.Title {
			t.Errorf("%s: Title = %q, want %q", m.ID, d.Title, m.Title)
		}
		wantLang := ""
		if d.Format == situate.FormatHTML || d.Format == situate.FormatDOCX {
			wantLang = m.Lang // declared by the format
		}
		if d.Format == situate.FormatCode {
			wantLang = m.Lang // detected from the comments
		}
		if d.Lang != wantLang {
			t.Errorf("%s: Lang = %q, want %q", m.ID, d.Lang, wantLang)
		}
		for _, q := range m.Queries {
			if !strings.Contains(squash(d.Text), squash(q.Answer)) {
				t.Errorf("%s: answer %q of %q not in text", m.ID, q.Answer, q.Query)
			}
		}
	}
}

func TestWalkUnchangedSkipsReading(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.md", "b.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# "+name+"\n\ntext\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// b.md is "known": Walk must report it unchanged without parsing it.
	asked := map[string]int64{}
	opts := Options{Unchanged: func(id string, info fs.FileInfo) bool {
		asked[id] = info.Size()
		return id == "b.md"
	}}
	var parsed, unchanged []string
	err := Walk(context.Background(), []string{dir}, opts, func(doc situate.Document, err error) error {
		switch {
		case errors.Is(err, ErrUnchanged):
			unchanged = append(unchanged, doc.ID)
			if doc.Text != "" || doc.Path != filepath.Join(dir, "b.md") {
				t.Errorf("unchanged document carries %+v", doc)
			}
		case err != nil:
			t.Errorf("walk: %v", err)
		default:
			parsed = append(parsed, doc.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(parsed) != "[a.md]" || fmt.Sprint(unchanged) != "[b.md]" || asked["a.md"] == 0 {
		t.Fatalf("parsed %v, unchanged %v, asked %v", parsed, unchanged, asked)
	}
}
