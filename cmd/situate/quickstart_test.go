package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeQuickStart runs the README's first command as it stands (after
// the build): index examples/corpus, then the search it shows; the first
// result is the Brightwater Logistics chunk that answers it.
func TestReadmeQuickStart(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(root + "/README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\./situate index (\S+) && \./situate search "([^"]+)"`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md's first command has no index and search")
	}
	dir := t.TempDir()
	mustRun(t, dir, "index", root+"/"+string(m[1]))
	out, _ := mustRun(t, dir, "search", string(m[2]))
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "1. en/brightwater-logistics.md") {
		t.Errorf("search %q: first result %q, want en/brightwater-logistics.md\n%s", m[2], first, out)
	}
}
