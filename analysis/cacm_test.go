package analysis

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedData returns the path of ../shared/data/<rel> next to the repository
// root (the directory holding go.mod), or skips the test.
func sharedData(tb testing.TB, rel string) string {
	tb.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("go.mod not found above the package directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "data", rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("evaluation data %s absent: %v", p, err)
	}
	return p
}

type cacmDoc struct{ id, text string }

// readCACM reads the CACM tarball in place: docid = file name without
// extension, text = the file with only the <html>/<pre> tags removed.
func readCACM(tb testing.TB) []cacmDoc {
	tb.Helper()
	path := sharedData(tb, "cacm/cacm.tar.gz")
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
	var docs []cacmDoc
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
		docs = append(docs, cacmDoc{strings.TrimSuffix(filepath.Base(h.Name), ".html"), text})
	}
	return docs
}

// TestCACMEnglishParity checks the English analyzer against the index
// statistics Anserini (Lucene 8) reports for CACM with the same chain.
func TestCACMEnglishParity(t *testing.T) {
	docs := readCACM(t)
	a, err := New(English)
	if err != nil {
		t.Fatal(err)
	}
	terms := map[string]struct{}{}
	tokens := 0
	for _, d := range docs {
		for _, tok := range a.Analyze(d.text) {
			terms[tok.Term] = struct{}{}
			tokens++
		}
	}
	const wantDocs, wantTerms, wantTokens = 3204, 14363, 320968
	t.Logf("CACM: %d docs, %d unique terms, %d tokens", len(docs), len(terms), tokens)
	if len(docs) != wantDocs || len(terms) != wantTerms || tokens != wantTokens {
		t.Errorf("CACM: got %d docs / %d unique terms / %d tokens, Lucene has %d / %d / %d",
			len(docs), len(terms), tokens, wantDocs, wantTerms, wantTokens)
	}
}
