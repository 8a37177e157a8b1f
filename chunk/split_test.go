package chunk

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// checkSpans verifies every documented guarantee of Split's result.
func checkSpans(t testing.TB, text string, opts Options, spans []Span) {
	t.Helper()
	o := opts.withDefaults()
	covered := make([]bool, len(text))
	// Rune boundaries as utf8 decodes the text: an invalid byte is a rune
	// of its own.
	boundary := make([]bool, len(text)+1)
	for i := range text {
		boundary[i] = true
	}
	boundary[len(text)] = true
	prevStart, prevEnd := -1, -1
	for i, s := range spans {
		if s.Start < 0 || s.End > len(text) || s.Start >= s.End {
			t.Fatalf("span %d [%d,%d): empty or out of range (len %d)", i, s.Start, s.End, len(text))
		}
		if s.Start <= prevStart || s.End <= prevEnd {
			t.Fatalf("span %d [%d,%d) not after span [%d,%d)", i, s.Start, s.End, prevStart, prevEnd)
		}
		prevStart, prevEnd = s.Start, s.End
		if !boundary[s.Start] || !boundary[s.End] {
			t.Fatalf("span %d [%d,%d) not on rune boundaries", i, s.Start, s.End)
		}
		chunk := text[s.Start:s.End]
		first, _ := utf8.DecodeRuneInString(chunk)
		last, _ := utf8.DecodeLastRuneInString(chunk)
		if unicode.IsSpace(first) || unicode.IsSpace(last) {
			t.Fatalf("span %d [%d,%d) not trimmed: %q", i, s.Start, s.End, chunk)
		}
		if want := CountTokens(chunk); s.Tokens != want {
			t.Fatalf("span %d: Tokens = %d, CountTokens = %d", i, s.Tokens, want)
		}
		if s.Tokens > o.Size {
			t.Fatalf("span %d [%d,%d): %d tokens > Size %d: %q", i, s.Start, s.End, s.Tokens, o.Size, chunk)
		}
		for j := s.Start; j < s.End; j++ {
			covered[j] = true
		}
	}
	for i, r := range text {
		if !unicode.IsSpace(r) && !covered[i] {
			lo, hi := max(0, i-20), min(len(text), i+20)
			t.Fatalf("byte %d (%q) not covered; around: %q", i, r, text[lo:hi])
		}
	}
}

func mustSplit(t testing.TB, text string, opts Options) []Span {
	t.Helper()
	spans, err := Split(text, opts)
	if err != nil {
		t.Fatalf("Split: %v", err)
	}
	checkSpans(t, text, opts, spans)
	again, _ := Split(text, opts)
	if fmt.Sprint(again) != fmt.Sprint(spans) {
		t.Fatalf("Split is not deterministic")
	}
	return spans
}

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opts  Options
		field string
	}{
		{Options{Size: 4}, "Size"},
		{Options{Size: -1}, "Size"},
		{Options{Overlap: -1}, "Overlap"},
		{Options{Size: 100, Overlap: 51}, "Overlap"},
		{Options{Overlap: DefaultSize/2 + 1}, "Overlap"},
		{Options{Format: "pptx"}, "Format"},
	} {
		_, err := Split("text", tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.field+":") {
			t.Errorf("Split(%+v) error = %v, want one naming %s", tc.opts, err, tc.field)
		}
	}
	for _, o := range []Options{{}, DefaultOptions(), {Size: MinSize}, {Size: 100, Overlap: 50, Format: FormatCode}} {
		if err := o.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", o, err)
		}
	}
}

func TestEmptyAndBlank(t *testing.T) {
	for _, text := range []string{"", " ", "\n\n\t \r\n", "\u00a0\u3000"} {
		for _, f := range []string{FormatText, FormatMarkdown, FormatCode} {
			spans := mustSplit(t, text, Options{Format: f})
			if len(spans) != 0 {
				t.Errorf("Split(%q, %s) = %v, want no spans", text, f, spans)
			}
		}
	}
}

