package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/situate/situate/internal/mcptest"
)

// TestMCPStdioWithTypeScriptClient: the official TypeScript SDK's client
// starts `situate mcp` (this test binary re-executed as situate), lists the
// tools and searches; with --as it sees only what those principals may read.
func TestMCPStdioWithTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node (about 1 s)")
	}
	mcptest.SDKDir(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	jsonl := filepath.Join(dir, "docs.jsonl")
	lines := []string{
		`{"id":"open","title":"Harbour notice","text":"The harbour office opens at nine every weekday."}`,
		`{"id":"secret","title":"Harbour deal","text":"The harbour sale closes in March for twelve million.","access":["board"]}`,
	}
	if err := os.WriteFile(jsonl, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "index", "--store", store, jsonl)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	calls := []mcptest.Call{
		{Tool: "search", Arguments: map[string]any{"query": "harbour", "k": 5}},
		{Tool: "list_documents"},
	}
	for _, c := range []struct {
		args []string
		docs []string
	}{
		{nil, []string{"open", "secret"}},
		{[]string{"--as", "board"}, []string{"open", "secret"}},
		{[]string{"--as", "staff"}, []string{"open"}},
	} {
		args := append([]string{"mcp", "--store", store}, c.args...)
		out := mcptest.Run(t, mcptest.Spec{Transport: "stdio", Command: self, Args: args,
			Env: map[string]string{"SITUATE_TEST_AS_MAIN": "1"}, Calls: calls})
		if out.Error != "" {
			t.Fatalf("situate %v: %s", args, out.Error)
		}
		if len(out.Tools) != 3 || len(out.Results) != 2 {
			t.Fatalf("situate %v: %d tools, %d results", args, len(out.Tools), len(out.Results))
		}
		var res struct {
			Results []struct {
				Doc     string `json:"doc"`
				Text    string `json:"text"`
				Context struct {
					Text      string `json:"text"`
					WrittenBy string `json:"written_by"`
				} `json:"generated_context"`
			} `json:"results"`
		}
		if err := json.Unmarshal(out.Results[0].Structured, &res); err != nil {
			t.Fatal(err)
		}
		var docs []string
		for _, r := range res.Results {
			docs = append(docs, r.Doc)
			if r.Context.WrittenBy != "offline" || r.Context.Text == "" || strings.Contains(r.Text, r.Context.Text) {
				t.Errorf("situate %v: result %s: context not apart or not labelled: %+v", args, r.Doc, r.Context)
			}
		}
		slices.Sort(docs)
		if !slices.Equal(docs, c.docs) {
			t.Errorf("situate %v: search saw %v, want %v", args, docs, c.docs)
		}
		if !strings.Contains(out.Results[1].Text, "document") {
			t.Errorf("situate %v: list_documents: %s", args, out.Results[1].Text)
		}
	}
}

func TestMCPBadUsage(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, dir, "mcp", "--store", filepath.Join(dir, "none")); code != exitFailure || !strings.Contains(errOut, "no store at") {
		t.Fatalf("mcp on a missing store: exit %d, %s", code, errOut)
	}
	if code, _, errOut := run(t, dir, "mcp", "extra"); code != exitUsage || !strings.Contains(errOut, "unexpected arguments") {
		t.Fatalf("mcp with an argument: exit %d, %s", code, errOut)
	}
}
