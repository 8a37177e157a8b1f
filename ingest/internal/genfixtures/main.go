// Command genfixtures writes the ingest test corpus: Markdown, HTML, PDF,
// DOCX and Go documents in English, German, Russian and Chinese, the
// queries.json that goes with them, and the bad inputs (broken PDF, binary
// .txt, invalid UTF-8, empty file). Run it with `go generate ./ingest/...`;
// the output is committed so tests and CI need no fonts.
//
// PDFs need TrueType fonts from Debian:
//
//	apt-get install -y fonts-dejavu-core fonts-droid-fallback
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"go/format"
	"html"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
)

var (
	out       = flag.String("out", "testdata", "output directory")
	fontDir   = flag.String("fonts", "/usr/share/fonts/truetype", "directory holding dejavu/ and droid/")
	fixedTime = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		log.Fatalf("genfixtures: %v", err)
	}
}

type manifestEntry struct {
	ID      string  `json:"id"`
	Lang    string  `json:"lang"`
	Title   string  `json:"title"`
	Entity  string  `json:"entity"`
	Queries []query `json:"queries"`
}

func run() error {
	corpusDir := filepath.Join(*out, "corpus")
	var manifest []manifestEntry
	for _, s := range corpus {
		if err := s.check(); err != nil {
			return err
		}
		var data []byte
		var err error
		switch filepath.Ext(s.Path) {
		case ".md":
			data = []byte(renderMarkdown(s))
		case ".html":
			data = []byte(renderHTML(s))
		case ".pdf":
			data, err = renderPDF(s)
		case ".docx":
			data, err = renderDOCX(s)
		default:
			err = fmt.Errorf("%s: no renderer", s.Path)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.Path, err)
		}
		if err := write(filepath.Join(corpusDir, s.Path), data); err != nil {
			return err
		}
		manifest = append(manifest, manifestEntry{ID: s.Path, Lang: s.Lang, Title: s.Title, Entity: s.Entity, Queries: s.Queries})
	}
	for _, g := range goFiles {
		src, err := format.Source([]byte(g.Text))
		if err != nil {
			return fmt.Errorf("%s: gofmt: %w", g.Path, err)
		}
		if err := write(filepath.Join(corpusDir, g.Path), src); err != nil {
			return err
		}
		manifest = append(manifest, manifestEntry{ID: g.Path, Lang: g.Lang, Title: filepath.Base(g.Path), Entity: filepath.Base(g.Path), Queries: g.Queries})
	}
	mj, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return err
	}
	if err := write(filepath.Join(*out, "corpus-queries.json"), append(mj, '\n')); err != nil {
		return err
	}
	return writeBad(filepath.Join(*out, "bad"))
}

// check enforces the corpus rule: answer paragraphs never name the entity.
func (s spec) check() error {
	for _, q := range s.Queries {
		found := false
		for _, sec := range s.Sections {
			for _, p := range sec.Paras {
				if strings.Contains(p, q.Answer) {
					found = true
					if strings.Contains(p, s.Entity) {
						return fmt.Errorf("%s: answer paragraph %q names the entity %q", s.Path, q.Answer, s.Entity)
					}
				}
			}
		}
		if !found {
			return fmt.Errorf("%s: answer %q is in no section", s.Path, q.Answer)
		}
	}
	return nil
}

