package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestKeysHelpFormsWork runs every form `situate keys --help` shows (with
// its placeholders filled and every optional flag given), and each works.
func TestKeysHelpFormsWork(t *testing.T) {
	dir := t.TempDir()
	_, out, errOut := run(t, dir, "keys", "--help")
	help := out + errOut
	if !strings.Contains(help, "Usage: situate keys create|list|revoke [flags]") {
		t.Errorf("usage line: the subcommand must come before its flags:\n%s", help)
	}
	optional := regexp.MustCompile(`\[(--[a-z]+)(?: ([A-Za-z,]+))?\]`)
	var forms int
	for _, line := range strings.Split(help, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "situate keys create") {
			continue
		}
		if i := strings.Index(line, "   ("); i >= 0 {
			line = line[:i] // the comment after the form
		}
		line = optional.ReplaceAllString(line, "$1 $2")
		line = strings.NewReplacer("NAME", "acme", "LABEL", "ops", "a,b", "alice,bob").Replace(line)
		args := strings.Fields(line)[1:]
		args = append(args, "--store", dir)
		if code, out, errOut := run(t, dir, args...); code != exitOK {
			t.Errorf("situate %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		forms++
	}
	if forms != 4 {
		t.Errorf("%d create forms in the help, want 4:\n%s", forms, help)
	}
	if code, out, errOut := run(t, dir, "keys", "list", "--store", dir); code != exitOK || !strings.Contains(out+errOut, "ops") {
		t.Errorf("keys list: exit %d\n%s%s", code, out, errOut)
	}
}
