package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// WordprocessingML namespace of w: elements.
const nsW = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

// parseDOCX extracts a Word document's body as Markdown-ish text: one line
// per paragraph, headings as "#" lines, list items as "- ", tables as
// Markdown tables. The title is docProps/core.xml dc:title, else the first
// heading; lang is its declared dc:language. maxXML bounds the decompressed size of each XML part read.
func parseDOCX(data []byte, maxXML int64) (text, title, lang string, err error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", "", "", fmt.Errorf("docx: not a zip archive: %w", err)
	}
	parts := map[string]*zip.File{}
	for _, f := range zr.File {
		parts[strings.TrimPrefix(f.Name, "/")] = f
	}
	body, ok := parts["word/document.xml"]
	if !ok {
		return "", "", "", errors.New("docx: word/document.xml missing")
	}
	read := func(f *zip.File) ([]byte, error) {
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("docx: %s: %w", f.Name, err)
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, maxXML+1))
		if err != nil {
			return nil, fmt.Errorf("docx: %s: %w", f.Name, err)
		}
		if int64(len(b)) > maxXML {
			return nil, fmt.Errorf("docx: %s: %w: decompresses to more than %d bytes", f.Name, ErrTooLarge, maxXML)
		}
		return b, nil
	}
	levels := map[string]int{}
	if f, ok := parts["word/styles.xml"]; ok {
		if b, err := read(f); err == nil {
			levels = docxHeadingStyles(b)
		}
	}
	if f, ok := parts["docProps/core.xml"]; ok {
		if b, err := read(f); err == nil {
			title, lang = docxCore(b)
		}
	}
	b, err := read(body)
	if err != nil {
		return "", "", "", err
	}
	text, heading, err := docxBody(b, levels)
	if err != nil {
		return "", "", "", err
	}
	if strings.TrimSpace(title) == "" {
		title = heading
	}
	return text, title, lang, nil
}

var headingStyleID = regexp.MustCompile(`(?i)^(?:heading|berschrift|titre|titolo|encabezado|заголовок|标题)\s*([1-9])$`)

// docxHeadingStyles maps paragraph style ids to heading levels using
// styles.xml: a style named "heading N" or "Title", or with an outline level.
func docxHeadingStyles(b []byte) map[string]int {
	var styles struct {
		Style []struct {
			ID   string `xml:"styleId,attr"`
			Name struct {
				Val string `xml:"val,attr"`
			} `xml:"name"`
			PPr struct {
				Outline *struct {
					Val string `xml:"val,attr"`
				} `xml:"outlineLvl"`
			} `xml:"pPr"`
		} `xml:"style"`
	}
	levels := map[string]int{}
	if err := xml.Unmarshal(b, &styles); err != nil {
		return levels
	}
	for _, s := range styles.Style {
		name := strings.ToLower(strings.TrimSpace(s.Name.Val))
		switch {
		case name == "title":
			levels[s.ID] = 1
		case strings.HasPrefix(name, "heading "):
			if n, err := strconv.Atoi(strings.TrimPrefix(name, "heading ")); err == nil && n >= 1 && n <= 9 {
				levels[s.ID] = n
			}
		case s.PPr.Outline != nil:
			if n, err := strconv.Atoi(s.PPr.Outline.Val); err == nil && n >= 0 && n <= 8 {
				levels[s.ID] = n + 1
			}
		}
	}
	return levels
}

func docxCore(b []byte) (title, lang string) {
	var core struct {
		Title    string `xml:"http://purl.org/dc/elements/1.1/ title"`
		Language string `xml:"http://purl.org/dc/elements/1.1/ language"`
	}
	if err := xml.Unmarshal(b, &core); err != nil {
		return "", ""
	}
	return strings.TrimSpace(core.Title), normalizeLang(core.Language)
}

