package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate"
)

func TestQuoteName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"docs/guide.md", "docs/guide.md"},
		{"Zürich/über.md", "Zürich/über.md"},
		{"中文/说明.txt", "中文/说明.txt"},
		{"a b.txt", "a b.txt"},
		{"evil\n1. forged.md  score 9.9", `"evil\n1. forged.md  score 9.9"`},
		{"tab\there", `"tab\there"`},
		{"bad\xffname", `"bad\xffname"`},
		{"rtl\u202Egnp.exe", `"rtl\u202egnp.exe"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"line\u2028sep", `"line\u2028sep"`},
		{`"quoted"`, `"\"quoted\""`},
		{"esc\x1b[31mred", `"esc\x1b[31mred"`},
		{"", ""},
	} {
		got := QuoteName(tc.in)
		if got != tc.want {
			t.Errorf("QuoteName(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if back := UnquoteName(got); back != tc.in {
			t.Errorf("UnquoteName(QuoteName(%q)) = %q", tc.in, back)
		}
		if strings.ContainsAny(got, "\n\r\x1b") {
			t.Errorf("QuoteName(%q) = %q still has a line break or escape", tc.in, got)
		}
	}
}

// TestWalkRefusesInvalidUTF8Names checks that a file or directory whose name
// is not valid UTF-8 is reported once, naming it with its bytes visible,
// and that its siblings are still indexed.
func TestWalkRefusesInvalidUTF8Names(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Skipf("this file system refuses the name %q: %v", rel, err)
		}
	}
	write("good.md", "# Good\n\nFine.")
	write("caf\xe9.md", "# Latin-1 name\n\nText.")
	write("d\xff/a.md", "# A\n\nText.")
	write("d\xff/b.md", "# B\n\nText.")
	write("new\nline.md", "# Newline\n\nText.")
	var ids []string
	var errs []error
	err := Walk(context.Background(), []string{root}, Options{}, func(doc situate.Document, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		ids = append(ids, doc.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "good.md,new\nline.md" {
		t.Errorf("ids = %q, want good.md and the newline name (valid UTF-8, kept)", ids)
	}
	if len(errs) != 2 {
		t.Fatalf("errors = %v, want one per invalid name (the directory once)", errs)
	}
	for _, e := range errs {
		var fe *FileError
		if !errors.As(e, &fe) || !errors.Is(e, ErrInvalidName) {
			t.Errorf("error %v: want a *FileError wrapping ErrInvalidName", e)
		}
		msg := e.Error()
		if !strings.Contains(msg, `\xe9`) && !strings.Contains(msg, `\xff`) {
			t.Errorf("error %q does not show the invalid byte", msg)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("error %q contains a raw newline", msg)
		}
	}
	// A single file given directly, and Parse with an invalid id.
	if _, err := ParseFile(context.Background(), filepath.Join(root, "caf\xe9.md"), "", Options{}); !errors.Is(err, ErrInvalidName) {
		t.Errorf("ParseFile: err = %v, want ErrInvalidName", err)
	}
	if _, err := Parse(context.Background(), []byte("text"), "x\xff", "x.txt", Options{}); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Parse: err = %v, want ErrInvalidName", err)
	}
}
