package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// TestGzipFilesAreRead: one gzip-compressed file (Debian's
// changelog.Debian.gz, a manual page ls.1.gz, notes.md.gz) is read as the
// file it compresses, with the id it has on disk; compressed archives and
// formats ingest refuses stay skipped; a bomb is refused at MaxFileSize
// decompressed; a damaged one is reported as broken.
func TestGzipFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctx := context.Background()
	changelog := write("changelog.Debian.gz", gz(t, []byte("bash (5.2.15-2) unstable; urgency=medium\n\n  * Fix the quoting of here-documents.\n")))
	doc, err := ParseFile(ctx, changelog, "bash/changelog.Debian.gz", Options{})
	if err != nil || !strings.Contains(doc.Text, "quoting of here-documents") || doc.ID != "bash/changelog.Debian.gz" {
		t.Errorf("changelog.Debian.gz: %+v, %v", doc, err)
	}
	md := write("notes.md.gz", gz(t, []byte("# Notes\n\nThe ferry leaves at noon.\n")))
	if doc, err := ParseFile(ctx, md, "", Options{}); err != nil || doc.Format != "markdown" || doc.Title != "Notes" {
		t.Errorf("notes.md.gz: format %q title %q, %v", doc.Format, doc.Title, err)
	}
	for _, name := range []string{"src.tar.gz", "logo.png.gz"} {
		p := write(name, gz(t, []byte("not read")))
		if _, err := ParseFile(ctx, p, "", Options{}); !errors.Is(err, ErrUnsupported) || SkipReason(err) != "archive" && name == "src.tar.gz" {
			t.Errorf("%s: %v (reason %q), want unsupported", name, err, SkipReason(err))
		}
	}
	bomb := write("bomb.txt.gz", gz(t, bytes.Repeat([]byte("a"), 1<<20)))
	if _, err := ParseFile(ctx, bomb, "", Options{MaxFileSize: 64 << 10}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "decompresses to more than") {
		t.Errorf("bomb: %v, want too large", err)
	}
	data := gz(t, []byte(strings.Repeat("some text to compress ", 100)))
	data[len(data)/2] ^= 0xff
	broken := write("broken.txt.gz", data)
	if _, err := ParseFile(ctx, broken, "", Options{}); err == nil || SkipReason(err) != "broken" {
		t.Errorf("damaged gzip: %v (reason %q), want broken", err, SkipReason(err))
	}
}
