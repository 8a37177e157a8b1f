package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// TestMCPStdioPipelined: the official TypeScript client sends twelve
// calls at once to `situate mcp`; each gets its own answer.
func TestMCPStdioPipelined(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node (about 1 s)")
	}
	mcptest.SDKDir(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, filepath.Join(repoRoot(t), "examples", "corpus"))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{"Brightwater revenue", "harbour", "tide", "Logistik", "ingresos", "доход", "收入", "quarter", "report", "office", "revenue growth", "schedule"}
	var calls []mcptest.Call
	for _, q := range queries {
		calls = append(calls, mcptest.Call{Tool: "search", Arguments: map[string]any{"query": q, "k": 2}})
	}
	out := mcptest.Run(t, mcptest.Spec{Transport: "stdio", Command: self, Args: []string{"mcp", "--store", store},
		Env: map[string]string{"SITUATE_TEST_AS_MAIN": "1"}, Calls: calls, Pipelined: true})
	if out.Error != "" || len(out.Results) != len(queries) {
		t.Fatalf("pipelined: %d results for %d calls, error %q", len(out.Results), len(queries), out.Error)
	}
	for i, r := range out.Results {
		if r.IsError || !strings.Contains(r.Text, fmt.Sprintf("%q", queries[i])) {
			t.Errorf("call %d (%q): %s", i, queries[i], r.Text)
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

// TestMCPOverServeWithTypeScriptClient: the official TypeScript SDK's client
// reaches /mcp on a real `situate serve` with keys: a valid key lists the
// tools and searches its tenant as its principals; a missing, wrong or
// revoked key is refused with 401 before any tool runs; another tenant's
// key sees none of this tenant's documents.
func TestMCPOverServeWithTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("starts situate serve and node (a few seconds)")
	}
	mcptest.SDKDir(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	admin := createKey(t, dir, store, "--tenant", "acme", "--admin")
	finance := createKey(t, dir, store, "--tenant", "acme", "--principals", "finance")
	staff := createKey(t, dir, store, "--tenant", "acme", "--principals", "staff")
	other := createKey(t, dir, store, "--tenant", "globex", "--principals", "finance")
	revoked := createKey(t, dir, store, "--tenant", "acme", "--principals", "finance")
	id, _, _ := strings.Cut(strings.TrimPrefix(revoked, "sk_"), "_")
	mustRun(t, dir, "keys", "revoke", "--store", store, id)

	s := startServe(t, dir, store)
	s.upsert(t, admin, "notice.md", map[string]any{"title": "Harbour notice", "format": "markdown",
		"text": "# Harbour notice\n\nThe harbour office opens at nine every weekday."})
	s.upsert(t, admin, "deal.md", map[string]any{"title": "Harbour deal", "format": "markdown", "access": []string{"finance"},
		"text": "# Harbour deal\n\nThe harbour sale closes in March for twelve million."})

	calls := []mcptest.Call{
		{Tool: "search", Arguments: map[string]any{"query": "harbour", "k": 5}},
		{Tool: "fetch", Arguments: map[string]any{"doc": "deal.md"}},
	}
	for _, c := range []struct {
		name, key string
		docs      []string
	}{
		{"admin", admin, []string{"deal.md", "notice.md"}},
		{"finance", finance, []string{"deal.md", "notice.md"}},
		{"staff", staff, []string{"notice.md"}},
		{"other tenant", other, nil},
	} {
		out := mcptest.Run(t, mcptest.Spec{Transport: "http", URL: s.URL + "/mcp",
			Headers: map[string]string{"Authorization": "Bearer " + c.key}, Calls: calls})
		if out.Error != "" || len(out.Tools) != 3 || len(out.Results) != 2 {
			t.Fatalf("%s: error %q, %d tools, %d results\n%s", c.name, out.Error, len(out.Tools), len(out.Results), s.log())
		}
		var res struct {
			Results []struct {
				Doc string `json:"doc"`
			} `json:"results"`
		}
		if err := json.Unmarshal(out.Results[0].Structured, &res); err != nil {
			t.Fatal(err)
		}
		var docs []string
		for _, r := range res.Results {
			if !slices.Contains(docs, r.Doc) {
				docs = append(docs, r.Doc)
			}
		}
		slices.Sort(docs)
		if !slices.Equal(docs, c.docs) {
			t.Errorf("%s: search saw %v, want %v", c.name, docs, c.docs)
		}
		if readable := slices.Contains(c.docs, "deal.md"); readable == out.Results[1].IsError {
			t.Errorf("%s: fetch deal.md: error %v %s", c.name, out.Results[1].IsError, out.Results[1].Text)
		}
	}
	for name, headers := range map[string]map[string]string{
		"no key":      nil,
		"wrong key":   {"Authorization": "Bearer sk_0123456789abcdef_wrong"},
		"revoked key": {"Authorization": "Bearer " + revoked},
	} {
		out := mcptest.Run(t, mcptest.Spec{Transport: "http", URL: s.URL + "/mcp", Headers: headers, Calls: calls})
		if out.Status != http.StatusUnauthorized || len(out.Tools) > 0 || len(out.Results) > 0 {
			t.Errorf("%s: error %q status %d, %d tools, %d results; want a 401 before any tool", name, out.Error, out.Status, len(out.Tools), len(out.Results))
		}
	}
}

// TestMCPStdioSeesNewDocuments: `situate mcp` holds no lock (situate index
// runs beside it) and a tool call after the index changed sees the change.
func TestMCPStdioSeesNewDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("starts situate mcp (a second)")
	}
	ctx := context.Background()
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	write := func(name, text string) string {
		p := filepath.Join(dir, "docs", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, "docs")
	}
	docs := write("a.md", "# Anchor\n\nThe anchor chain is rusty.\n")
	mustRun(t, dir, "index", "--store", store, docs)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "mcp", "--store", store)
	cmd.Env = append(os.Environ(), "SITUATE_TEST_AS_MAIN=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	total := func() int {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_documents", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("list_documents: %v %+v", err, res)
		}
		var out struct {
			Total int `json:"total"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		return out.Total
	}
	if n := total(); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
	write("b.md", "# Buoy\n\nThe buoy light blinks green.\n")
	// The index run would wait for a writer's lock if situate mcp held one.
	done := make(chan struct{})
	go func() {
		defer close(done)
		mustRun(t, dir, "index", "--store", store, docs)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("situate index did not finish beside situate mcp within 60 s")
	}
	time.Sleep(1100 * time.Millisecond) // the reader reopens at most once a second
	if n := total(); n != 2 {
		t.Fatalf("after indexing another document: %d documents, want 2", n)
	}
}
