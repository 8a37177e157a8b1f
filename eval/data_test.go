package eval

import (
	"path/filepath"
	"testing"

	"github.com/situate/situate/internal/shareddata"
)

// dataDir returns ../shared/data, or skips the test when it is absent.
func dataDir(tb testing.TB) string {
	tb.Helper()
	return shareddata.Path(tb, "")
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
