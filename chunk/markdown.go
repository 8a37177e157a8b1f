package chunk

import (
	"strings"
)

// markdown chunks Markdown: headings (ATX and setext) set the heading path
// and are the strongest boundaries; fenced code blocks are kept whole when
// they fit; other blocks go through paragraph.
func (b *builder) markdown() {
	var path [6]string
	heading := ""
	parseMarkdown(b.text, func(bl mdBlock) {
		switch bl.kind {
		case mdHeading:
			path[bl.level-1] = bl.title
			for i := bl.level; i < len(path); i++ {
				path[i] = ""
			}
			parts := make([]string, 0, bl.level)
			for _, t := range path[:bl.level] {
				if t != "" {
					parts = append(parts, t)
				}
			}
			heading = strings.Join(parts, pathSep)
			b.add(bl.start, bl.end, levelSentence, headingStrength(bl.level), heading)
			b.capNext = strengthWord // keep a heading with what follows it
		case mdFence:
			b.fence(bl.start, bl.end, heading)
		default:
			b.paragraph(bl.start, bl.end, heading)
		}
	})
}

// fence pushes a fenced code block: whole if it fits, else line by line
// (the fence lines stick to their neighbours).
func (b *builder) fence(start, end int, heading string) {
	start, end = trim(b.text, start, end)
	if start >= end {
		return
	}
	if end-start <= b.size*maxCountBytesPerToken {
		if t := b.countUpToSize(start, end); t <= b.size {
			b.push(unit{start: start, end: end, tokens: t, strength: strengthBlock, heading: heading})
			return
		}
	}
	text := b.text[start:end]
	first := true
	blank := false
	lastLine := strings.LastIndexByte(text, '\n') + 1
	forLines(text, func(ls, le int) {
		if isBlank(text[ls:le]) {
			blank = true
			return
		}
		st := strengthLine
		switch {
		case first:
			st = strengthBlock
		case ls == lastLine && isFenceLine(text[ls:le]):
			st = strengthWord // closing fence
		case blank:
			st = strengthBlock
		}
		b.add(start+ls, start+le, levelLine, st, heading)
		if first {
			b.capNext = strengthWord // keep the opening fence with its first line
			first = false
		}
		blank = false
	})
}

type mdKind int

const (
	mdParagraph mdKind = iota
	mdHeading
	mdFence
)

type mdBlock struct {
	kind       mdKind
	start, end int
	level      int
	title      string
}

// parseMarkdown calls fn for each block of text: headings, fenced code
// blocks (an unclosed fence runs to the end) and paragraphs (runs of other
// non-blank lines).
func parseMarkdown(text string, fn func(mdBlock)) {
	ps, pe, plines := -1, 0, 0 // open paragraph
	flush := func() {
		if ps >= 0 {
			fn(mdBlock{kind: mdParagraph, start: ps, end: pe})
			ps, plines = -1, 0
		}
	}
	inFence := false
	var fch byte
	var flen, fstart int
	forLines(text, func(ls, le int) {
		line := text[ls:le]
		if inFence {
			if c, n, rest, ok := fenceMarker(line); ok && c == fch && n >= flen && isBlank(rest) {
				fn(mdBlock{kind: mdFence, start: fstart, end: le})
				inFence = false
			}
			return
		}
		if isBlank(line) {
			flush()
			return
		}
		if c, n, rest, ok := fenceMarker(line); ok && !(c == '`' && strings.IndexByte(rest, '`') >= 0) {
			flush()
			inFence, fch, flen, fstart = true, c, n, ls
			return
		}
		if lvl, title, ok := atxHeading(line); ok {
			flush()
			fn(mdBlock{kind: mdHeading, start: ls, end: le, level: lvl, title: title})
			return
		}
		if plines == 1 && !isListItem(text[ps:pe]) && !strings.Contains(text[ps:pe], "|") {
			if lvl := setextLevel(line); lvl > 0 {
				fn(mdBlock{kind: mdHeading, start: ps, end: le, level: lvl, title: strings.TrimSpace(text[ps:pe])})
				ps, plines = -1, 0
				return
			}
		}
		if ps < 0 {
			ps = ls
		}
		pe = le
		plines++
	})
	if inFence {
		fn(mdBlock{kind: mdFence, start: fstart, end: len(text)})
	}
	flush()
}

// fenceMarker recognises a code fence line: up to three spaces, then at
// least three backticks or tildes.
func fenceMarker(line string) (c byte, n int, rest string, ok bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0, "", false
	}
	c = line[i]
	j := i
	for j < len(line) && line[j] == c {
		j++
	}
	if j-i < 3 {
		return 0, 0, "", false
	}
	return c, j - i, line[j:], true
}

func isFenceLine(line string) bool {
	_, _, _, ok := fenceMarker(line)
	return ok
}

// atxHeading recognises "## Title ##".
func atxHeading(line string) (level int, title string, ok bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && line[j] == '#' {
		j++
	}
	level = j - i
	if level < 1 || level > 6 || (j < len(line) && line[j] != ' ' && line[j] != '\t') {
		return 0, "", false
	}
	title = strings.TrimSpace(line[j:])
	// Strip a closing sequence of '#'.
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		title = strings.TrimSpace(t)
	}
	return level, title, true
}

// setextLevel returns 1 for a "===" underline, 2 for "---", else 0.
func setextLevel(line string) int {
	l := strings.TrimSpace(line)
	if len(line)-len(strings.TrimLeft(line, " ")) > 3 || l == "" {
		return 0
	}
	if strings.Trim(l, "=") == "" {
		return 1
	}
	if strings.Trim(l, "-") == "" {
		return 2
	}
	return 0
}

// forcedStrength returns the boundary strength of the document's top-level
// headings: the shallowest heading level, or the next one when the
// shallowest occurs only once (a title). Sections under different
// top-level headings are merged only while the chunk is tiny.
func forcedStrength(text string) int8 {
	var counts [7]int
	parseMarkdown(text, func(bl mdBlock) {
		if bl.kind == mdHeading {
			counts[bl.level]++
		}
	})
	top := 0
	for l := 1; l <= 6; l++ {
		if counts[l] > 0 {
			top = l
			break
		}
	}
	if top == 0 {
		return 127
	}
	if counts[top] == 1 {
		for l := top + 1; l <= 6; l++ {
			if counts[l] > 0 {
				return headingStrength(l)
			}
		}
		return 127
	}
	return headingStrength(top)
}