func TestShortTextIsOneChunk(t *testing.T) {
	text := "  # Title\n\nOne short paragraph.\n\n"
	spans := mustSplit(t, text, Options{Format: FormatMarkdown})
	if len(spans) != 1 || text[spans[0].Start:spans[0].End] != "# Title\n\nOne short paragraph." || spans[0].Heading != "Title" {
		t.Fatalf("spans = %+v", spans)
	}
}

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Dr. Smith paid 3.50 dollars, e.g. for apples. He left! Did he? Yes.",
			[]string{"Dr. Smith paid 3.50 dollars, e.g. for apples.", " He left!", " Did he?", " Yes."}},
		{"Die Firma wurde am 3. Oktober gegründet, z.B. in Bonn. Sie wuchs schnell.",
			[]string{"Die Firma wurde am 3. Oktober gegründet, z.B. in Bonn.", " Sie wuchs schnell."}},
		{"La Sra. García llegó. Luego habló.", []string{"La Sra. García llegó.", " Luego habló."}},
		{"Город основан в 1850 г. Он рос, т.е. быстро. Конец.", []string{"Город основан в 1850 г. Он рос, т.е. быстро.", " Конец."}},
		{"公司成立于2010年。收入增长了3%！真的吗？是的。", []string{"公司成立于2010年。", "收入增长了3%！", "真的吗？", "是的。"}},
		{`He said "Stop." Then he went (quickly.) Done`, []string{`He said "Stop."`, ` Then he went (quickly.)`, " Done"}},
		{"J. R. R. Tolkien wrote it. See www.example.com for more.", []string{"J. R. R. Tolkien wrote it.", " See www.example.com for more."}},
		{"Wait... what? It grew in 2023. The end", []string{"Wait... what?", " It grew in 2023.", " The end"}},
	} {
		var got []string
		prev := 0
		sentenceEnds(tc.in, func(e int) { got = append(got, tc.in[prev:e]); prev = e })
		got = append(got, tc.in[prev:])
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
			t.Errorf("sentences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestSplitsAtSentencesNotMidSentence(t *testing.T) {
	var sb strings.Builder
	for i := range 60 {
		fmt.Fprintf(&sb, "Sentence number %d talks about Dr. Who and e.g. the number %d.5 in some detail. ", i, i)
	}
	text := sb.String()
	spans := mustSplit(t, text, Options{Size: 100})
	if len(spans) < 5 {
		t.Fatalf("got %d spans, want several", len(spans))
	}
	for i, s := range spans {
		if !strings.HasPrefix(text[s.Start:], "Sentence number") || !strings.HasSuffix(text[:s.End], "detail.") {
			t.Errorf("span %d does not run from sentence start to sentence end: %q", i, text[s.Start:s.End])
		}
	}
}

func TestOverlap(t *testing.T) {
	var sb strings.Builder
	for i := range 80 {
		fmt.Fprintf(&sb, "Item %d is a short sentence. ", i)
	}
	text := sb.String()
	spans := mustSplit(t, text, Options{Size: 100, Overlap: 30})
	for i := 1; i < len(spans); i++ {
		prev, cur := spans[i-1], spans[i]
		if cur.Start >= prev.End {
			t.Fatalf("span %d does not overlap span %d", i, i-1)
		}
		ov := CountTokens(text[cur.Start:prev.End])
		if ov > 30 || ov < 15 {
			t.Errorf("overlap %d tokens between spans %d and %d, want 15..30", ov, i-1, i)
		}
		if !strings.HasPrefix(text[cur.Start:], "Item") {
			t.Errorf("span %d starts mid-sentence: %q", i, text[cur.Start:min(cur.End, cur.Start+30)])
		}
	}
	// Without overlap the spans are disjoint.
	for i, s := range mustSplit(t, text, Options{Size: 100}) {
		if i > 0 && s.Start < spans[0].End && i == 1 {
			t.Errorf("span 1 overlaps span 0 with Overlap 0")
		}
	}
}

func TestOverlapSnapsToWordInsideLongSentence(t *testing.T) {
	text := strings.Repeat("word ", 300) + "end."
	spans := mustSplit(t, text, Options{Size: 60, Overlap: 10})
	for i := 1; i < len(spans); i++ {
		if spans[i].Start >= spans[i-1].End {
			t.Fatalf("no overlap between %d and %d", i-1, i)
		}
		if text[spans[i].Start-1] != ' ' {
			t.Fatalf("span %d starts mid-word", i)
		}
	}
}

func TestNoOverlapAcrossHeadings(t *testing.T) {
	para := strings.Repeat("The section has some prose in it. ", 6)
	text := "# A\n\n" + para + "\n\n# B\n\n" + para + "\n\n# C\n\n" + para
	spans := mustSplit(t, text, Options{Size: 60, Overlap: 20, Format: FormatMarkdown})
	want := []string{"A", "B", "C"}
	if len(spans) != 3 {
		t.Fatalf("got %d spans, want 3: %+v", len(spans), spans)
	}
	for i, s := range spans {
		if s.Heading != want[i] || !strings.HasPrefix(text[s.Start:], "# "+want[i]) {
			t.Errorf("span %d = %q heading %q", i, text[s.Start:s.End], s.Heading)
		}
	}
}

func TestMarkdownHeadingPath(t *testing.T) {
	para := func(topic string) string {
		return strings.Repeat("This paragraph explains "+topic+" in enough words to matter. ", 5)
	}
	text := "# Guide\n\nIntro text.\n\n## Install\n\n" + para("installing") +
		"\n\n### Linux\n\n" + para("Linux") + "\n\n### macOS\n\n" + para("macOS") +
		"\n\nSetext title\n------------\n\n" + para("setext")
	spans := mustSplit(t, text, Options{Size: 90, Format: FormatMarkdown})
	var headings []string
	for _, s := range spans {
		headings = append(headings, s.Heading)
	}
	got := strings.Join(headings, " | ")
	for _, want := range []string{"Guide > Install > Linux", "Guide > Install > macOS", "Guide > Setext title"} {
		if !strings.Contains(got, want) {
			t.Errorf("headings %q lack %q", got, want)
		}
	}
	for _, s := range spans {
		c := text[s.Start:s.End]
		if strings.HasSuffix(c, "### Linux") || strings.HasSuffix(c, "### macOS") {
			t.Errorf("chunk ends with a heading: %q", c)
		}
	}
}

func TestFenceAndTableKeptWhole(t *testing.T) {
	fence := "```go\nfunc main() {\n\tfmt.Println(\"hello. World\")\n\n\tos.Exit(0)\n}\n```"
	table := "| Name | Value |\n|------|-------|\n| alpha | one. Two |\n| beta | three |"
	prose := strings.Repeat("Some filler prose sentence here. ", 8)
	text := "# Doc\n\n" + prose + "\n\n" + fence + "\n\n" + prose + "\n\n" + table + "\n\n" + prose
	for _, size := range []int{40, 50, 60, 80, 120} {
		spans := mustSplit(t, text, Options{Size: size, Overlap: 10, Format: FormatMarkdown})
		fs := strings.Index(text, fence)
		for _, s := range spans {
			if s.Start > fs && s.Start < fs+len(fence) || s.End > fs && s.End < fs+len(fence) {
				t.Errorf("size %d: span [%d,%d) cuts the fence [%d,%d)", size, s.Start, s.End, fs, fs+len(fence))
			}
			c := text[s.Start:s.End]
			for _, row := range strings.Split(table, "\n") {
				ri := strings.Index(text, row)
				if s.Start > ri && s.Start < ri+len(row) || s.End > ri && s.End < ri+len(row) {
					t.Errorf("size %d: span %q cuts table row %q", size, c, row)
				}
			}
		}
	}
	// A fence larger than Size is cut at lines.
	var big strings.Builder
	big.WriteString("```\n")
	for i := range 100 {
		fmt.Fprintf(&big, "line %d of a long listing\n", i)
	}
	big.WriteString("```")
	bigText := big.String()
	for _, s := range mustSplit(t, bigText, Options{Size: 60, Format: FormatMarkdown}) {
		if s.End < len(bigText) && bigText[s.End] != '\n' {
			t.Errorf("big fence cut mid-line at %d", s.End)
		}
	}
}

func TestTopLevelSectionsNotMerged(t *testing.T) {
	text := "## One\n\n" + strings.Repeat("Alpha beta gamma. ", 10) + "\n\n## Two\n\nShort.\n\n## Three\n\nTiny."
	spans := mustSplit(t, text, Options{Size: 200, Format: FormatMarkdown})
	if len(spans) != 2 {
		t.Fatalf("got %d spans, want 2 (One; Two+Three merged as tiny): %+v", len(spans), spans)
	}
	if spans[1].Heading != "Two" || !strings.Contains(text[spans[1].Start:spans[1].End], "## Three") {
		t.Errorf("second span = %q heading %q", text[spans[1].Start:spans[1].End], spans[1].Heading)
	}
}

func TestLongWordAndCJK(t *testing.T) {
	long := strings.Repeat("x9Qz", 2000)
	spans := mustSplit(t, "before "+long+" after", Options{Size: 50})
	if len(spans) < 10 {
		t.Errorf("long word gave %d spans", len(spans))
	}
	zh := strings.Repeat("这是一个没有标点的很长的中文句子", 200)
	spans = mustSplit(t, zh, Options{Size: 50, Overlap: 10})
	if len(spans) < 5 {
		t.Errorf("long CJK run gave %d spans", len(spans))
	}
	emoji := strings.Repeat("👩‍👩‍👧‍👦", 500)
	mustSplit(t, emoji, Options{Size: MinSize})
}

func TestCode(t *testing.T) {
	src := `package config

import "os"

// Config holds settings.
type Config struct {
	Path string
}

// ParseConfig reads a file.
// It never panics.
func ParseConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_ = data
	return &Config{Path: path}, nil
}

func (c *Config) Validate() error {
	return nil
}
`
	spans := mustSplit(t, src, Options{Size: 40, Format: FormatCode, Path: "config.go"})
	var got []string
	for _, s := range spans {
		got = append(got, s.Heading)
		c := src[s.Start:s.End]
		if strings.Contains(c, "func ParseConfig") && !strings.HasPrefix(c, "// ParseConfig reads") {
			t.Errorf("ParseConfig chunk does not start with its comment: %q", c)
		}
	}
	want := "type Config struct | func ParseConfig | func ParseConfig | func (c *Config) Validate"
	if !strings.Contains(strings.Join(got, " | "), want) {
		t.Errorf("headings %q, want to contain %q", got, want)
	}
	py := "import os\n\n\nclass Parser:\n    \"\"\"Parses.\"\"\"\n\n" +
		strings.Repeat("    x = 1\n", 3) + "\n    @property\n    def name(self):\n" + strings.Repeat("        return os.getcwd() + 'a long line of code'\n", 8) +
		"\n\ndef main():\n    Parser()\n"
	spans = mustSplit(t, py, Options{Size: 60, Format: FormatCode, Path: "p.py"})
	got = got[:0]
	for _, s := range spans {
		got = append(got, s.Heading)
		c := py[s.Start:s.End]
		if strings.Contains(c, "def name") && !strings.Contains(c, "@property") {
			t.Errorf("decorator separated from its method: %q", c)
		}
	}
	if j := strings.Join(got, " | "); !strings.Contains(j, "class Parser > def name") || !strings.Contains(j, "def main") {
		t.Errorf("python headings %q", j)
	}
}

func TestLanguage(t *testing.T) {
	for path, want := range map[string]string{"a.go": "go", "x/y.PY": "python", "m.tsx": "javascript", "lib.rs": "rust", "a.txt": "", "Makefile": ""} {
		if got := Language(path); got != want {
			t.Errorf("Language(%q) = %q, want %q", path, got, want)
		}
	}
}

// randomDoc builds a document from structural pieces that stress the
// splitter: headings, fences (some unclosed), tables, lists, long words,
// CJK, odd white space, invalid UTF-8.
func randomDoc(r *rand.Rand, n int) string {
	pieces := []func() string{
		func() string { return strings.Repeat("#", 1+r.IntN(7)) + " Heading " + fmt.Sprint(r.IntN(100)) + "\n" },
		func() string {
			return "```\ncode line\n\n  indented\n" + strings.Repeat("x = 1\n", r.IntN(80)) + "```\n"
		},
		func() string { return "~~~~\nunclosed fence?\n" },
		func() string { return "| a | b |\n|---|---|\n| 1 | 2. Three |\n" },
		func() string { return "- item one. Two.\n- item two\n  continued\n1. numbered\n" },
		func() string { return strings.Repeat("Plain sentence, e.g. Dr. X paid 3.5. ", r.IntN(30)) + "\n\n" },
		func() string { return strings.Repeat("長い中文句子沒有標點", r.IntN(60)) + "。\n" },
		func() string { return strings.Repeat("Z", r.IntN(3000)) + " " },
		func() string { return strings.Repeat(" ", r.IntN(600)) + strings.Repeat("\n", r.IntN(5)) },
		func() string { return "\xff\xfe\xe4\xb8 bad\x80utf8 " },
		func() string { return "Title\n=====\n" },
		func() string { return "func F() {\n\treturn\n}\n\n// C\ntype T struct{}\n" },
		func() string { return "class K:\n    def m(self):\n        pass\n\n" },
		func() string { return "\t\u3000\u00a0Ünïcödé wörds Привет мир! ¿Qué tal?\r\n" },
		func() string { return "\n\n" },
	}
	var sb strings.Builder
	for range n {
		sb.WriteString(pieces[r.IntN(len(pieces))]())
	}
	return sb.String()
}

var allFormats = []string{FormatText, FormatMarkdown, FormatHTML, FormatPDF, FormatDOCX, FormatCode}

func TestInvariantsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		doc := randomDoc(r, 1+r.IntN(40))
		size := MinSize + r.IntN(300)
		opts := Options{Size: size, Overlap: r.IntN(size/2 + 1), Format: allFormats[i%len(allFormats)], Path: []string{"a.go", "b.py", "c.unknown", "d.rs"}[i%4]}
		mustSplit(t, doc, opts)
	}
}

