package ingest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/situate/situate"
)

func TestJSONL(t *testing.T) {
	input := strings.Join([]string{
		`{"id":"a","text":"Alpha text","title":"Alpha","metadata":{"year":1999,"ok":true,"src":"wiki","none":null}}`,
		``,
		`{"id":"b","text":"# Beta\n\nbody","format":"markdown","lang":"de-DE","access":["team"]}`,
		`{"id":"c","text":"no title"}   `,
		`not json`,
		`{"text":"missing id"}`,
		`{"id":"d"}`,
		`{"id":"e","text":"   "}`,
		`{"id":"a","text":"duplicate"}`,
		`{"id":"f","text":"x","metadata":{"tags":["x"]}}`,
		`{"id":"g","text":"x","format":"rtf"}`,
		"{\"id\":\"h\",\"text\":\"bad \xff utf8\"}",
		`{"id":"i","text":"x"} {"id":"j"}`,
		`{"id":"k","text":"last line without newline"}`,
	}, "\n")
	var docs []situate.Document
	var errs []*FileError
	err := JSONL(context.Background(), strings.NewReader(input), "docs.jsonl", func(d situate.Document, err error) error {
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("%T is not *FileError", err)
			}
			errs = append(errs, fe)
			return nil
		}
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 4 {
		t.Fatalf("got %d docs, want a, b, c, k: %+v", len(docs), docs)
	}
	a, b, c := docs[0], docs[1], docs[2]
	if a.ID != "a" || a.Title != "Alpha" || a.Format != situate.FormatText || a.Metadata["year"] != "1999" || a.Metadata["ok"] != "true" || a.Metadata["src"] != "wiki" || len(a.Metadata) != 3 {
		t.Errorf("a = %+v", a)
	}
	if b.Title != "Beta" || b.Format != situate.FormatMarkdown || b.Lang != "de" || len(b.Access) != 1 {
		t.Errorf("b = %+v", b)
	}
	if c.Title != "c" {
		t.Errorf("c.Title = %q, want the id", c.Title)
	}
	wantErrs := []struct {
		line int
		msg  string
	}{
		{5, "json:"},
		{6, `field "id": missing`},
		{7, `field "text": missing`},
		{8, `no text`},
		{9, `duplicate of line 1`},
		{10, `metadata.tags": must be a string, number or boolean`},
		{11, `unknown format "rtf"`},
		{12, "invalid UTF-8 at byte"},
		{13, "more than one value"},
	}
	if len(errs) != len(wantErrs) {
		t.Fatalf("got %d errors, want %d: %v", len(errs), len(wantErrs), errs)
	}
	for i, w := range wantErrs {
		e := errs[i]
		prefix := "parse docs.jsonl:" + strconv.Itoa(w.line) + ": "
		if e.Line != w.line || !strings.HasPrefix(e.Error(), prefix) || !strings.Contains(e.Error(), w.msg) || !errors.Is(e, ErrInvalidRecord) {
			t.Errorf("error %d = %q (line %d), want prefix %q and %q", i, e, e.Line, prefix, w.msg)
		}
	}
}

func TestJSONLStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := JSONL(context.Background(), strings.NewReader("{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"y\"}\n"), "s.jsonl", func(situate.Document, error) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err = %v after %d calls", err, n)
	}
	err = JSONL(context.Background(), errReader{}, "r.jsonl", func(situate.Document, error) error { return nil })
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != "r.jsonl" || fe.Op != "read" {
		t.Errorf("read error = %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// TestJSONLErrorSaysJSONOnce: a decoding error names the format once, however
// encoding/json words its own message.
func TestJSONLErrorSaysJSONOnce(t *testing.T) {
	for _, line := range []string{`{"id":5,"text":"x"}`, `not json`, `{"id":"a","text":"x"} 3`} {
		_, err := parseJSONLLine([]byte(line))
		if err == nil || !strings.HasPrefix(err.Error(), "json: ") || strings.Contains(err.Error(), "json: json:") {
			t.Errorf("%s: error %v", line, err)
		}
	}
}
