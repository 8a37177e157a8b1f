package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sourcegraph/zoekt/search"
)

func TestKeywords(t *testing.T) {
	got := strings.Join(keywords("How does the HTTP client limit redirects? The client's limit_redirects, io", 3), " ")
	if want := "http client limit redirects limit_redirects"; got != want {
		t.Errorf("keywords = %q, want %q", got, want)
	}
	if got := strings.Join(keywords("How does the HTTP client limit redirects?", 6), " "); got != "client redirects" {
		t.Errorf("keywords of 6 letters or more = %q", got)
	}
}

// TestSituateRanks reads situate eval --per-query output and ranks the
// right file among distinct files and the answer chunk among chunks.
func TestSituateRanks(t *testing.T) {
	out := `== offline
q1 [answer]  pass@20 100.00  mrr@10 0.3333  "how"
  golden:    a/b.go ∋ "func f("
  found:     a/b.go ∋ "func f("
  missed:
  retrieved: x.go#3 a/b.go#0 x.go#1 a/b.go#2 (answer) y.go#0
q2 [answer]  pass@20 0.00  mrr@10 0.0000  "other"
  golden:    c.go ∋ "func g("
  found:
  missed:    c.go ∋ "func g("
  retrieved: x.go#3
`
	path := filepath.Join(t.TempDir(), "perquery.txt")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, order, err := readSituate(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "q1,q2" {
		t.Fatalf("order = %v", order)
	}
	if r := situateRanks(question{ID: "q1", Doc: "a/b.go"}, runs["q1"]); r != (ranks{file: 2, chunk: 4}) {
		t.Errorf("q1 ranks = %+v, want file 2 chunk 4", r)
	}
	if r := situateRanks(question{ID: "q2", Doc: "c.go"}, runs["q2"]); r != (ranks{}) {
		t.Errorf("q2 ranks = %+v, want none", r)
	}
}

// TestZoektChunkWindow indexes two real files with Zoekt's builder and checks
// the chunk-level judging: a hit only when Zoekt's best line in the right
// file is within ±18 lines of the answer.
func TestZoektChunkWindow(t *testing.T) {
	docs := t.TempDir()
	var near, far strings.Builder
	near.WriteString("package p\n\n// parseWidget reads a widget header.\nfunc parseWidget(s string) int {\n\treturn len(s) // widget header parse\n}\n")
	far.WriteString("package q\n\nfunc parseGadget() {}\n")
	for range 60 {
		far.WriteString("// filler\n")
	}
	far.WriteString("// widget header parse widget header\nfunc other() {}\n")
	for name, text := range map[string]string{"p/near.go": near.String(), "q/far.go": far.String()} {
		if err := os.MkdirAll(filepath.Join(docs, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(t.TempDir(), "index")
	// Without ctags: the judging, not Zoekt's symbol boosts, is tested.
	if err := build(idx, docs, "", "none"); err != nil {
		t.Fatal(err)
	}
	s, err := search.NewDirectorySearcher(idx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	q := question{ID: "w", Query: "where is the widget header parsed", Doc: "q/far.go", Answer: "func parseGadget("}
	needle, err := needleLine(docs, q)
	if err != nil {
		t.Fatal(err)
	}
	if needle != 3 {
		t.Fatalf("needle line = %d, want 3", needle)
	}
	r, err := zoektRanks(ctx, s, q, needle, "bm25")
	if err != nil {
		t.Fatal(err)
	}
	if r.file == 0 || r.chunk != 0 {
		t.Errorf("far answer: ranks %+v, want the file found and no chunk hit (best line 60 lines away)", r)
	}
	q = question{ID: "n", Query: "where is the widget header parsed", Doc: "p/near.go", Answer: "func parseWidget("}
	if needle, err = needleLine(docs, q); err != nil {
		t.Fatal(err)
	}
	if r, err = zoektRanks(ctx, s, q, needle, "bm25"); err != nil {
		t.Fatal(err)
	}
	if r.file == 0 || r.chunk != r.file {
		t.Errorf("near answer: ranks %+v, want a chunk hit at the file's rank", r)
	}
}
