package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/internal/shareddata"
)

// run calls Main in-process, as a user would call the binary, and returns
// the exit code with stdout and stderr.
func run(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(string) string { return "" }, workDir: dir}
	code := Main(context.Background(), e, args)
	return code, stdout.String(), stderr.String()
}

func mustRun(t *testing.T, dir string, args ...string) (string, string) {
	t.Helper()
	code, out, errOut := run(t, dir, args...)
	if code != exitOK {
		t.Fatalf("situate %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out, errOut
}

// searchResult is one result of "situate search --json": the HTTP API's shape.
type searchResult = httpapi.SearchResult

type jsonSearch struct {
	Query   string         `json:"query"`
	Results []searchResult `json:"results"`
}

func search(t *testing.T, dir, store string, k int, query string, extra ...string) jsonSearch {
	t.Helper()
	args := append([]string{"search", "--store", store, "--json", "-k", itoa(k)}, extra...)
	args = append(args, query)
	out, _ := mustRun(t, dir, args...)
	var res jsonSearch
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search --json output is not JSON: %v\n%s", err, out)
	}
	return res
}

func itoa(n int) string { return strconv.Itoa(n) }

// repoRoot walks up to go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	return shareddata.Root(t)
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestUsageExitCodes(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, exitUsage},
		{[]string{"nosuchcommand"}, exitUsage},
		{[]string{"index"}, exitUsage},
		{[]string{"index", "--chunk-size", "abc", "x"}, exitUsage},
		{[]string{"search", "--store", filepath.Join(dir, "none"), "query"}, exitFailure},
		{[]string{"search", "--nosuchflag", "q"}, exitUsage},
		{[]string{"index", "--help"}, exitOK},
		{[]string{"help", "search"}, exitOK},
	} {
		code, _, errOut := run(t, dir, tc.args...)
		if code != tc.code {
			t.Errorf("situate %v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errOut)
		}
	}
}

func TestHelpOnEveryCommand(t *testing.T) {
	for _, c := range commands {
		code, out, _ := run(t, t.TempDir(), c.name, "--help")
		if code != exitOK || !strings.Contains(out, "Usage: situate "+c.name) {
			t.Errorf("situate %s --help: exit %d, output %q", c.name, code, out)
		}
	}
}

func TestConfigOrigins(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "st")
	os.MkdirAll(store, 0o755)
	os.WriteFile(filepath.Join(store, "situate.toml"), []byte("chunk-size = 300\nbm25-k1 = 0.9\n"), 0o644)
	out, _ := mustRun(t, dir, "config", "--store", store, "--bm25-k1", "1.5")
	for _, want := range []string{
		`chunk-size       = "300"`, "# config " + filepath.Join(store, "situate.toml"),
		`bm25-k1          = "1.5"`, "# flag",
		`chunk-overlap    = "50"`, "# default",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config output lacks %q:\n%s", want, out)
		}
	}
	os.WriteFile(filepath.Join(store, "situate.toml"), []byte("chunk-sise = 300\n"), 0o644)
	code, _, errOut := run(t, dir, "config", "--store", store)
	if code != exitUsage || !strings.Contains(errOut, `unknown setting "chunk-sise"`) || !strings.Contains(errOut, "situate.toml") {
		t.Errorf("unknown key: exit %d, stderr %q", code, errOut)
	}
}
