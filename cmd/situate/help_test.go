package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestHelpShowsOnlyWhatApplies: a command's help lists the flags it uses,
// each with its type and default, and not the indexing or LLM settings of
// other commands.
func TestHelpShowsOnlyWhatApplies(t *testing.T) {
	out, _ := mustRun(t, t.TempDir(), "search", "--help")
	for _, absent := range []string{"--chunk-size", "--chunk-overlap", "--llm-template", "--llm ", "--max-cost", "--parallel", "--contextualizer", "--max-file-size"} {
		if strings.Contains(out, absent) {
			t.Errorf("search --help lists %s, which a search does not use", absent)
		}
	}
	for _, want := range []string{"--k int\n", "--bm25-k1 number\n", "(default 1.2)", "--recipe string\n", "(default situate)", "--embed string\n", "--json\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("search --help lacks %q:\n%s", want, out)
		}
	}
	// Every flag line but a boolean's names a type.
	flagLine := regexp.MustCompile(`(?m)^  --([a-z0-9-]+)( [a-z]+)?$`)
	for _, m := range flagLine.FindAllStringSubmatch(out, -1) {
		if m[2] == "" && !map[string]bool{"json": true, "explain": true, "no-rerank": true}[m[1]] {
			t.Errorf("search --help: --%s has no type", m[1])
		}
	}
	if code, _, errOut := run(t, t.TempDir(), "search", "--llm-template", "x", "q"); code != exitUsage || !strings.Contains(errOut, "llm-template") {
		t.Errorf("search --llm-template: exit %d, %q; want a usage error naming the flag", code, errOut)
	}

	out, _ = mustRun(t, t.TempDir(), "contexts", "--help")
	if !strings.Contains(out, "--chunk-size int\n    \twith --regenerate: ") || !strings.Contains(out, "--llm-template string\n    \twith --regenerate: ") {
		t.Errorf("contexts --help does not say the indexing and LLM flags apply only to --regenerate:\n%s", out)
	}
	if strings.Contains(out, "--sample int\n    \twith --regenerate") || !strings.Contains(out, "(default 10)") {
		t.Errorf("contexts --help: --sample mislabelled or without its default:\n%s", out)
	}
}