// FuzzSplit checks every guarantee on random input. Each execution costs a
// few milliseconds, so keep the minimisation short:
//
//	go test ./chunk -run XXX -fuzz FuzzSplit -fuzztime 30s -fuzzminimizetime 2s
func FuzzSplit(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		f.Add(randomDoc(r, 10), uint16(100), uint16(20), uint8(r.IntN(6)))
	}
	f.Add("# T\n\nHello. World!\n", uint16(8), uint16(4), uint8(1))
	f.Add("公司成立于2010年。收入增长了3%！", uint16(10), uint16(5), uint8(0))
	f.Add("func A() {}\n\n// B\nfunc B() {}\n", uint16(10), uint16(0), uint8(5))
	f.Fuzz(func(t *testing.T, text string, size, overlap uint16, format uint8) {
		// Large inputs only repeat the structures of small ones and make
		// the fuzzer crawl; TestInvariantsRandom and the benchmarks cover
		// size.
		if len(text) > 16<<10 {
			t.Skip()
		}
		s := MinSize + int(size)%600
		opts := Options{Size: s, Overlap: int(overlap) % (s/2 + 1), Format: allFormats[int(format)%len(allFormats)], Path: "x.go"}
		if format >= 128 {
			opts.Path = "x.py"
		}
		mustSplit(t, text, opts)
	})
}