func write(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func renderMarkdown(s spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", s.Title, s.Intro)
	for _, sec := range s.Sections {
		fmt.Fprintf(&b, "\n## %s\n", sec.Heading)
		for _, p := range sec.Paras {
			fmt.Fprintf(&b, "\n%s\n", p)
		}
	}
	return b.String()
}

// renderHTML wraps the article in page chrome that ingest must strip:
// navigation, a site header and footer, a sidebar, a script, a style and a
// search form. The last section becomes a table row pair to exercise the
// table conversion.
func renderHTML(s spec) string {
	e := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=%q>\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", s.Lang, e(s.Title))
	b.WriteString("<style>body { font-family: serif; } .nav { color: red; }</style>\n")
	b.WriteString("<script>window.analytics = { track: function () { return 'NAVSCRIPT'; } };</script>\n</head>\n<body>\n")
	b.WriteString("<header class=\"site\"><a href=\"/\">SITEHEADER Wiki</a></header>\n")
	b.WriteString("<nav><ul><li><a href=\"/a\">NAVLINK Start</a></li><li><a href=\"/b\">NAVLINK Index</a></li></ul></nav>\n")
	b.WriteString("<form action=\"/search\"><input name=\"q\"><button>FORMBUTTON</button></form>\n")
	fmt.Fprintf(&b, "<main>\n<article>\n<h1>%s</h1>\n<p>%s</p>\n", e(s.Title), e(s.Intro))
	for i, sec := range s.Sections {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", e(sec.Heading))
		if i == len(s.Sections)-1 {
			b.WriteString("<table>\n<thead><tr><th>#</th><th>Text</th></tr></thead>\n<tbody>\n")
			for j, p := range sec.Paras {
				fmt.Fprintf(&b, "<tr><td>%d</td><td>%s</td></tr>\n", j+1, e(p))
			}
			b.WriteString("</tbody>\n</table>\n")
			continue
		}
		for _, p := range sec.Paras {
			fmt.Fprintf(&b, "<p>%s</p>\n", e(p))
		}
	}
	b.WriteString("</article>\n</main>\n")
	b.WriteString("<aside><h3>ASIDE Related</h3><p>ASIDE More pages</p></aside>\n")
	b.WriteString("<footer>SITEFOOTER © 2024</footer>\n</body>\n</html>\n")
	return b.String()
}

// renderPDF lays the document out on two pages (the second starts with the
// last section) with DejaVu Sans, or Droid Sans Fallback for Chinese.
func renderPDF(s spec) ([]byte, error) {
	font, file := "dejavu", filepath.Join(*fontDir, "dejavu", "DejaVuSans.ttf")
	if s.Lang == "zh" {
		font, file = "droid", filepath.Join(*fontDir, "droid", "DroidSansFallbackFull.ttf")
	}
	ttf, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("font missing (apt-get install -y fonts-dejavu-core fonts-droid-fallback): %w", err)
	}
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(fixedTime)
	pdf.SetModificationDate(fixedTime)
	pdf.SetCatalogSort(true)
	pdf.SetTitle(s.Title, true)
	pdf.SetAuthor("situate test fixtures", true)
	pdf.SetCreator("situate genfixtures", true)
	pdf.AddUTF8FontFromBytes(font, "", ttf)
	pdf.SetMargins(20, 20, 20)
	pdf.AddPage()
	// fpdf's MultiCell drops the character at a line break when the text
	// has no spaces (Chinese), so lines are broken here, rune by rune.
	block := func(h float64, text string) {
		if s.Lang != "zh" {
			pdf.MultiCell(0, h, text, "", "L", false)
			return
		}
		w, _ := pdf.GetPageSize()
		left, _, right, _ := pdf.GetMargins()
		width := w - left - right - 2
		line := ""
		for _, r := range text {
			if pdf.GetStringWidth(line+string(r)) > width {
				pdf.CellFormat(0, h, line, "", 1, "L", false, 0, "")
				line = ""
			}
			line += string(r)
		}
		if line != "" {
			pdf.CellFormat(0, h, line, "", 1, "L", false, 0, "")
		}
	}
	pdf.SetFont(font, "", 20)
	block(10, s.Title)
	pdf.Ln(4)
	pdf.SetFont(font, "", 11)
	block(6, s.Intro)
	for i, sec := range s.Sections {
		if i == len(s.Sections)-1 {
			pdf.AddPage()
		}
		pdf.Ln(4)
		pdf.SetFont(font, "", 15)
		block(8, sec.Heading)
		pdf.SetFont(font, "", 11)
		for _, p := range sec.Paras {
			pdf.Ln(2)
			block(6, p)
		}
	}
	if err := pdf.Error(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// renderDOCX writes a minimal WordprocessingML package. German documents
// use Word's localized style ids ("berschrift1" for "heading 1") so the
// parser must resolve them through styles.xml; the first section's second
// paragraph is a list item and the last section is a table.
func renderDOCX(s spec) ([]byte, error) {
	titleStyle, h2Style := "Title", "Heading2"
	if s.Lang == "de" {
		titleStyle, h2Style = "Titel", "berschrift2"
	}
	x := func(t string) string {
		var b bytes.Buffer
		xml.EscapeText(&b, []byte(t))
		return b.String()
	}
	para := func(style, text string, list bool) string {
		ppr := ""
		if style != "" || list {
			ppr = "<w:pPr>"
			if style != "" {
				ppr += `<w:pStyle w:val="` + style + `"/>`
			}
			if list {
				ppr += `<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>`
			}
			ppr += "</w:pPr>"
		}
		// Split the text over two runs, as Word does after an edit.
		cut := len(text) / 2
		for cut > 0 && !utf8RuneStart(text[cut]) {
			cut--
		}
		return "<w:p>" + ppr + `<w:r><w:t xml:space="preserve">` + x(text[:cut]) + `</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">` + x(text[cut:]) + "</w:t></w:r></w:p>"
	}
	var body strings.Builder
	body.WriteString(para(titleStyle, s.Title, false))
	body.WriteString(para("", s.Intro, false))
	for i, sec := range s.Sections {
		body.WriteString(para(h2Style, sec.Heading, false))
		if i == len(s.Sections)-1 {
			body.WriteString("<w:tbl><w:tblPr><w:tblW w:w=\"0\" w:type=\"auto\"/></w:tblPr>")
			body.WriteString("<w:tr><w:tc><w:p><w:r><w:t>Nr.</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Text</w:t></w:r></w:p></w:tc></w:tr>")
			for j, p := range sec.Paras {
				fmt.Fprintf(&body, "<w:tr><w:tc><w:p><w:r><w:t>%d</w:t></w:r></w:p></w:tc><w:tc>%s</w:tc></w:tr>", j+1, para("", p, false))
			}
			body.WriteString("</w:tbl>")
			continue
		}
		for j, p := range sec.Paras {
			body.WriteString(para("", p, i == 0 && j == 1))
		}
	}
	const ns = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	document := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<w:document ` + ns + `><w:body>` + body.String() +
		`<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`
	styleXML := func(id, name string, outline int) string {
		ol := ""
		if outline >= 0 {
			ol = fmt.Sprintf(`<w:pPr><w:outlineLvl w:val="%d"/></w:pPr>`, outline)
		}
		return `<w:style w:type="paragraph" w:styleId="` + id + `"><w:name w:val="` + name + `"/>` + ol + `</w:style>`
	}
	styles := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<w:styles ` + ns + `>` + styleXML("Normal", "Normal", -1) +
		styleXML(titleStyle, "Title", -1) + styleXML(h2Style, "heading 2", 1) + `</w:styles>`
	core := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
		`<dc:title>` + x(s.Title) + `</dc:title><dc:creator>situate test fixtures</dc:creator><dc:language>` + s.Lang + `</dc:language></cp:coreProperties>`
	contentTypes := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
		`<Default Extension="xml" ContentType="application/xml"/>` +
		`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
		`<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>` +
		`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
		`</Types>`
	rels := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
		`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
		`</Relationships>`
	docRels := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
		`</Relationships>`
	return zipFiles([][2]string{
		{"[Content_Types].xml", contentTypes},
		{"_rels/.rels", rels},
		{"word/document.xml", document},
		{"word/_rels/document.xml.rels", docRels},
		{"word/styles.xml", styles},
		{"docProps/core.xml", core},
	})
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func zipFiles(files [][2]string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f[0], Method: zip.Deflate, Modified: fixedTime})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeBad writes inputs every parser must refuse with a clear error.
func writeBad(dir string) error {
	good, err := renderPDF(corpus[4])
	if err != nil {
		return err
	}
	// A PDF cut off after its first kilobyte: header present, xref and
	// objects gone.
	files := map[string][]byte{
		"broken.pdf": good[:1024],
		// PNG signature and an IHDR chunk: NUL bytes in a .txt file.
		"binary.txt": append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"), bytes.Repeat([]byte{0x1f, 0x8b, 0x00, 0xff}, 32)...),
		// Bytes 0x81 and 0x8D are undefined in Windows-1252 and the runs of
		// high bytes decode as no known script.
		"invalid-utf8.txt": []byte("Header line\n\x81\x8d\x8f\x90\x9d\xc3\x28\xa0\xa1\xe2\x28\xa1\xf0\x28\x8c\xbc trailing\n"),
		"empty.txt":        {},
		// Not a zip archive although named .docx.
		"broken.docx": []byte("PK\x03\x04 this is not really a zip archive"),
	}
	for name, data := range files {
		if err := write(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}
