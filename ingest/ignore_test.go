package ingest

import "testing"

func TestIgnoreRules(t *testing.T) {
	tests := []struct {
		rules string
		path  string
		dir   bool
		want  bool
	}{
		{"*.log", "a.log", false, true},
		{"*.log", "deep/dir/a.log", false, true},
		{"*.log", "a.logx", false, false},
		{"/root.txt", "root.txt", false, true},
		{"/root.txt", "sub/root.txt", false, false},
		{"build/", "build", true, true},
		{"build/", "build", false, false}, // directory-only pattern, a file named build
		{"build/", "src/build", true, true},
		{"doc/frotz", "doc/frotz", false, true},
		{"doc/frotz", "a/doc/frotz", false, false}, // a middle slash anchors
		{"**/foo", "foo", false, true},
		{"**/foo", "x/y/foo", false, true},
		{"**/foo/bar", "x/foo/bar", false, true},
		{"abc/**", "abc/x/y", false, true},
		{"abc/**", "abc", true, false},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"a/**/b", "ab", false, false},
		{"*.md\n!keep.md", "keep.md", false, false},
		{"*.md\n!keep.md", "drop.md", false, true},
		{"!keep.md\n*.md", "keep.md", false, true}, // last match wins
		{"fo?.txt", "foo.txt", false, true},
		{"fo?.txt", "fo/.txt", false, false},
		{"[abc].txt", "b.txt", false, true},
		{"[!abc].txt", "b.txt", false, false},
		{"[!abc].txt", "d.txt", false, true},
		{"\\#hash", "#hash", false, true},
		{"# comment\n\n", "# comment", false, false},
		{"\\!bang", "!bang", false, true},
		{"trailing   ", "trailing", false, true},
		{"{a,b}.txt", "a.txt", false, false}, // braces are literal in git
		{"*", "anything/at/all", false, true},
	}
	for _, tt := range tests {
		st := ignoreStack{{dir: "", rules: parseIgnore([]byte(tt.rules))}}
		if got := st.ignored(tt.path, tt.dir); got != tt.want {
			t.Errorf("rules %q, path %q (dir=%v): ignored = %v, want %v", tt.rules, tt.path, tt.dir, got, tt.want)
		}
	}
}

func TestIgnoreNested(t *testing.T) {
	// A deeper file overrides a shallower one; its patterns are relative to
	// its own directory.
	st := ignoreStack{
		{dir: "", rules: parseIgnore([]byte("*.tmp\n/top.md\n"))},
		{dir: "sub", rules: parseIgnore([]byte("!keep.tmp\n/local.md\n"))},
	}
	for path, want := range map[string]bool{
		"a.tmp":          true,
		"sub/a.tmp":      true,
		"sub/keep.tmp":   false,
		"keep.tmp":       true,
		"top.md":         true,
		"sub/top.md":     false,
		"sub/local.md":   true,
		"local.md":       false,
		"sub/x/local.md": false,
	} {
		if got := st.ignored(path, false); got != want {
			t.Errorf("%s: ignored = %v, want %v", path, got, want)
		}
	}
}
