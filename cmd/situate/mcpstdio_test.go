package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/internal/mcptest"
)

// mcpStdioStore indexes two small documents for the stdio tests.
func mcpStdioStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	jsonl := filepath.Join(dir, "docs.jsonl")
	lines := `{"id":"harbour","title":"Harbour notice","text":"The harbour office opens at nine every weekday."}
{"id":"anchor","title":"Anchor","text":"The anchor chain is rusty and needs oil."}
`
	if err := os.WriteFile(jsonl, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "index", "--store", store, jsonl)
	return store
}

// TestMCPStdioRawInput feeds `situate mcp` (this binary re-executed) raw
// lines on a pipe that closes after the last one, as `printf ... | situate
// mcp` does: malformed and invalid lines are answered with JSON-RPC errors
// and the server goes on; every request read gets exactly one reply, also
// the ones still running when stdin closed.
func TestMCPStdioRawInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts situate mcp")
	}
	store := mcpStdioStore(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	huge := `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"search","arguments":{"query":"harbour ` +
		strings.Repeat("x", 3<<20) + `"}}}`
	input := []string{
		`this is not json {`,
		``,
		`   `,
		`[{"jsonrpc":"2.0","id":90,"method":"ping"}]`,
		`"a string"`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"1.0","id":91,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"harbour"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"anchor"}}}`,
		`{"broken": `,
		`{"jsonrpc":"2.0","id":"four","method":"tools/list"}`,
		huge,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_documents","arguments":{}}}`,
	}
	cmd := exec.Command(self, "mcp", "--store", store)
	cmd.Env = append(os.Environ(), "SITUATE_TEST_AS_MAIN=1")
	cmd.Stdin = strings.NewReader(strings.Join(input, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("situate mcp: %v\n%s", err, stderr.String())
	}
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	got := map[string][]reply{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q: %v", line, err)
		}
		got[string(r.ID)] = append(got[string(r.ID)], r)
	}
	codes := func(id string) []int {
		var c []int
		for _, r := range got[id] {
			if r.Error == nil {
				c = append(c, 0)
			} else {
				c = append(c, r.Error.Code)
			}
		}
		return c
	}
	// id null: the malformed line, the JSON string and the truncated object.
	// A batch is answered request by request. The huge query's reply is the
	// tool's refusal (queries are limited), but it is a reply.
	want := map[string][]int{
		"null": {-32700, -32600, -32700},
		"90":   {0}, "91": {-32600},
		"1": {0}, "2": {0}, "3": {0}, `"four"`: {0}, `"huge"`: {0}, "5": {0},
	}
	for id, w := range want {
		if g := codes(id); !equalInts(g, w) {
			t.Errorf("replies to id %s: codes %v, want %v", id, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("replies for %d ids, want %d: %s", len(got), len(want), stdout.String())
	}
	for _, id := range []string{"2", "3"} {
		if rs := got[id]; len(rs) == 1 && !bytes.Contains(rs[0].Result, []byte(`"doc":`)) {
			t.Errorf("search %s found nothing: %s", id, rs[0].Result)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMCPStdioPipelinedStdinClosed: the official TypeScript SDK's
// client sends several calls at once and closes situate mcp's stdin before
// any reply; every call is answered.
func TestMCPStdioPipelinedStdinClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node (about 1 s)")
	}
	mcptest.SDKDir(t)
	store := mcpStdioStore(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var calls []mcptest.Call
	for _, q := range []string{"harbour", "anchor", "oil", "weekday", "nine"} {
		calls = append(calls, mcptest.Call{Tool: "search", Arguments: map[string]any{"query": q, "k": 3}})
	}
	calls = append(calls, mcptest.Call{Tool: "list_documents"})
	out := mcptest.Run(t, mcptest.Spec{Transport: "stdio", Command: self, Args: []string{"mcp", "--store", store},
		Env: map[string]string{"SITUATE_TEST_AS_MAIN": "1"}, Calls: calls, Pipelined: true, CloseStdin: true})
	if out.Error != "" {
		t.Fatalf("pipelined calls: %s", out.Error)
	}
	if len(out.Results) != len(calls) {
		t.Fatalf("%d results, want %d", len(out.Results), len(calls))
	}
	for i, r := range out.Results[:5] {
		if r.IsError || !strings.Contains(r.Text, "anchor") && !strings.Contains(r.Text, "harbour") {
			t.Errorf("call %d (%v): %+v", i, calls[i].Arguments, r)
		}
	}
}