func docxHeadingLevel(styleID string, levels map[string]int) int {
	if n, ok := levels[styleID]; ok {
		return n
	}
	if strings.EqualFold(styleID, "Title") {
		return 1
	}
	if m := headingStyleID.FindStringSubmatch(styleID); m != nil {
		return int(m[1][0] - '0')
	}
	return 0
}

// docxBody walks document.xml. It returns the text and the first heading.
func docxBody(b []byte, levels map[string]int) (string, string, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = false
	var (
		out      strings.Builder
		para     strings.Builder
		style    string
		list     bool
		inText   bool
		first    string
		cells    []string
		rows     [][]string
		tblDepth int
		inPPr    bool
		inList   bool // the last paragraph written was a list item
	)
	flushPara := func() {
		p := strings.TrimRight(para.String(), " \t")
		para.Reset()
		if tblDepth > 0 {
			// Paragraphs inside a cell join with a space.
			if len(cells) > 0 && strings.TrimSpace(p) != "" {
				if cells[len(cells)-1] != "" {
					cells[len(cells)-1] += " "
				}
				cells[len(cells)-1] += strings.TrimSpace(strings.ReplaceAll(p, "\n", " "))
			}
			style, list = "", false
			return
		}
		if lvl := docxHeadingLevel(style, levels); lvl > 0 && strings.TrimSpace(p) != "" {
			h := strings.TrimSpace(strings.ReplaceAll(p, "\n", " "))
			if first == "" {
				first = h
			}
			if out.Len() > 0 && !strings.HasSuffix(out.String(), "\n\n") {
				out.WriteString("\n")
			}
			out.WriteString(strings.Repeat("#", lvl) + " " + h + "\n\n")
		} else if strings.TrimSpace(p) != "" {
			if list {
				out.WriteString("- ")
			} else if inList {
				out.WriteString("\n") // end the list before a paragraph
			}
			out.WriteString(p)
			out.WriteString("\n")
			if !list {
				out.WriteString("\n")
			}
		}
		if strings.TrimSpace(p) != "" {
			inList = list
		}
		style, list = "", false
	}
	flushTable := func() {
		if len(rows) == 0 {
			return
		}
		if inList {
			out.WriteString("\n")
			inList = false
		}
		width := 0
		for _, r := range rows {
			width = max(width, len(r))
		}
		for i, r := range rows {
			out.WriteString("|")
			for c := range width {
				cell := ""
				if c < len(r) {
					cell = strings.ReplaceAll(r[c], "|", `\|`)
				}
				out.WriteString(" " + cell + " |")
			}
			out.WriteString("\n")
			if i == 0 {
				out.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
			}
		}
		out.WriteString("\n")
		rows = nil
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", "", fmt.Errorf("docx: word/document.xml: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != nsW {
				continue
			}
			switch t.Name.Local {
			case "p":
				para.Reset()
				style, list = "", false
			case "pPr":
				inPPr = true
			case "pStyle":
				if inPPr {
					style = attr(t, "val")
				}
			case "numPr":
				if inPPr {
					list = true
				}
			case "t", "delText":
				inText = t.Name.Local == "t"
			case "tab":
				if !inPPr {
					para.WriteString("\t")
				}
			case "br", "cr":
				para.WriteString("\n")
			case "tbl":
				if tblDepth == 0 {
					flushPara()
					rows = nil
				}
				tblDepth++
			case "tr":
				if tblDepth == 1 {
					cells = nil
				}
			case "tc":
				if tblDepth == 1 {
					cells = append(cells, "")
				}
			}
		case xml.EndElement:
			if t.Name.Space != nsW {
				continue
			}
			switch t.Name.Local {
			case "p":
				flushPara()
			case "pPr":
				inPPr = false
			case "t", "delText":
				inText = false
			case "tr":
				if tblDepth == 1 {
					rows = append(rows, cells)
					cells = nil
				}
			case "tbl":
				tblDepth--
				if tblDepth == 0 {
					flushTable()
				}
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		}
	}
	flushPara()
	return strings.TrimSpace(out.String()) + "\n", first, nil
}

func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
