package ingest

import (
	"strings"
)

// markdownTitle returns a Markdown document's title: the "title:" of a YAML
// front matter block, else the first level-1 heading (ATX "# T" or setext
// "T\n===") outside fenced code blocks, else "".
func markdownTitle(text string) string {
	lines := strings.Split(text, "\n")
	start := 0
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			l := strings.TrimSpace(lines[i])
			if l == "---" || l == "..." {
				start = i + 1
				break
			}
			if v, ok := strings.CutPrefix(l, "title:"); ok {
				if t := strings.Trim(strings.TrimSpace(v), `"'`); t != "" {
					return t
				}
			}
		}
	}
	fence := ""
	for i := start; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		trimmed := strings.TrimLeft(l, " ")
		indent := len(l) - len(trimmed)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if indent <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
			continue
		}
		if indent > 3 {
			continue
		}
		if h, ok := strings.CutPrefix(trimmed, "#"); ok && (h == "" || h[0] == ' ' || h[0] == '\t') {
			h = strings.TrimSpace(h)
			// A closing sequence of #s is not part of the heading.
			if j := strings.LastIndex(h, " #"); j >= 0 && strings.Trim(h[j:], " #") == "" {
				h = strings.TrimSpace(h[:j])
			} else if strings.Trim(h, "#") == "" {
				h = ""
			}
			if h != "" {
				return h
			}
			continue
		}
		if trimmed != "" && i+1 < len(lines) {
			next := strings.TrimSpace(lines[i+1])
			if len(next) >= 1 && strings.Trim(next, "=") == "" && !strings.HasPrefix(trimmed, "-") {
				return strings.TrimSpace(trimmed)
			}
		}
	}
	return ""
}
