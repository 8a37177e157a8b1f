package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHumanOutputEscapesDocumentControls: a document whose heading, text and
// file name carry terminal escapes (ESC sequences that retitle or clear the
// terminal, BEL, carriage return, a bidi override) is shown by search, show
// and contexts with those characters escaped, never raw; --json keeps them.
func TestHumanOutputEscapesDocumentControls(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	text := "# Report \x1b[31mred\x1b[0m\n\nQuarterly zebrafish numbers \x1b]0;pwned\x07 rose\r faked line \u202eevil\u009b2J here.\n"
	if err := os.WriteFile(filepath.Join(docs, "a\nb.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, docs)
	raw := func(s string) string {
		for _, r := range s {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || r == '\u202e' {
				return strings.ToValidUTF8(s, "?")
			}
		}
		if !utf8.ValidString(s) {
			return s
		}
		return ""
	}
	for _, args := range [][]string{
		{"search", "--store", store, "zebrafish"},
		{"show", "--store", store, `"a\nb.md"`},
		{"contexts", "--store", store, "--sample", "5"},
	} {
		out, _ := mustRun(t, dir, args...)
		if bad := raw(out); bad != "" {
			t.Errorf("situate %s prints control characters raw:\n%q", args[0], bad)
		}
		for _, want := range []string{`\x1b[31mred`, `\x1b]0;pwned\x07`, `\u202eevil\x9b2J`, `"a\nb.md"`} {
			if !strings.Contains(out, want) {
				t.Errorf("situate %s: %s not shown escaped:\n%s", args[0], want, out)
			}
		}
	}
	out, _ := mustRun(t, dir, "search", "--store", store, "--json", "zebrafish")
	if !strings.Contains(out, `\u001b]0;pwned\u0007`) {
		t.Errorf("--json lost the text as written:\n%s", out)
	}
	// The id as printed can be given back.
	if out, _ := mustRun(t, dir, "rm", "--store", store, `"a\nb.md"`); out != "removed \"a\\nb.md\"\n" {
		t.Errorf("rm of the quoted id: %q", out)
	}
}
