package ingest

import (
	"context"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/situate/situate"
)

// checkParse is what every fuzz target asserts: no panic, and a document
// (when there is one) with valid UTF-8 text and title.
func checkParse(t *testing.T, data []byte, name string) {
	doc, err := Parse(context.Background(), data, name, name, Options{})
	if err != nil {
		if _, ok := err.(*FileError); !ok {
			t.Fatalf("error %T is not *FileError: %v", err, err)
		}
		return
	}
	if !utf8.ValidString(doc.Text) || !utf8.ValidString(doc.Title) {
		t.Fatalf("invalid UTF-8 in %q / %q", doc.Title, doc.Text)
	}
	if strings.TrimSpace(doc.Text) == "" {
		t.Fatal("document without text")
	}
	if doc.Title == "" {
		t.Fatal("document without title")
	}
}

func addFile(f *testing.F, path string) {
	if b, err := os.ReadFile(path); err == nil {
		f.Add(b)
	}
}

func FuzzParseHTML(f *testing.F) {
	addFile(f, "testdata/corpus/de/talsperre-wendelbach.html")
	addFile(f, "testdata/corpus/zh/qinglan-qiao.html")
	f.Add([]byte("<html><body><table><tr><td>a<td>b</table><main><h1>x</main>"))
	f.Add([]byte("<title>\xff\xfe</title><p>\x00</p>"))
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, data, "f.html") })
}

func FuzzParseDOCX(f *testing.F) {
	addFile(f, "testdata/corpus/en/marrow-creek-railway.docx")
	addFile(f, "testdata/corpus/de/glockengiesserei-hallenbach.docx")
	addFile(f, "testdata/bad/broken.docx")
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, data, "f.docx") })
}

func FuzzDOCXBody(f *testing.F) {
	f.Add([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>T</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>a|b</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, _, err := docxBody(data, map[string]int{"Heading1": 1})
		if err == nil && !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8: %q", text)
		}
	})
}

func FuzzParseMarkdown(f *testing.F) {
	addFile(f, "testdata/corpus/en/brennick-lighthouse.md")
	addFile(f, "testdata/corpus/ru/usadba-vetlugina.md")
	f.Add([]byte("---\ntitle: x\n---\n# y\n```\n# z"))
	f.Add([]byte("T\n===\n\xc3\x28"))
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, data, "f.md") })
}

func FuzzParseText(f *testing.F) {
	addFile(f, "testdata/bad/invalid-utf8.txt")
	addFile(f, "testdata/bad/binary.txt")
	f.Add([]byte("\xff\xfeh\x00i\x00"))
	f.Add([]byte("\xd0\xf3\xf1\xf1\xea\xe8\xe9 \xf2\xe5\xea\xf1\xf2"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, "f.txt")
		checkParse(t, data, "noext") // content sniffing
	})
}

func FuzzJSONL(f *testing.F) {
	f.Add([]byte(`{"id":"a","text":"x","metadata":{"k":1}}` + "\n" + `{"id":"a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = JSONL(context.Background(), strings.NewReader(string(data)), "f.jsonl", func(d situate.Document, err error) error {
			if err == nil && (!utf8.ValidString(d.Text) || d.ID == "") {
				t.Fatalf("bad document %+v", d)
			}
			return nil
		})
	})
}
