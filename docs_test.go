package situate_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocs keeps the documentation a newcomer finishes: README.md at most
// 1,500 words, opening with the two commands (the main job on the
// embedded default, then the tests); no paragraph of README.md or docs/
// over 150 words (code blocks, tables and lists aside); every relative
// link pointing to a file that exists.
func TestDocs(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(string(readme))); n > 1500 {
		t.Errorf("README.md: %d words, want at most 1500", n)
	}
	first := regexp.MustCompile("(?s)```sh\n(.*?)```").FindSubmatch(readme)
	if first == nil {
		t.Fatal("README.md: no sh block")
	}
	cmds := strings.Split(strings.TrimSpace(string(first[1])), "\n")
	if len(cmds) != 2 || !strings.Contains(cmds[0], "./situate index") || !strings.HasPrefix(cmds[1], "go test") {
		t.Errorf("README.md's first block: %q, want the main job, then the tests", cmds)
	}
	files := []string{"README.md", "EVAL.md"}
	pages, _ := filepath.Glob("docs/*.md")
	if len(pages) < 5 {
		t.Errorf("docs/: %d pages, want one per subject", len(pages))
	}
	files = append(files, pages...)
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inCode := false
		for i, para := range strings.Split(string(b), "\n\n") {
			fences := strings.Count(para, "```")
			trimmed := strings.TrimSpace(para)
			skip := inCode || strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "|") ||
				strings.HasPrefix(trimmed, "- ") || regexp.MustCompile(`^\d+\. `).MatchString(trimmed)
			if fences%2 == 1 {
				inCode = !inCode
			}
			if skip || f == "EVAL.md" && strings.Contains(f, "history") {
				continue
			}
			if n := len(strings.Fields(para)); n > 150 {
				t.Errorf("%s: paragraph %d has %d words, want at most 150: %.80q", f, i+1, n, trimmed)
			}
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s: link %s: %v", f, target, err)
			}
		}
	}
}
