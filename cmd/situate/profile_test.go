package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexProfiles: the hidden --cpuprofile and --memprofile flags of
// index write pprof files (gzipped protocol buffers), and --help does not
// list them.
func TestIndexProfiles(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# Harbour\n\nThe ferry leaves at noon.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	mustRun(t, dir, "index", "--quiet", "--store", filepath.Join(dir, "store"), "--cpuprofile", cpu, "--memprofile", mem, docs)
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Errorf("%s: not a pprof file (%d bytes)", filepath.Base(p), len(b))
		}
	}
	out, _ := mustRun(t, dir, "index", "--help")
	if strings.Contains(out, "profile") {
		t.Errorf("index --help lists the profiling flags:\n%s", out)
	}
}
