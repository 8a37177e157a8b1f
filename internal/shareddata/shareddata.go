// Package shareddata finds the evaluation data that tests and benchmarks
// read in place — ../shared/data next to the repository root — and reads the
// CACM collection from it. Tests skip when the data is absent, so the suite
// runs on a clone without it. It imports no project package.
package shareddata

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"github.com/situate/situate/internal/testskip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Root returns the repository root: the nearest directory above the working
// directory holding go.mod.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("shareddata: go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Path returns ../shared/data/rel next to the repository root, or skips the
// test when it is absent.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Root(tb), "..", "shared", "data", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		testskip.Skipf(tb, "shared evaluation data absent (../shared/data beside the repository)\n%s: %v", p, err)
	}
	return p
}

// Doc is one CACM document.
type Doc struct{ ID, Text string }

// CACM reads cacm/cacm.tar.gz in place: ID = file name without extension,
// Text = the file with only its <html>/<pre> tags removed (a greedy tag
// pattern would eat abstracts containing "<").
func CACM(tb testing.TB) []Doc {
	tb.Helper()
	path := Path(tb, "cacm/cacm.tar.gz")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	tr := tar.NewReader(gz)
	var docs []Doc
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatalf("read %s: %v", path, err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(h.Name, ".html") {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			tb.Fatalf("read %s: %s: %v", path, h.Name, err)
		}
		text := string(b)
		for _, tag := range []string{"<html>", "</html>", "<pre>", "</pre>"} {
			text = strings.Replace(text, tag, " ", 1)
		}
		docs = append(docs, Doc{strings.TrimSuffix(filepath.Base(h.Name), ".html"), text})
	}
	return docs
}
