package testskip

import (
	"bytes"
	"testing"
)

func TestSummary(t *testing.T) {
	t.Run("a", func(t *testing.T) { Skipf(t, "node not found") })
	t.Run("b", func(t *testing.T) { Skipf(t, "llama-server not found: %s\ndetail %d", "PATH", 1) })
	t.Run("c", func(t *testing.T) { Skipf(t, "llama-server not found: %s\ndetail %d", "PATH", 2) })
	var buf bytes.Buffer
	Summary(&buf)
	want := "testskip: 3 tests skipped: llama-server not found: PATH (2); node not found (1)\n"
	if got := buf.String(); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	mu.Lock()
	clear(reasons) // this test's skips are not the package's
	mu.Unlock()
}

func TestMain(m *testing.M) { Main(m) }
