package ingest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// boilerplate lists what is removed from a page before conversion: page
// chrome (navigation, banners, sidebars), scripts, styles and forms.
const boilerplate = "script, style, noscript, template, iframe, object, embed, svg, canvas, " +
	"form, button, input, select, textarea, dialog, nav, aside, menu, " +
	"[role=navigation], [role=banner], [role=contentinfo], [role=complementary], [role=search], " +
	"[aria-hidden=true], [hidden]"

// decodeHTML decodes a page like decodeText, except that a page that is not
// UTF-8 is decoded by its <meta charset> declaration when it has one.
func decodeHTML(data []byte) (string, error) {
	if utf8.Valid(data) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return decodeText(data)
	}
	enc, name, certain := charset.DetermineEncoding(data, "text/html")
	if !certain && name == "windows-1252" { // the default guess: no declaration
		return decodeText(data)
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", fmt.Errorf("%w: declared charset %s: %w", ErrEncoding, name, err)
	}
	if bin, why := binaryText(string(out)); bin {
		return "", fmt.Errorf("%w: %s", ErrBinary, why)
	}
	return normalizeNewlines(strings.ToValidUTF8(string(out), "\uFFFD")), nil
}

// classChrome is page chrome found by class or id on pages without
// <main> or <article>.
const classChrome = "#nav, #navbar, #menu, #sidebar, #breadcrumbs, #footer, #header, " +
	".nav, .navbar, .navigation, .menu, .sidebar, .breadcrumb, .breadcrumbs, .site-header, .site-footer, " +
	".skip-link, .cookie-banner, #cookie-banner, .cookie-consent, .share-buttons, .social-share"

// parseHTML keeps a page's main content as Markdown (headings, lists and
// tables preserved). The main content is <main> (or [role=main]), else the
// only <article>, else <body>; page-level <header> and <footer> are dropped,
// ones inside an article are kept. The title is <title>, else the first
// <h1>; lang comes from <html lang>.
func parseHTML(ctx context.Context, text string) (md, title, lang string, err error) {
	root, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return "", "", "", fmt.Errorf("html: %w", err)
	}
	doc := goquery.NewDocumentFromNode(root)
	title = doc.Find("title").First().Text()
	if strings.TrimSpace(title) == "" {
		title = doc.Find("h1").First().Text()
	}
	if l, ok := doc.Find("html").First().Attr("lang"); ok {
		lang = normalizeLang(l)
	}
	doc.Find(boilerplate).Remove()
	plainHeadingLinks(doc)
	doc.Find("header, footer").Each(func(_ int, s *goquery.Selection) {
		if s.ParentsFiltered("article, main, [role=main]").Length() == 0 {
			s.Remove()
		}
	})
	content := doc.Find("main, [role=main]").First()
	if content.Length() == 0 {
		if a := doc.Find("article"); a.Length() == 1 {
			content = a
		}
	}
	if content.Length() == 0 {
		// No semantic markup: also drop chrome recognisable by class or id.
		doc.Find(classChrome).Remove()
		content = doc.Find("body").First()
	}
	if content.Length() == 0 {
		return "", title, lang, nil
	}
	out, err := newHTMLConverter().ConvertNode(content.Get(0), converter.WithContext(ctx))
	if err != nil {
		return "", "", "", fmt.Errorf("html to markdown: %w", err)
	}
	return strings.TrimSpace(unescapeEntities(string(out))) + "\n", title, lang, nil
}

// plainHeadingLinks keeps a heading's text only: generated documentation
// puts anchors in headings (Node.js: "URL<a href="#url">#</a>", DocBook:
// "<a name="x"></a>6. README"), which became Markdown links in the heading
// path of every chunk below ("URL[#](#all_url_url) > ...", "[]()6. README").
// A link whose text is empty or a permalink sign is dropped; any other link
// in a heading is replaced by its text.
func plainHeadingLinks(doc *goquery.Document) {
	doc.Find("h1 a, h2 a, h3 a, h4 a, h5 a, h6 a").Each(func(_ int, a *goquery.Selection) {
		switch strings.TrimSpace(a.Text()) {
		case "", "#", "¶", "§", "🔗", "link", "permalink":
			a.Remove()
		default:
			a.ReplaceWithSelection(a.Contents())
		}
	})
}

// unescapeEntities decodes the HTML entities the converter leaves in text
// ("&lt;tag&gt;", "&amp;") so the document says what the page showed;
// fenced code blocks are kept as converted.
func unescapeEntities(md string) string {
	lines := strings.SplitAfter(md, "\n")
	inFence := false
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if !inFence && strings.Contains(l, "&") {
			lines[i] = html.UnescapeString(l)
		}
	}
	return strings.Join(lines, "")
}

func newHTMLConverter() *converter.Converter {
	return converter.NewConverter(
		// No Markdown escaping: the text is read and searched, not rendered
		// again, and "Q3\_2024" or "\*" would hide what the page says from
		// BM25 and from exact-answer checks.
		converter.WithEscapeMode(converter.EscapeModeDisabled),
		converter.WithPlugins(
			base.NewBasePlugin(),
			commonmark.NewCommonmarkPlugin(),
			// Minimal padding: aligned columns would fill chunks with spaces.
			table.NewTablePlugin(
				table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
				table.WithSkipEmptyRows(true),
				table.WithHeaderPromotion(true),
			),
		))
}

// normalizeLang reduces a BCP 47 tag ("de-CH", "zh_Hans") to its lowercase
// primary subtag when it looks like an ISO 639 code, else "".
func normalizeLang(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	if len(tag) < 2 || len(tag) > 3 {
		return ""
	}
	for _, c := range tag {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	return tag
}
