package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBM25ParameterZeroMeansZero: --bm25-b 0 is BM25 without length
// normalisation (a valid b), not the default 0.75. Two documents hold the
// query word once each, one short and one long: with b = 0 they score the
// same; with the default b the short one scores higher. Before the fix a
// zero flag was taken as "unset" and the scores differed.
func TestBM25ParameterZeroMeansZero(t *testing.T) {
	scores := func(t *testing.T, extra ...string) map[string]float64 {
		t.Helper()
		dir := t.TempDir()
		docs := filepath.Join(dir, "docs")
		os.MkdirAll(docs, 0o755)
		os.WriteFile(filepath.Join(docs, "short.txt"), []byte("the zebra grazes\n"), 0o644)
		long := "the zebra grazes " + strings.Repeat("among tall grasses near the river bank while birds sing ", 8) + "\n"
		os.WriteFile(filepath.Join(docs, "long.txt"), []byte(long), 0o644)
		store := filepath.Join(dir, "store")
		args := append([]string{"index", "--store", store, "--contextualizer", "none", "--recipe", "lucene", "--quiet"}, extra...)
		mustRun(t, dir, append(args, docs)...)
		out, _ := mustRun(t, dir, append(append([]string{"search", "--store", store, "--recipe", "lucene", "--json"}, extra...), "zebra")...)
		var res jsonSearch
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("search --json: %v\n%s", err, out)
		}
		got := map[string]float64{}
		for _, r := range res.Results {
			got[filepath.Base(r.Doc)] = r.Score
		}
		if len(got) != 2 {
			t.Fatalf("want both documents, got %v", got)
		}
		return got
	}
	def := scores(t)
	if !(def["short.txt"] > def["long.txt"]*1.01) {
		t.Fatalf("default b: the short document should score higher: %v", def)
	}
	zero := scores(t, "--bm25-b", "0")
	if math.Abs(zero["short.txt"]-zero["long.txt"]) > 1e-6*zero["short.txt"] {
		t.Errorf("--bm25-b 0: length must not matter, got %v (default b gives %v)", zero, def)
	}
	k1 := scores(t, "--bm25-k1", "0")
	if math.Abs(k1["short.txt"]-k1["long.txt"]) > 1e-6*k1["short.txt"] {
		t.Errorf("--bm25-k1 0: term frequency and length must not matter, got %v", k1)
	}
}
