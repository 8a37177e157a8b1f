package eval

import (
	"os"
	"path/filepath"
	"testing"
)

// dataDir returns the shared evaluation data directory (../shared/data from
// the repository root, found by walking up to go.mod), skipping the test
// when it is absent.
func dataDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("go.mod not found above the test directory; cannot locate ../shared/data")
		}
		dir = parent
	}
	data := filepath.Join(dir, "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(data, "README.md")); err != nil {
		tb.Skipf("evaluation data not found at %s (see the brief: ../shared/data relative to the repository root)", data)
	}
	return data
}

func loadCodebase(tb testing.TB) *Dataset {
	tb.Helper()
	d := filepath.Join(dataDir(tb), "codebase")
	ds, err := LoadAnthropic(filepath.Join(d, "codebase_chunks.json"), filepath.Join(d, "evaluation_set.jsonl"), filepath.Join(d, "contexts_claude3haiku.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}

func loadCACM(tb testing.TB) *Dataset {
	tb.Helper()
	d := filepath.Join(dataDir(tb), "cacm")
	ds, err := LoadTREC(filepath.Join(d, "cacm.tar.gz"), filepath.Join(d, "topics.cacm.txt"), filepath.Join(d, "qrels.cacm.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}
