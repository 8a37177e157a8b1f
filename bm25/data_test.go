package bm25

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sharedData returns ../shared/data/<rel> next to the repository root (the
// directory holding go.mod), or skips the test when it is absent.
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

type textDoc struct{ id, text string }

// readCACM reads the CACM tarball in place: docid = file name without
// extension, text = the file with only the <html>/<pre> tags removed (a
// greedy tag regexp would eat abstracts containing "<").
func readCACM(tb testing.TB) []textDoc {
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
	var docs []textDoc
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
		docs = append(docs, textDoc{strings.TrimSuffix(filepath.Base(h.Name), ".html"), text})
	}
	return docs
}

var topicRE = regexp.MustCompile(`(?s)<DOC>\s*<DOCNO>\s*(\d+)\s*</DOCNO>(.*?)</DOC>`)

// readTopics reads topics.cacm.txt: the whole text of a topic is its query.
func readTopics(tb testing.TB) []textDoc {
	tb.Helper()
	path := sharedData(tb, "cacm/topics.cacm.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []textDoc
	for _, m := range topicRE.FindAllStringSubmatch(string(b), -1) {
		out = append(out, textDoc{m[1], m[2]})
	}
	if len(out) == 0 {
		tb.Fatalf("read %s: no topics", path)
	}
	return out
}

// readQrels reads TREC qrels: topic -> relevant docids (relevance > 0).
func readQrels(tb testing.TB) map[string]map[string]bool {
	tb.Helper()
	path := sharedData(tb, "cacm/qrels.cacm.txt")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 {
			continue
		}
		rel, err := strconv.Atoi(fs[3])
		if err != nil {
			tb.Fatalf("read %s: %q: %v", path, sc.Text(), err)
		}
		if rel > 0 {
			if out[fs[0]] == nil {
				out[fs[0]] = map[string]bool{}
			}
			out[fs[0]][fs[2]] = true
		}
	}
	return out
}
