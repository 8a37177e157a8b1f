package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/situate/situate/httpapi"
)

func TestList(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.jsonl")
	lines := []string{
		`{"id": "a-2019", "title": "Returns", "text": "Returns are free within thirty days of delivery.", "metadata": {"year": "2019"}}`,
		`{"id": "b-2021", "title": "Shipping", "text": "Shipping takes three to five working days.", "metadata": {"year": "2021"}}`,
		`{"id": "c-2023", "text": "Warranty claims need the original receipt.", "metadata": {"year": "2023"}, "access": ["staff"]}`,
		// An id that could forge an output line is quoted in human output.
		`{"id": "d\nforged 1 1", "title": "Evil", "text": "Nothing to see here at all."}`,
	}
	if err := os.WriteFile(docs, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, docs)

	out, _ := mustRun(t, dir, "ls", "--store", store)
	for _, want := range []string{"a-2019", "Returns", "b-2021", "c-2023", `"d\nforged 1 1"`, "VERSION"} {
		if !strings.Contains(out, want) {
			t.Errorf("ls output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 5 { // header + 4 documents
		t.Errorf("ls printed %d lines, want 5:\n%s", n, out)
	}

	list := func(args ...string) (int, []string) {
		t.Helper()
		out, _ := mustRun(t, dir, append([]string{"ls", "--store", store, "--json"}, args...)...)
		var res struct {
			Total     int                `json:"total"`
			Documents []httpapi.Document `json:"documents"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("ls --json: %v\n%s", err, out)
		}
		var ids []string
		for _, d := range res.Documents {
			if d.Chunks < 1 || d.Version != 1 || d.IndexedAt.IsZero() {
				t.Errorf("ls --json: document %+v lacks chunks, version or time", d)
			}
			ids = append(ids, d.ID)
		}
		return res.Total, ids
	}
	check := func(gotTotal int, got []string, total int, want ...string) {
		t.Helper()
		if gotTotal != total || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("got total %d %q, want %d %q", gotTotal, got, total, want)
		}
	}
	total, ids := list("--limit", "2", "--offset", "1")
	check(total, ids, 4, "b-2021", "c-2023")
	total, ids = list("--offset", "9")
	check(total, ids, 4)
	total, ids = list("--filter", `{"metadata":{"year":{"gte":2021}}}`)
	check(total, ids, 2, "b-2021", "c-2023")
	total, ids = list("--filter", `{"docs":["a-2019","c-2023"]}`, "--as", "guest")
	check(total, ids, 1, "a-2019")

	out, _ = mustRun(t, dir, "ls", "--store", store, "--limit", "1", "--offset", "1")
	if !strings.Contains(out, "2-2 of 4 documents") {
		t.Errorf("a page does not say which part of the listing it is:\n%s", out)
	}

	// Bad input names the flag and the field; no store is a clear error.
	code, _, errOut := run(t, dir, "ls", "--store", store, "--filter", `{"metadata":{"year":{"gte":true}}}`)
	if code != exitUsage || !strings.Contains(errOut, "--filter") || !strings.Contains(errOut, "year") {
		t.Errorf("bad filter: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = run(t, dir, "ls", "--store", store, "--limit", "-1")
	if code != exitUsage || !strings.Contains(errOut, "--limit") {
		t.Errorf("negative limit: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = run(t, dir, "ls", "--store", filepath.Join(dir, "none"))
	if code != exitFailure || !strings.Contains(errOut, "no store at") {
		t.Errorf("missing store: exit %d, stderr %q", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	out, _ := mustRun(t, t.TempDir(), "version")
	if !regexp.MustCompile(`^situate \S+ \(github.com/situate/situate\)\n`).MatchString(out) || !strings.Contains(out, runtime.Version()) {
		t.Errorf("version output:\n%s", out)
	}
	out, _ = mustRun(t, t.TempDir(), "version", "--json")
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Go != runtime.Version() || v.Module == "" {
		t.Errorf("version --json: %v\n%s", err, out)
	}
	if code, _, _ := run(t, t.TempDir(), "version", "extra"); code != exitUsage {
		t.Errorf("version with an argument: exit %d, want %d", code, exitUsage)
	}
}
