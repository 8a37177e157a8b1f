package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/internal/llamatest"
	"github.com/situate/situate/provider/anthropic/anthropictest"
	"github.com/situate/situate/questions"
)

// fakeQuestion answers a question-generation prompt as a well-behaved model
// would: a question in the prompt's language naming a number, and the
// first line of the chunk with at least four words as the answer.
func fakeQuestion(_ string, blocks []string) string {
	suffix := blocks[len(blocks)-1]
	ch := suffix
	if i := strings.Index(ch, "\n<chunk>\n"); i >= 0 {
		ch = ch[i+len("\n<chunk>\n"):]
		ch = ch[:strings.LastIndex(ch, "\n</chunk>\n")]
	}
	ans := strings.TrimSpace(ch)
	for _, l := range strings.Split(ch, "\n") {
		if l = strings.TrimSpace(l); len(strings.Fields(l)) >= 4 || (len([]rune(l)) >= 12 && !strings.Contains(l, " ")) {
			ans = l
			break
		}
	}
	n := len(ch)
	q := fmt.Sprintf("Which part of the collection explains the topic number %d?", n)
	switch {
	case strings.HasPrefix(suffix, "Hier ist"):
		q = fmt.Sprintf("Welcher Teil der Sammlung erklärt das Thema Nummer %d?", n)
	case strings.HasPrefix(suffix, "Este es"):
		q = fmt.Sprintf("¿Qué parte de la colección explica el tema número %d?", n)
	case strings.HasPrefix(suffix, "Вот"):
		q = fmt.Sprintf("Какая часть коллекции объясняет тему номер %d?", n)
	case strings.HasPrefix(suffix, "以下"):
		q = fmt.Sprintf("文档集中哪一部分解释了第%d个主题？", n)
	}
	return "QUESTION: " + q + "\nANSWER: " + strings.Trim(ans, "\"“”«»「」")
}

