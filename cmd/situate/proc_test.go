package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// situateBin builds cmd/situate once per test binary (go build into a
// temporary directory that TestMain removes) and returns its path.
func situateBin(t testing.TB, _ string) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "situate-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "situate")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// removeBin removes the binary situateBin built (called by TestMain).
func removeBin() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// proc runs the situate binary with a fixed environment.
type proc struct {
	bin string
	env []string
}

func (p proc) command(args ...string) *exec.Cmd {
	cmd := exec.Command(p.bin, args...)
	cmd.Env = append(os.Environ(), p.env...)
	return cmd
}

// run runs situate to the end and returns its exit code and output.
func (p proc) run(args ...string) (int, string, string) {
	cmd := p.command(args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return code, out.String(), errOut.String()
}

func (p proc) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := p.run(args...)
	if code != 0 {
		t.Fatalf("situate %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// firstDiff shows the first differing line of two dumps.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %.300s\nwant %.300s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
