package chunk

import (
	"slices"
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
