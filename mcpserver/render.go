package mcpserver

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The text content of each tool result is for a model to read. Document text
// and generated contexts are quoted line by line behind a marker, so nothing
// a document says can pass for a label, a result boundary or a context.
const (
	textMark    = "  │ "
	contextMark = "  ┆ "
)

func quote(b *strings.Builder, mark, s string) {
	for _, line := range splitLines(s) {
		if line == "" {
			b.WriteString(strings.TrimRight(mark, " "))
		} else {
			b.WriteString(mark)
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
}

// splitLines splits s at every character a reader may show as a line
// break: "\n", "\r\n", "\r", vertical tab, form feed, NEL (U+0085), and
// the line and paragraph separators (U+2028, U+2029); a text ending in one
// gets no empty last line.
func splitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
			lines = append(lines, s[start:i])
			if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			start = i + size
		}
		i += size
	}
	if start < len(s) || len(lines) == 0 {
		lines = append(lines, s[start:])
	}
	for len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func writeChunk(b *strings.Builder, heading, text string, c *Gen) {
	if heading != "" {
		fmt.Fprintf(b, "heading: %s\n", oneLine(heading))
	}
	if c != nil {
		fmt.Fprintf(b, "generated context (written by %s; not part of the document", oneLine(c.WrittenBy))
		if len(c.Flags) > 0 {
			fmt.Fprintf(b, "; flagged: %s", oneLine(strings.Join(c.Flags, " ")))
		}
		b.WriteString("):\n")
		quote(b, contextMark, c.Text)
	}
	b.WriteString("original text:\n")
	quote(b, textMark, text)
}

// oneLine keeps a label on its line: a title or heading with a line break
// cannot start a line of its own.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func renderSearch(out SearchOutput) string {
	var b strings.Builder
	if len(out.Results) == 0 {
		fmt.Fprintf(&b, "no results for %q\n", out.Query)
		return b.String()
	}
	fmt.Fprintf(&b, "%d %s for %q\n", len(out.Results), plural(len(out.Results), "result", "results"), out.Query)
	for _, r := range out.Results {
		fmt.Fprintf(&b, "\n[%d] doc %q chunk %d, score %.4f\n", r.Rank, r.Doc, r.Chunk, r.Score)
		if r.Title != "" {
			fmt.Fprintf(&b, "title: %s\n", oneLine(r.Title))
		}
		writeChunk(&b, r.Heading, r.Text, r.Context)
		if x := r.Explain; x != nil {
			fmt.Fprintf(&b, "explain: %s\n", x)
		}
	}
	return b.String()
}

func writeInfo(b *strings.Builder, d DocumentInfo) {
	fmt.Fprintf(b, "doc %q", d.ID)
	if d.Title != "" {
		fmt.Fprintf(b, " — %s", oneLine(d.Title))
	}
	fmt.Fprintf(b, " (%s, %s, version %d, %d chunks)\n", d.Format, d.Lang, d.Version, d.Chunks)
}

func renderFetch(out FetchOutput) string {
	var b strings.Builder
	writeInfo(&b, out.Document)
	for _, c := range out.Chunks {
		fmt.Fprintf(&b, "\n[chunk %d] bytes %d-%d\n", c.Index, c.Start, c.End)
		writeChunk(&b, c.Heading, c.Text, c.Context)
	}
	if out.NextOffset > 0 {
		fmt.Fprintf(&b, "\nmore chunks: fetch again with offset %d\n", out.NextOffset)
	}
	return b.String()
}

func renderList(out ListOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", out.Total, plural(out.Total, "document", "documents"))
	if len(out.Documents) < out.Total {
		fmt.Fprintf(&b, ", %d shown", len(out.Documents))
	}
	b.WriteString("\n")
	for _, d := range out.Documents {
		writeInfo(&b, d)
	}
	if out.NextOffset > 0 {
		fmt.Fprintf(&b, "more: list again with offset %d\n", out.NextOffset)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
