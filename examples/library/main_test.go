package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryExample runs the example on the example corpus twice: the first
// run adds every document with progress events and finds the answer, the
// second finds every document unchanged without reading it again.
func TestLibraryExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example program")
	}
	tmp := t.TempDir()
	for i, want := range []string{"12 added, 0 updated, 0 unchanged", "0 added, 0 updated, 12 unchanged"} {
		cmd := exec.Command("go", "run", ".", "../corpus", "Brightwater Logistics third quarter revenue")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, out)
		}
		s := string(out)
		if !strings.Contains(s, want) || !strings.Contains(s, "12/12 documents") {
			t.Errorf("run %d: want %q and progress up to 12/12:\n%s", i+1, want, s)
		}
		if lines := strings.Split(strings.TrimSpace(s), "\n"); !strings.Contains(strings.Join(lines[len(lines)-3:], "\n"), "[context by offline]") ||
			!strings.Contains(s, "brightwater") && !strings.Contains(s, "Brightwater") {
			t.Errorf("run %d: no hit with its context:\n%s", i+1, s)
		}
	}
}
