package report_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/report"
)

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\n":          "plain\ttext\n",
		"\x1b]0;pwned\a":         `\x1b]0;pwned\x07`,
		"abc\u202edef":           `abc\u202edef`,
		"bad \xff byte":          `bad \xff byte`,
		"caf\u00e9 \u4e2d\u6587": "caf\u00e9 \u4e2d\u6587",
	} {
		if got := report.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	if got := report.Line("a\nb\tc\r"); got != `a\nb\tc\x0d` {
		t.Errorf("Line = %q", got)
	}
}

func TestSkipsAndSizes(t *testing.T) {
	if got := report.Skips(map[string]int{"image": 2, "binary": 5, "archive": 2}, " (hint)"); got != "skipped 9 files: 5 binary, 2 archive, 2 image (hint)" {
		t.Errorf("Skips = %q", got)
	}
	if got := report.Skips(nil, "x"); got != "" {
		t.Errorf("Skips(none) = %q", got)
	}
	for n, want := range map[int64]string{512: "512 B", 1536: "1.5 KiB", 3 << 30: "3.0 GiB"} {
		if got := report.Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	if got := report.IDs([]string{"a", "b\x1b", "c", "d", "e", "f", "g"}); got != `"a", "b\x1b", "c", "d", "e" and 2 more` {
		t.Errorf("IDs = %s", got)
	}
}

func TestCheck(t *testing.T) {
	var b bytes.Buffer
	report.Check(&b, "/s/situate.db", situate.CheckReport{Documents: 3, Chunks: 9,
		Arms: []situate.CheckArm{{Name: "bm25", Groups: 3, Docs: 9, WantDocs: 9}, {Name: "vectors", Dir: "/s/vectors", Err: errors.New("bad magic")}}})
	for _, line := range []string{"database   ok /s/situate.db (integrity_check): 3 documents, 9 chunks", "bm25       ok 3 documents, 9 chunks",
		"vectors    DAMAGED /s/vectors: bad magic"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("lacks %q:\n%s", line, b.String())
		}
	}
}

func TestWarnLogger(t *testing.T) {
	var b bytes.Buffer
	log := report.WarnLogger(&b).WithGroup("bm25")
	log.Info("not shown")
	log.Warn("repaired\x1b[2J", "added", 12)
	if got := b.String(); got != "situate: warning: repaired\\x1b[2J (bm25.added: 12)\n" {
		t.Errorf("got %q", got)
	}
}
