package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputIsReportedAndSkipped feeds every kind of bad file at once: each
// is reported once with its path and skipped, the good file is indexed, and
// the exit code is non-zero only with --strict.
func TestBadInputIsReportedAndSkipped(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	os.MkdirAll(tree, 0o755)
	write := func(name string, data []byte) string {
		p := filepath.Join(tree, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("good.md", []byte("# Good\n\nThe Ostmark ferry runs every hour.\n"))
	bad := map[string]string{ // file -> what the report must say
		"empty.txt":     "empty",
		"binary.txt":    "binary",
		"invalid.txt":   "encoding",
		"broken.pdf":    "pdf",
		"broken.docx":   "docx",
		"huge.txt":      "",
		"loop":          "",
		"unreadable.md": "",
	}
	write("empty.txt", nil)
	write("binary.txt", []byte("abc\x00\x01\x02\x03def\x00\x00"))
	copyFile(t, filepath.Join(root, "ingest/testdata/bad/invalid-utf8.txt"), filepath.Join(tree, "invalid.txt"))
	copyFile(t, filepath.Join(root, "ingest/testdata/bad/broken.pdf"), filepath.Join(tree, "broken.pdf"))
	write("broken.docx", []byte("PK\x03\x04 not really a zip"))
	// A 100 MB file, sparse so the test stays cheap; over the size limit.
	f, err := os.Create(filepath.Join(tree, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(100 << 20)
	f.Close()
	// A symlink loop: tree/loop points back at tree.
	if err := os.Symlink(tree, filepath.Join(tree, "loop")); err != nil {
		t.Fatal(err)
	}
	unreadable := write("unreadable.md", []byte("# Secret\n"))
	os.Chmod(unreadable, 0)
	if f, err := os.Open(unreadable); err == nil {
		f.Close()
		delete(bad, "unreadable.md") // running as root: permissions do not stop reads
		os.Remove(unreadable)
	}

	store := filepath.Join(dir, "store")
	code, _, errOut := run(t, dir, "index", "--store", store, "--verbose", tree)
	if code != exitOK {
		t.Fatalf("index exit %d without --strict:\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	for name, what := range bad {
		n := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "skip ") && strings.Contains(l, filepath.Join(tree, name)) {
				n++
				if what != "" && !strings.Contains(strings.ToLower(l), what) {
					t.Errorf("report for %s does not say %q: %s", name, what, l)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s reported %d times, want once:\n%s", name, n, errOut)
		}
	}
	if !strings.Contains(errOut, "1 added") {
		t.Errorf("good file not indexed:\n%s", errOut)
	}
	if r := search(t, dir, store, 3, "Ostmark ferry"); len(r.Results) != 1 || r.Results[0].Doc != "good.md" {
		t.Errorf("search after bad input: %+v", r.Results)
	}
	code, _, _ = run(t, dir, "index", "--store", store, "--strict", tree)
	if code != exitFailure {
		t.Errorf("--strict with skipped files: exit %d, want %d", code, exitFailure)
	}
	// Nothing already indexed was lost by the failing runs.
	if r := search(t, dir, store, 3, "Ostmark ferry"); len(r.Results) != 1 {
		t.Errorf("indexed document lost after --strict run: %+v", r.Results)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
