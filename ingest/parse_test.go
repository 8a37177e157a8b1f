package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/situate/situate"
)

func TestParseFormats(t *testing.T) {
	tests := []struct {
		name, file, data string
		opts             Options
		format, title    string
		lang             string
		want             []string // substrings of Text
		notWant          []string
	}{
		{
			name: "plain text", file: "notes.txt", data: "Just some notes.\r\nSecond line.\r\n",
			format: situate.FormatText, title: "notes.txt",
			want: []string{"Just some notes.\nSecond line.\n"}, notWant: []string{"\r"},
		},
		{
			name: "markdown atx title", file: "a.md", data: "intro\n\n```\n# not a title\n```\n\n# Real Title #\n\ntext\n",
			format: situate.FormatMarkdown, title: "Real Title", want: []string{"# not a title", "# Real Title #"},
		},
		{
			name: "markdown front matter", file: "b.markdown", data: "---\ntitle: \"From Front Matter\"\n---\n# Heading\n",
			format: situate.FormatMarkdown, title: "From Front Matter",
		},
		{
			name: "markdown setext", file: "c.md", data: "Setext Title\n============\n\nbody\n",
			format: situate.FormatMarkdown, title: "Setext Title",
		},
		{
			name: "markdown without heading", file: "d.md", data: "no heading here\n",
			format: situate.FormatMarkdown, title: "d.md",
		},
		{
			name: "html strips chrome", file: "p.html",
			data: `<html lang="de-AT"><head><title> Seite  Eins </title><script>var X="SCRIPT";</script><style>.a{}</style></head>
<body><header>SITEHEADER</header><nav><a href="/">NAV</a></nav>
<div class="content"><h1>Überschrift</h1><p>Erster <b>Absatz</b>.</p>
<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
<form><input name="q"><button>SEARCH</button></form></div>
<aside>ASIDE</aside><footer>FOOTER</footer></body></html>`,
			format: situate.FormatHTML, title: "Seite Eins", lang: "de",
			want:    []string{"# Überschrift", "Erster **Absatz**.", "| A | B |", "| 1 | 2 |"},
			notWant: []string{"SCRIPT", "SITEHEADER", "NAV", "SEARCH", "ASIDE", "FOOTER", ".a{}"},
		},
		{
			name: "html title from h1, main content only", file: "q.htm",
			data:   `<body><div>OUTSIDE</div><main><h1>Main Heading</h1><p>inside</p></main></body>`,
			format: situate.FormatHTML, title: "Main Heading",
			want: []string{"# Main Heading", "inside"}, notWant: []string{"OUTSIDE"},
		},
		{
			name: "html chrome by class without main", file: "s.html",
			data:   `<body><div id="header">TOPBAR</div><div class="sidebar">SIDEBAR</div><div class="breadcrumb">CRUMBS</div><div id="content"><h1>Body</h1><p>text</p></div><div class="site-footer">BOTTOM</div></body>`,
			format: situate.FormatHTML, title: "Body",
			want: []string{"# Body", "text"}, notWant: []string{"TOPBAR", "SIDEBAR", "CRUMBS", "BOTTOM"},
		},
		{
			name: "html article header kept", file: "r.html",
			data:   `<body><header>SITE</header><article><header><h1>Kept</h1></header><p>x</p><footer>by me</footer></article></body>`,
			format: situate.FormatHTML, title: "Kept",
			want: []string{"# Kept", "by me"}, notWant: []string{"SITE"},
		},
		{
			name: "html sniffed without extension", file: "page", data: "<!DOCTYPE html><html><body><p>sniffed</p></body></html>",
			format: situate.FormatHTML, title: "page", want: []string{"sniffed"},
		},
		{
			name: "go code verbatim", file: "main.go", data: "package main\n\n// # not a heading\nfunc main() {}\n",
			format: situate.FormatCode, title: "main.go", want: []string{"package main\n\n// # not a heading\nfunc main() {}\n"}, lang: "en", // code: the comments' language, else English
		},
		{
			name: "python code", file: "x.py", data: "def f():\n    return 1\n", format: situate.FormatCode, title: "x.py",
			want: []string{"    return 1"}, lang: "en", // code: the comments' language, else English
		},
		{
			name: "Makefile is code", file: "Makefile", data: "all:\n\tgo build\n", format: situate.FormatCode, title: "Makefile", lang: "en", // code: the comments' language, else English
		},
		{
			name: "unknown extension text", file: "README", data: "plain readme\n", format: situate.FormatText, title: "README",
		},
		{
			name: "pdf metadata title", file: "x.pdf", data: "%PDF-1.7 fake", opts: Options{PDF: fakePDFMeta{fakePDF{title: "Meta Title"}}},
			format: situate.FormatPDF, title: "Meta Title", want: []string{"\n\nsecond page"},
		},
		{
			name: "pdf first line title", file: "y.pdf", data: "%PDF-1.7 fake", opts: Options{PDF: fakePDF{}},
			format: situate.FormatPDF, title: "First line of a 13-byte PDF",
		},
		{
			name: "pdf sniffed in .txt", file: "z.txt", data: "%PDF-1.4 fake", opts: Options{PDF: fakePDF{}},
			format: situate.FormatPDF,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse(context.Background(), []byte(tt.data), "dir/"+tt.file, tt.file, tt.opts)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if doc.ID != "dir/"+tt.file {
				t.Errorf("ID = %q", doc.ID)
			}
			if doc.Format != tt.format {
				t.Errorf("Format = %q, want %q", doc.Format, tt.format)
			}
			if tt.title != "" && doc.Title != tt.title {
				t.Errorf("Title = %q, want %q", doc.Title, tt.title)
			}
			if doc.Lang != tt.lang {
				t.Errorf("Lang = %q, want %q", doc.Lang, tt.lang)
			}
			for _, w := range tt.want {
				if !strings.Contains(doc.Text, w) {
					t.Errorf("Text lacks %q:\n%s", w, doc.Text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(doc.Text, w) {
					t.Errorf("Text contains %q:\n%s", w, doc.Text)
				}
			}
			if !utf8.ValidString(doc.Text) {
				t.Error("Text is not valid UTF-8")
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, file string
		data       []byte
		opts       Options
		want       error
		msg        string
	}{
		{"empty", "e.txt", nil, Options{}, ErrEmpty, "empty file"},
		{"NUL in txt", "b.txt", []byte("abc\x00def"), Options{}, ErrBinary, "binary content"},
		{"control chars", "c.txt", []byte("\x01\x02\x03\x04\x05\x06abc"), Options{}, ErrBinary, "binary content"},
		{"no pdf extractor", "x.pdf", []byte("%PDF-1.7"), Options{}, ErrNoPDF, "pdf: no extractor configured"},
		{"whitespace only", "w.md", []byte(" \n\t\n"), Options{}, ErrNoText, "no text"},
		{"html without content", "n.html", []byte("<html><body><nav>only nav</nav></body></html>"), Options{}, ErrNoText, "no text"},
		{"image", "p.png", []byte("\x89PNG\r\n"), Options{}, ErrUnsupported, "unsupported format: .png"},
		{"docx not zip", "d.docx", []byte("hello"), Options{}, nil, "docx: not a zip archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(context.Background(), tt.data, tt.file, tt.file, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != tt.file {
				t.Fatalf("error %v (%T) is not a *FileError naming %s", err, err, tt.file)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v does not wrap %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), tt.file) {
				t.Errorf("error %q lacks %q or the file name", err, tt.msg)
			}
		})
	}
}

func TestParseFileFixtures(t *testing.T) {
	// The bad fixtures: each gives a *FileError naming the file.
	bad := []struct {
		file string
		want error
		msg  string
	}{
		{"testdata/bad/empty.txt", ErrEmpty, "empty file"},
		{"testdata/bad/binary.txt", ErrBinary, "binary content"},
		{"testdata/bad/invalid-utf8.txt", ErrEncoding, "invalid UTF-8 at byte 12"},
		{"testdata/bad/broken.docx", nil, "docx: not a zip archive"},
		{"testdata/bad/missing.txt", os.ErrNotExist, "stat testdata/bad/missing.txt"},
	}
	for _, tt := range bad {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			_, err := ParseFile(context.Background(), tt.file, "", Options{PDF: fakePDF{}})
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != tt.file {
				t.Fatalf("error %v is not a *FileError naming %s", err, tt.file)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v does not wrap %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q lacks %q", err, tt.msg)
			}
		})
	}
}

func TestParseFileTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(p, []byte(strings.Repeat("a", 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ParseFile(context.Background(), p, "", Options{MaxFileSize: 1000})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2000 bytes > max 1000") {
		t.Fatalf("err = %v, want ErrTooLarge with sizes", err)
	}
	// ParseReader (stdin) enforces the same limit while reading.
	_, err = ParseReader(context.Background(), strings.NewReader(strings.Repeat("a", 2000)), "stdin", "-", Options{MaxFileSize: 1000})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ParseReader err = %v, want ErrTooLarge", err)
	}
	doc, err := ParseReader(context.Background(), strings.NewReader("# Piped\n\ntext"), "stdin", "notes.md", Options{})
	if err != nil || doc.Title != "Piped" || doc.Format != situate.FormatMarkdown || doc.ID != "stdin" {
		t.Fatalf("ParseReader = %+v, %v", doc, err)
	}
}

func TestDOCXFixtures(t *testing.T) {
	tests := []struct {
		file, title, lang string
		want              []string
	}{
		{"testdata/corpus/en/marrow-creek-railway.docx", "Marrow Creek Railway", "en", []string{
			"# Marrow Creek Railway\n\nThe Marrow Creek Railway was a narrow-gauge line",
			"## Route\n\nThe line was 47 kilometres long",
			"\n- Eleven timber trestles",
			"| Nr. | Text |\n| --- | --- |\n| 1 | Four Shay geared engines",
		}},
		// German Word files use localized style ids ("berschrift2"); the
		// level comes from styles.xml.
		{"testdata/corpus/de/glockengiesserei-hallenbach.docx", "Glockengießerei Hallenbach", "de", []string{
			"# Glockengießerei Hallenbach\n",
			"## Der Guss\n\nDie Form wird aus Lehm",
			"| 1 | Die größte je hier gegossene Glocke wiegt 9,4 Tonnen",
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			doc, err := ParseFile(context.Background(), tt.file, "", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tt.title || doc.Lang != tt.lang || doc.Format != situate.FormatDOCX {
				t.Errorf("Title, Lang, Format = %q, %q, %q", doc.Title, doc.Lang, doc.Format)
			}
			for _, w := range tt.want {
				if !strings.Contains(doc.Text, w) {
					t.Errorf("Text lacks %q:\n%s", w, doc.Text)
				}
			}
			if strings.Contains(doc.Text, "\n\n\n") {
				t.Errorf("Text has runs of blank lines:\n%q", doc.Text)
			}
		})
	}
}

func TestHTMLFixtures(t *testing.T) {
	for _, tt := range []struct{ file, title, lang, heading string }{
		{"testdata/corpus/de/talsperre-wendelbach.html", "Talsperre Wendelbach", "de", "## Technik"},
		{"testdata/corpus/zh/qinglan-qiao.html", "青岚古桥", "zh", "## 结构"},
	} {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			doc, err := ParseFile(context.Background(), tt.file, "", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tt.title || doc.Lang != tt.lang {
				t.Errorf("Title, Lang = %q, %q", doc.Title, doc.Lang)
			}
			if !strings.HasPrefix(doc.Text, "# "+tt.title+"\n") || !strings.Contains(doc.Text, tt.heading) || !strings.Contains(doc.Text, "| 1 | ") {
				t.Errorf("Text lacks title heading, %q or table:\n%s", tt.heading, doc.Text)
			}
			for _, chrome := range []string{"SITEHEADER", "NAVLINK", "FORMBUTTON", "ASIDE", "SITEFOOTER", "NAVSCRIPT", "font-family"} {
				if strings.Contains(doc.Text, chrome) {
					t.Errorf("page chrome %q left in text", chrome)
				}
			}
		})
	}
}

