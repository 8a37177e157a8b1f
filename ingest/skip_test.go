package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
)

func TestSkipReason(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.png":   "\x89PNG",
		"b.zip":   "PK\x03\x04",
		"c.so":    "\x7fELF",
		"d.txt":   "abc\x00def",
		"e.md":    "",
		"f.docx":  "PK\x03\x04 not a zip",
		"g.woff2": "wOF2",
	}
	want := map[string]string{"a.png": "image", "b.zip": "archive", "c.so": "compiled", "d.txt": "binary",
		"e.md": "empty", "f.docx": "broken", "g.woff2": "font", "missing.txt": "unreadable"}
	for name, text := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	for name, reason := range want {
		_, err := ingest.ParseFile(context.Background(), filepath.Join(dir, name), name, ingest.Options{})
		if err == nil {
			t.Errorf("%s parsed", name)
			continue
		}
		if got := ingest.SkipReason(err); got != reason {
			t.Errorf("SkipReason(%v) = %q, want %q", err, got, reason)
		}
	}
	_, err := ingest.ParseFile(context.Background(), filepath.Join(dir, "d.txt"), "d.txt", ingest.Options{MaxFileSize: 2})
	if got := ingest.SkipReason(err); got != "too large" {
		t.Errorf("SkipReason(%v) = %q, want too large", err, got)
	}
}

// Walk gives a skipped file's id with its error, so a source can remember
// the skip under the document's id.
func TestWalkSkippedFileHasID(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "x.png"), []byte("\x89PNG"), 0o644)
	var ids []string
	err := ingest.Walk(context.Background(), []string{dir}, ingest.Options{}, func(doc situate.Document, err error) error {
		if err != nil {
			ids = append(ids, doc.ID)
		}
		return nil
	})
	if err != nil || len(ids) != 1 || ids[0] != "sub/x.png" {
		t.Fatalf("skipped ids %q, err %v", ids, err)
	}
}
