package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/mcpserver"
)

// TestStdioTransportBadClient feeds the stdio transport raw input as a bad
// client would: a line that is not JSON, one that is JSON but no JSON-RPC
// message, a blank line, a line over the limit, and requests sent at once
// with the input closed right after them. Every bad line gets its JSON-RPC
// error, the server reads on, and every request is answered before Run
// returns.
func TestStdioTransportBadClient(t *testing.T) {
	eng := newEngine(t)
	server := mcpserver.New(mcpserver.Scope{Engine: eng, Unrestricted: true}, mcpserver.Options{})
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json at all`,
		`{"foo":1,"id":7}`,
		``,
		`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":` + strings.Repeat(" ", 2000) + `{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"harbour","k":1}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_documents","arguments":{}}}`,
		`[{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":92}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`"just a string"`,
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr := &mcpserver.StdioTransport{Reader: strings.NewReader(strings.Join(lines, "\n") + "\n"), Writer: &out, MaxLine: 1024}
	if err := server.Run(ctx, tr); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("run: %v", err)
	}
	type reply struct {
		ID     any `json:"id"`
		Error  *struct{ Code int }
		Result json.RawMessage `json:"result"`
	}
	byID := map[string]reply{}
	var parseErrors int
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("reply %q: %v", l, err)
		}
		if r.ID == nil {
			// -32700 for the line that is not JSON and the one over the
			// limit; -32600 (id null) for the object id and the string.
			if r.Error == nil || r.Error.Code != -32700 && r.Error.Code != -32600 {
				t.Errorf("reply without id: %s", l)
			}
			parseErrors++
			continue
		}
		id, _ := json.Marshal(r.ID)
		if _, dup := byID[string(id)]; dup {
			t.Errorf("two replies for id %s", id)
		}
		byID[string(id)] = r
	}
	if strings.Contains(out.String(), "map[") || strings.Contains(out.String(), "Go value") || strings.Contains(out.String(), "interface {}") {
		t.Errorf("an error names Go types:\n%s", out.String())
	}
	if r, ok := byID["92"]; !ok || r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("id 92 (neither request nor response): %+v, want -32600", r)
	}
	if parseErrors != 4 {
		t.Errorf("%d errors without id, want 4 (the line that is not JSON, the line over the limit, the object id, the string):\n%s", parseErrors, out.String())
	}
	if r, ok := byID["7"]; !ok || r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("id 7 (no JSON-RPC version): %+v, want -32600", r)
	}
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		if r, ok := byID[id]; !ok || r.Error != nil || len(r.Result) == 0 {
			t.Errorf("request %s: %+v (answered %v), want a result", id, r, ok)
		}
	}
	if _, ok := byID["8"]; ok {
		t.Error("the line over the limit was answered as a request")
	}
}