// TestEvalGenerate runs "situate eval --generate" against the fake
// Anthropic API over examples/corpus, then runs the written file through
// "situate eval --format answers --compare"; a second run with the same
// seed writes the same bytes.
func TestEvalGenerate(t *testing.T) {
	srv := anthropictest.NewServer(anthropictest.Config{APIKey: "test-key", Generate: fakeQuestion,
		MinCacheTokens: func(string) int { return 1 }})
	defer srv.Close()
	work := t.TempDir()
	envVars := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	run := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
			getenv: func(k string) string { return envVars[k] }, workDir: work}
		if code := Main(context.Background(), e, args); code != exitOK {
			t.Fatalf("situate %s: exit %d\n%s\n%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	corpus, _ := filepath.Abs(filepath.Join("..", "..", "examples", "corpus"))
	out, _ := run("eval", "--generate", "30", "--llm", "anthropic:claude-haiku-4-5", "--chunk-size", "120",
		"--seed", "5", "--out", "q1.jsonl", corpus)
	t.Log(out)
	if !strings.Contains(out, "questions kept of 30 generated") {
		t.Errorf("summary: %s", out)
	}
	first, err := os.ReadFile(filepath.Join(work, "q1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(first, []byte("\n"))
	if lines < 20 {
		t.Errorf("only %d questions kept of 30:\n%s", lines, first)
	}
	if rep, err := os.ReadFile(filepath.Join(work, "q1.md")); err != nil || !bytes.Contains(rep, []byte("| wrong-language |")) ||
		!bytes.Contains(rep, []byte("Contextualizing the whole corpus")) {
		t.Errorf("report: %v\n%s", err, rep)
	} else {
		t.Logf("q1.md:\n%s", rep)
	}
	// A budget below the projected cost refuses before any call.
	before := srv.Stats().Messages
	var so, se bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &so, stderr: &se, getenv: func(k string) string { return envVars[k] }, workDir: work}
	if code := Main(context.Background(), e, []string{"eval", "--generate", "30", "--llm", "anthropic:claude-haiku-4-5",
		"--max-cost", "0.0001", "--out", "q0.jsonl", corpus}); code != exitFailure || !strings.Contains(se.String(), "exceeds --max-cost") {
		t.Errorf("--max-cost 0.0001: exit %d\n%s", code, se.String())
	}
	if _, err := os.Stat(filepath.Join(work, "q0.jsonl")); err == nil || srv.Stats().Messages != before {
		t.Errorf("a refused run wrote a file or called the model (%d calls)", srv.Stats().Messages-before)
	}
	if st := srv.Stats(); st.Messages != 30 || st.CacheReads == 0 {
		t.Errorf("%d messages, %d cache reads", st.Messages, st.CacheReads)
	}
	run("eval", "--generate=30", "--llm", "anthropic:claude-haiku-4-5", "--chunk-size", "120",
		"--seed", "5", "--out", "q2.jsonl", corpus)
	second, err := os.ReadFile(filepath.Join(work, "q2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("same seed, same model outputs, different files:\n%s\n---\n%s", first, second)
	}
	res, _ := run("eval", "--format", "answers", "--docs", corpus, "--queries", filepath.Join(work, "q1.jsonl"), "--compare",
		"--report", filepath.Join(work, "report"))
	t.Log(res)
	rep, err := os.ReadFile(filepath.Join(work, "report", "report.md"))
	if err != nil || !bytes.Contains(rep, []byte("## Confidence intervals")) || !bytes.Contains(rep, []byte("| offline ")) {
		t.Errorf("eval report lacks the bootstrap intervals: %v\n%s", err, rep)
	}
	t.Logf("report.md:\n%s", rep)
	if !strings.Contains(res, fmt.Sprintf("%d queries", lines)) || !strings.Contains(res, "offline") {
		t.Errorf("eval on the generated file:\n%s", res)
	}
}

// TestEvalGenerateUsage checks the command's refusals.
func TestEvalGenerateUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(string) string { return "" }, workDir: t.TempDir()}
	for _, args := range [][]string{
		{"eval", "--generate", "0", "--llm", "anthropic:x", "."},
		{"eval", "--generate", "5", "."},
		{"eval", "--generate", "5", "--llm", "anthropic:x", "generate_test.go"},
	} {
		stderr.Reset()
		if code := Main(context.Background(), e, args); code != exitUsage {
			t.Errorf("%v: exit %d, want usage\n%s", args, code, stderr.String())
		}
	}
}

// TestEvalGenerateFromStore generates from an indexed store (no PATH): the
// documents are re-read from the files the store names, and every call lands
// in the store's usage ledger under operation "question".
func TestEvalGenerateFromStore(t *testing.T) {
	srv := anthropictest.NewServer(anthropictest.Config{APIKey: "test-key", Generate: fakeQuestion})
	defer srv.Close()
	work := t.TempDir()
	envVars := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
			getenv: func(k string) string { return envVars[k] }, workDir: work}
		if code := Main(context.Background(), e, args); code != exitOK {
			t.Fatalf("situate %s: exit %d\n%s\n%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	corpus, _ := filepath.Abs(filepath.Join("..", "..", "examples", "multilingual"))
	run("index", corpus)
	out := run("eval", "--generate", "12", "--llm", "anthropic:claude-haiku-4-5", "--out", "q.jsonl")
	if !strings.Contains(out, "of 12 generated") {
		t.Errorf("summary: %s", out)
	}
	usage := run("usage")
	if !strings.Contains(usage, "question") {
		t.Errorf("usage does not list the generation's calls:\n%s", usage)
	}
	t.Log(usage)
}

// TestLlamaGenerate runs "situate eval --generate" against the real
// llama-server the tests build, serving a tiny random-weight model. Its
// questions are nonsense; a grammar holds them to the two-line format (an
// English question naming a number, and "the" as the answer, which every
// English chunk holds), so the test checks the plumbing, the counts and the
// file format, and that "eval --format answers --compare" runs on the file.
func TestLlamaGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs llama-server")
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	copyTree(t, filepath.Join(repoRoot(t), "examples", "corpus", "en"), corpus)
	s := startLlama(t, llamatest.Options{})
	grammar := `{"grammar": "root ::= \"QUESTION: What about item \" [1-9] [0-9] [0-9] [0-9] \"?\\nANSWER: the\""}`
	code, out, errOut := runMain(context.Background(), dir, "eval", "--generate", "8", "--llm", "llamacpp",
		"--llm-base-url", s.BaseURL, "--llm-extra", grammar, "--llm-max-tokens", "48", "--out", "q.jsonl", corpus)
	t.Logf("exit %d\n%s\n%s", code, out, tail(errOut, 800))
	if code != exitOK {
		t.Fatalf("generate: exit %d", code)
	}
	data, err := os.ReadFile(filepath.Join(dir, "q.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	items, err := questions.ReadDataset(bytes.NewReader(data), "q.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var kept, generated int
	if _, err := fmt.Sscanf(out, "%d questions kept of %d generated", &kept, &generated); err != nil || kept != len(items) || generated != 8 {
		t.Errorf("summary %q: kept %d (file has %d), generated %d (want 8)", out, kept, len(items), generated)
	}
	if len(items) == 0 {
		t.Fatal("no question kept")
	}
	for _, it := range items {
		if it.Answer != "the" || !strings.HasPrefix(it.Question, "What about item ") || it.Doc == "" || it.End <= it.Start {
			t.Errorf("item %+v", it)
		}
	}
	code, out, errOut = runMain(context.Background(), dir, "eval", "--format", "answers", "--docs", corpus,
		"--queries", filepath.Join(dir, "q.jsonl"), "--compare")
	if code != exitOK || !strings.Contains(out, fmt.Sprintf("%d queries", len(items))) {
		t.Errorf("eval on the generated file: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestReviewItems: y and an empty line keep, n drops, q keeps the rest
// unreviewed, and so does the end of input.
func TestReviewItems(t *testing.T) {
	items := []questions.Item{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}, {ID: "e"}}
	ids := func(its []questions.Item) string {
		var s []string
		for _, it := range its {
			s = append(s, it.ID)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct{ in, want string }{
		{"y\nn\n\nN\nyes\n", "a,c,e"},
		{"n\nq\n", "b,c,d,e"},
		{"n\n", "b,c,d,e"},
		{"n\nn\nn\nn\nn\n", ""},
	} {
		var out bytes.Buffer
		got, err := reviewItems(strings.NewReader(c.in), &out, items)
		if err != nil || ids(got) != c.want {
			t.Errorf("input %q: kept %s, want %s (%v)", c.in, ids(got), c.want, err)
		}
		if !strings.Contains(out.String(), "keep? [y/n/q]") {
			t.Errorf("no prompt shown:\n%s", out.String())
		}
	}
}
