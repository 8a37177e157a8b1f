package chunk

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestGolden pins the chunk boundaries of a Markdown guide, a Go file, a
// Python file and a Chinese text. Refresh with `go test ./chunk -update`
// and review the diff.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		opts Options
	}{
		{"guide.md", Options{Size: 80, Overlap: 15, Format: FormatMarkdown}},
		{"ratelimit.go", Options{Size: 90, Overlap: 10, Format: FormatCode}},
		{"pipeline.py", Options{Size: 90, Overlap: 10, Format: FormatCode}},
		{"zh.txt", Options{Size: 60, Overlap: 12, Format: FormatText}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			tc.opts.Path = tc.file
			spans := mustSplit(t, text, tc.opts)
			var sb strings.Builder
			fmt.Fprintf(&sb, "# Split(%s, Size=%d Overlap=%d Format=%s)\n", tc.file, tc.opts.Size, tc.opts.Overlap, tc.opts.Format)
			for i, s := range spans {
				fmt.Fprintf(&sb, "\n--- chunk %d [%d,%d) tokens=%d heading=%q\n%s\n", i, s.Start, s.End, s.Tokens, s.Heading, text[s.Start:s.End])
			}
			got := sb.String()
			golden := path + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./chunk -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the current output; if the change is intended, run go test ./chunk -update and review the diff.\ngot:\n%s", golden, got)
			}
		})
	}
}
