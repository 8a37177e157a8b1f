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
		if m[2] == "" && !map[string]bool{"json": true, "explain": true, "no-rerank": true, "weaviate-inexact-bm25": true}[m[1]] {
			t.Errorf("search --help: --%s has no type", m[1])
		}
	}
	if code, _, errOut := run(t, t.TempDir(), "search", "--llm-template", "x", "q"); code != exitUsage || !strings.Contains(errOut, "llm-template") {
		t.Errorf("search --llm-template: exit %d, %q; want a usage error naming the flag", code, errOut)
	}

	out, _ = mustRun(t, t.TempDir(), "contexts", "--help")
	review, regen, ok := strings.Cut(out, "\nWith --regenerate")
	if !ok || !strings.Contains(regen, "--chunk-size int\n") || !strings.Contains(regen, "--llm-template string\n") ||
		strings.Contains(review, "  --chunk-size") || strings.Contains(review, "  --llm") {
		t.Errorf("contexts --help does not group the indexing and LLM flags under --regenerate:\n%s", out)
	}
	if !strings.Contains(review, "--sample int\n") || !strings.Contains(review, "(default 10)") {
		t.Errorf("contexts --help: --sample not among the review flags, or without its default:\n%s", out)
	}

	// status: only the settings that decide staleness, grouped and explained.
	out, _ = mustRun(t, t.TempDir(), "status", "--help")
	for _, absent := range []string{"--llm-rpm", "--llm-tpm", "--llm-price", "--max-cost", "--llm-concurrency", "--llm-timeout", "--llm-max-retries", "--parallel", "--embed"} {
		if strings.Contains(out, absent) {
			t.Errorf("status --help lists %s, which cannot make a document stale", absent)
		}
	}
	general, rest, _ := strings.Cut(out, "\nIndexing settings to compare")
	_, llmGroup, _ := strings.Cut(rest, "\nWith --llm")
	if strings.Contains(general, "--chunk-size") || !strings.Contains(rest, "--chunk-size int\n") ||
		!strings.Contains(llmGroup, "--llm-template string\n") || !strings.Contains(llmGroup, "--llm-base-url string\n") {
		t.Errorf("status --help does not group the indexing and LLM settings:\n%s", out)
	}
}
