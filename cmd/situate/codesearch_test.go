package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"

	"github.com/situate/situate/eval"
	"github.com/situate/situate/internal/testskip"
)

// codeSearchGo is the Go release whose GOROOT/src the code-search set
// (bench/codesearch) was written against: the version go.mod pins.
const codeSearchGo = "go1.26.8"

const codeSearchDir = "../../bench/codesearch"

// codeSearchSrc returns $(go env GOROOT)/src, skipping unless it is codeSearchGo's.
func codeSearchSrc(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		testskip.Skipf(t, "go env: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		t.Fatalf("go env GOROOT GOVERSION: %q", out)
	}
	if f[1] != codeSearchGo {
		testskip.Skipf(t, "the code-search set is written against %s, this go is %s", codeSearchGo, f[1])
	}
	return filepath.Join(f[0], "src")
}

type codeSearchQuery struct {
	ID, Query, Doc, Answer, Lang string
}

func loadCodeSearch(t *testing.T) []codeSearchQuery {
	t.Helper()
	f, err := os.Open(filepath.Join(codeSearchDir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []codeSearchQuery
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q codeSearchQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("queries.jsonl line %d: %v", len(qs)+1, err)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return qs
}

// TestCodeSearchSet checks the code-search set against this machine's
// GOROOT: at least 60 questions with unique ids, each document inside the
// corpus that situate.toml selects, and each answer (the implementing
// function's signature) found exactly once in its document, so that a hit
// means the chunk defining that function. Halves hold about half each.
func TestCodeSearchSet(t *testing.T) {
	src := codeSearchSrc(t)
	qs := loadCodeSearch(t)
	if len(qs) < 60 {
		t.Fatalf("%d questions, want at least 60", len(qs))
	}
	var cfg struct{ Include, Exclude []string }
	if _, err := toml.DecodeFile(filepath.Join(codeSearchDir, "situate.toml"), &cfg); err != nil {
		t.Fatal(err)
	}
	selected := func(id string) bool {
		for _, p := range cfg.Exclude {
			if ok, _ := doublestar.Match(p, id); ok {
				return false
			}
		}
		for _, p := range cfg.Include {
			if ok, _ := doublestar.Match(p, id); ok {
				return true
			}
		}
		return false
	}
	ids := map[string]bool{}
	var evq []eval.Query
	for _, q := range qs {
		if q.ID == "" || q.Query == "" || q.Doc == "" || q.Answer == "" || q.Lang != "en" {
			t.Errorf("query %+v: a field is missing", q)
			continue
		}
		if ids[q.ID] {
			t.Errorf("query %s: duplicate id", q.ID)
		}
		ids[q.ID] = true
		evq = append(evq, eval.Query{ID: q.ID})
		if !selected(q.Doc) {
			t.Errorf("query %s: %s is not in the corpus situate.toml selects", q.ID, q.Doc)
		}
		if !strings.HasPrefix(q.Answer, "func ") {
			t.Errorf("query %s: answer %q is not a function signature", q.ID, q.Answer)
		}
		data, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(q.Doc)))
		if err != nil {
			t.Errorf("query %s: %v", q.ID, err)
			continue
		}
		if n := strings.Count(string(data), q.Answer); n != 1 {
			t.Errorf("query %s: %q occurs %d times in %s, want once", q.ID, q.Answer, n, q.Doc)
		}
	}
	tune, report := eval.Split(evq, "situate")
	if len(tune) != len(qs)/2 || len(report) != len(qs)-len(qs)/2 {
		t.Errorf("halves %d/%d of %d questions", len(tune), len(report), len(qs))
	}
}

// TestEvalAnswersIncludeLeavesOutQuestionDoc: eval --format answers indexes
// what --include/--exclude select, and refuses a question whose document they
// leave out (it could never be answered) naming the question and document.
func TestEvalAnswersIncludeLeavesOutQuestionDoc(t *testing.T) {
	var stdout, stderr strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(string) string { return "" }, workDir: t.TempDir()}
	code := Main(t.Context(), e, []string{"eval", "--format", "answers", "--docs", "../../examples/corpus",
		"--queries", "../../examples/corpus/queries.jsonl", "--exclude", "**/*.md", "--configs", "raw"})
	if code != exitUsage {
		t.Fatalf("exit %d, want %d (usage)\n%s", code, exitUsage, stderr.String())
	}
	if !strings.Contains(stderr.String(), "is not indexed") || !strings.Contains(stderr.String(), ".md") {
		t.Errorf("stderr does not name the left-out document: %s", stderr.String())
	}
}

// TestEvalCodeSearch runs the code-search set's report half through
// situate eval with the product's defaults (offline contexts) and checks the
// figures recorded in EVAL.md ("Code search on GOROOT": hit@1 0.3684, hit@5
// 0.6667, MRR@10 0.4977), allowing one question of the 57 to move.
func TestEvalCodeSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 1,372 files of GOROOT/src: not with -short")
	}
	src := codeSearchSrc(t)
	rs := evalJSON(t, "--format", "answers", "--docs", src,
		"--queries", filepath.Join(codeSearchDir, "queries.jsonl"),
		"--config", filepath.Join(codeSearchDir, "situate.toml"),
		"--configs", "offline", "--half", "report")
	m := rs["offline"].Metrics
	t.Logf("report half, offline: hit@1 %.4f hit@5 %.4f MRR@10 %.4f", m["hit@1"], m["hit@5"], m["mrr@10"])
	const slack = 1.0 / 57
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"hit@1", m["hit@1"], 0.3684}, {"hit@5", m["hit@5"], 0.6667}, {"MRR@10", m["mrr@10"], 0.4977}} {
		if c.got < c.want-slack {
			t.Errorf("%s %.4f, below the recorded %.4f by more than one question", c.name, c.got, c.want)
		}
	}
}
