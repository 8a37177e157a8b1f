package chunk

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestDeclarations(t *testing.T) {
	for _, tc := range []struct {
		path, text string
		want       []string
	}{
		{"net/http/internal/chunked.go", "package internal\n\nimport \"io\"\n\n// Read reads.\nfunc (cr *chunkedReader) Read(b []uint8) (n int, err error) {\n\tfunc() {}()\n}\n\ntype chunkedWriter struct {\n\tWire io.Writer\n}\nvar ErrLineTooLong = errors.New(\"x\")\n",
			[]string{"func (cr *chunkedReader) Read", "type chunkedWriter struct", "var ErrLineTooLong"}},
		{"pkg/parser.py", "import os\n\nclass Parser(Base):\n    def parse(self, s):\n        return s\n\ndef main():\n    pass\n",
			[]string{"class Parser", "def parse", "def main"}},
		{"README.md", "func Foo() {}\n", nil},
		{"doc_1", "fn main() {}\n", nil},
		{"a.go", "", nil},
	} {
		if got := Declarations(tc.path, tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Declarations(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// BenchmarkDeclarations: the declaration arm runs Declarations over every
// chunk of a source file at indexing (GOROOT/src's 90 MB of Go: about 0.6 s
// on the loaded 2-core machine, bench/codesearch/README.md).
func BenchmarkDeclarations(b *testing.B) {
	var src strings.Builder
	src.WriteString("package p\n\nimport \"io\"\n\n")
	for i := range 200 {
		fmt.Fprintf(&src, "// F%d reads.\nfunc (r *reader) F%d(p []byte) (int, error) {\n\tif len(p) == 0 {\n\t\treturn 0, nil\n\t}\n\tn, err := r.r.Read(p)\n\treturn n, err\n}\n\ntype T%d struct {\n\tr io.Reader\n}\n\n", i, i, i)
	}
	text := src.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if len(Declarations("p/r.go", text)) != 400 {
			b.Fatal("wrong count")
		}
	}
}