// TestHTMLTextIsNotMarkdownEscaped: the Markdown a page becomes is read and
// searched, not rendered again, so characters Markdown would escape and
// entities stay what the page showed — an exact answer string must match.
func TestHTMLTextIsNotMarkdownEscaped(t *testing.T) {
	page := `<html><body><main><h1>Report</h1><p>Revenue grew 3% in Q3_2024 (a *record*) &amp; [see] &lt;tag&gt; C++</p>` +
		"<pre><code>if a &lt; b { x_y() }</code></pre></main></body></html>"
	doc, err := Parse(context.Background(), []byte(page), "r.html", "r.html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Revenue grew 3% in Q3_2024 (a *record*) & [see] <tag> C++", "if a < b { x_y() }"} {
		if !strings.Contains(doc.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, doc.Text)
		}
	}
}

// TestHTMLHeadingAnchorsDropped: anchors that generated documentation puts
// in headings (the Node.js docs' permalink "#", DocBook's <a name>) do not
// become Markdown links in the heading, which every chunk below carries as
// its heading path; a real link in a heading keeps its text; links in the
// body stay links.
func TestHTMLHeadingAnchorsDropped(t *testing.T) {
	page := `<html><body><main>` +
		`<h1 class="title"><a name="dist.readme-developers"></a>6. README_DEVELOPERS</h1>` +
		`<h2>URL<span><a class="mark" href="#url" id="url">#</a></span><a aria-hidden="true" class="legacy" id="url_url"></a></h2>` +
		`<p>See <a href="https://example.org/spec">the spec</a>.</p>` +
		`<h3><a href="#parse">url.parse()</a> ¶<a href="#p">¶</a></h3><p>Parses.</p>` +
		`</main></body></html>`
	doc, err := Parse(context.Background(), []byte(page), "api/url.html", "url.html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# 6. README_DEVELOPERS\n", "## URL\n", "### url.parse() ¶\n", "[the spec](https://example.org/spec)"} {
		if !strings.Contains(doc.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, doc.Text)
		}
	}
	if strings.Contains(doc.Text, "](#") || strings.Contains(doc.Text, "[]()") {
		t.Errorf("an anchor link is left in a heading:\n%s", doc.Text)
	}
}
