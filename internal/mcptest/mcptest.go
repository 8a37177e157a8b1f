package mcptest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"github.com/situate/situate/internal/testskip"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Environment variables read by Run.
const (
	// EnvSDK names the directory scripts/fetch-mcp-sdk.sh installed the SDK
	// into (it holds node_modules/@modelcontextprotocol/sdk).
	EnvSDK = "SITUATE_MCP_SDK"
	// EnvRequire, when set to anything, turns a missing node or SDK into a
	// test failure instead of a skip (CI sets it).
	EnvRequire = "SITUATE_REQUIRE_NODE"
)

//go:embed client.mjs
var clientScript []byte

// Spec is what the client does: connect over one transport, list the tools,
// then make each call in order.
type Spec struct {
	// Transport is "stdio" or "http".
	Transport string `json:"transport"`
	// Command, Args and Env start the server (stdio); Env adds to the test's
	// environment.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// URL and Headers reach the server (http).
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Calls   []Call            `json:"calls,omitempty"`
	// Pipelined sends every call at once and waits for all the answers
	// (results keep the calls' order).
	Pipelined bool `json:"pipelined,omitempty"`
	// CloseStdin (stdio, with Pipelined) closes the server's stdin right
	// after the last call is written, before any answer, as the end of
	// `printf ... | situate mcp` does.
	CloseStdin bool `json:"closeStdin,omitempty"`
}

// Call is one tools/call.
type Call struct {
	Tool      string `json:"tool"`
	Arguments any    `json:"arguments,omitempty"`
}

// Output is what the client saw.
type Output struct {
	Server *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server"`
	Tools   []Tool       `json:"tools"`
	Results []CallResult `json:"results"`
	// Error is the first error the client met (connecting, listing or
	// calling); Status is the HTTP status when the transport saw one.
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// Tool is one listed tool.
type Tool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// CallResult is one tool result: its text content and structured content.
type CallResult struct {
	IsError    bool            `json:"isError"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
}

// SDKDir returns the directory holding the SDK's node_modules, or skips the
// test (fails it when SITUATE_REQUIRE_NODE is set) when node or the SDK is
// missing.
func SDKDir(t testing.TB) string {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf(format+" (%s is set)", append(args, EnvRequire)...)
		}
		testskip.Skipf(t, format, args...)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("node not found: the MCP client test needs Node.js")
	}
	dir := os.Getenv(EnvSDK)
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			missing("no home directory for the MCP SDK cache: %v", err)
		}
		dir = filepath.Join(home, ".cache", "situate", "mcp-sdk-node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("the MCP TypeScript SDK is not installed in %s: run scripts/fetch-mcp-sdk.sh (%v)", dir, err)
	}
	return dir
}

// Run runs the client with spec and returns what it printed. The client
// script is written into a temporary directory beside a link to the SDK's
// node_modules, so node resolves the SDK from there.
func Run(t testing.TB, spec Spec) Output {
	t.Helper()
	sdk := SDKDir(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "client.mjs")
	if err := os.WriteFile(script, clientScript, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(sdk, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	arg, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, string(arg))
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var out Output
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("node client printed no JSON object: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("node client stderr:\n%s", stderr.String())
	}
	return out
}
