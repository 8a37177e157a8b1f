package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is one chunk: a byte range of the input text.
type Span struct {
	// Start and End are byte offsets into the text, on rune boundaries; the
	// chunk is text[Start:End], trimmed of surrounding whitespace.
	Start, End int
	// Heading is the heading path above the chunk, joined by " > "
	// ("Guide > Install > Linux"); for code, the enclosing declaration
	// ("func ParseConfig", "class Parser > def parse").
	Heading string
	// Tokens is CountTokens(text[Start:End]).
	Tokens int
}

// Boundary strengths: how good a place the gap before a unit is for a cut.
// The packer prefers the strongest boundary that leaves the chunk full
// enough (see minFill).
const (
	strengthRune      int8 = 0 // inside a word longer than a chunk
	strengthWord      int8 = 1 // between words; also right after a heading
	strengthSentence  int8 = 2
	strengthLine      int8 = 3  // list item, table row, code line
	strengthBlock     int8 = 4  // blank line: paragraph, code block
	strengthHeading6  int8 = 5  // "######"; heading level h has 11-h
	strengthTopBlock  int8 = 6  // code: top-level block after a blank line
	strengthNested    int8 = 7  // code: method inside a class or impl
	strengthDecl      int8 = 8  // code: top-level declaration
	strengthHeading1  int8 = 10 // "#"
	strengthNoOverlap      = strengthHeading6
)

func headingStrength(level int) int8 { return int8(11 - level) }

// maxCountBytesPerToken bounds the pieces handed to the tokenizer: a piece
// longer than Size*maxCountBytesPerToken bytes is split further without
// being counted (prose averages about 4 bytes per token). This keeps the
// tokenizer's working memory proportional to Size, not to the input.
const maxCountBytesPerToken = 16

// unit is the smallest piece the packer moves: a sentence, a table row, a
// code line, a whole fenced block or declaration that fits, a word or a run
// of runes.
type unit struct {
	start, end int
	// tokens counts text[start:end] together with the white space before
	// it, so that the sum over consecutive units is close to the count of
	// their joined text (CountTokens is linear on white space of any
	// length).
	tokens   int
	strength int8
	// prose units may be entered by the overlap at a word boundary.
	prose   bool
	heading string
}

// Split cuts text into chunks of at most opts.Size tokens (see CountTokens),
// at the strongest structural boundary available: Markdown headings, blank
// lines, list items and table rows, sentences, words, and as a last resort
// inside a word (never inside a rune). For FormatCode it cuts between
// top-level declarations first. See the package documentation for the
// rules and guarantees. Split returns an error only for invalid options.
func Split(text string, opts Options) ([]Span, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	p := &packer{text: text, size: opts.Size, overlap: opts.Overlap, forced: 127, counts: newPieceIndex(text)}
	defer p.counts.release()
	b := &builder{text: text, size: opts.Size, p: p, capNext: -1}
	switch opts.Format {
	case FormatMarkdown, FormatHTML:
		p.forced = forcedStrength(text)
		b.markdown()
	case FormatCode:
		b.code(languageFor(opts.Path))
	default:
		b.plain()
	}
	p.flush()
	return p.spans, nil
}

// builder turns structural pieces into units, splitting a piece further
// when it does not fit a chunk.
type builder struct {
	text    string
	size    int
	p       *packer
	prevEnd int  // end of the last unit pushed
	capNext int8 // if >= 0, caps the strength of the next unit
}

// level is how a piece that does not fit may be split further.
type level int

const (
	levelProse    level = iota // paragraph or list item: sentences
	levelSentence              // sentence, table row: words
	levelLine                  // code line: words
	levelLines                 // fenced block, code declaration: lines
	levelWord                  // word: runes
)

// add pushes text[start:end] (trimmed) as one unit if it fits, and
// otherwise splits it at the next finer level.
func (b *builder) add(start, end int, lvl level, strength int8, heading string) {
	start, end = trim(b.text, start, end)
	if start >= end {
		return
	}
	if lvl == levelProse {
		b.sentences(start, end, strength, heading)
		return
	}
	if end-start <= b.size*maxCountBytesPerToken {
		if t := b.countUpToSize(start, end); t <= b.size {
			b.push(unit{start: start, end: end, tokens: t, strength: strength,
				prose: lvl == levelSentence || lvl == levelWord, heading: heading})
			return
		}
	}
	switch lvl {
	case levelSentence, levelLine:
		b.words(start, end, strength, heading)
	case levelLines:
		b.lines(start, end, strength, heading)
	default:
		b.runes(start, end, strength, heading)
	}
}

// count counts text[start:end] with the white space before it.
func (b *builder) count(start, end int) int {
	return b.p.count(min(b.prevEnd, start), end)
}

// countUpToSize is count where only a count up to Size matters (see
// countTokensUpTo).
func (b *builder) countUpToSize(start, end int) int {
	return b.p.countUpTo(min(b.prevEnd, start), end, b.size)
}

func (b *builder) push(u unit) {
	if b.capNext >= 0 {
		u.strength = min(u.strength, b.capNext)
		b.capNext = -1
	}
	b.prevEnd = u.end
	b.p.push(u)
}

// sentences splits a prose piece into sentence units.
func (b *builder) sentences(start, end int, strength int8, heading string) {
	s := b.text[start:end]
	prev := 0
	sentenceEnds(s, func(e int) {
		b.add(start+prev, start+e, levelSentence, strength, heading)
		strength = strengthSentence
		prev = e
	})
	if prev < len(s) {
		b.add(start+prev, end, levelSentence, strength, heading)
	}
}

// words splits a piece at whitespace, and runs of CJK characters (which
// have no spaces) every cjkWordRunes runes.
func (b *builder) words(start, end int, strength int8, heading string) {
	s := b.text[start:end]
	ws := -1 // start of current word
	cjk := 0 // CJK runes in the current word, if it is a CJK run
	flush := func(e int) {
		if ws >= 0 {
			b.add(start+ws, start+e, levelWord, strength, heading)
			strength = strengthWord
		}
		ws, cjk = -1, 0
	}
	for i, r := range s {
		switch {
		case unicode.IsSpace(r):
			flush(i)
		case isCJK(r):
			if ws >= 0 && (cjk == 0 || cjk >= cjkWordRunes) {
				flush(i)
			}
			if ws < 0 {
				ws = i
			}
			cjk++
		default:
			if cjk > 0 {
				flush(i)
			}
			if ws < 0 {
				ws = i
			}
		}
	}
	flush(len(s))
}

// cjkWordRunes is how many Han, kana or Hangul characters form one "word"
// when a CJK sentence must be split: o200k merges common 2-4 character
// words, so single runes would overestimate the count.
const cjkWordRunes = 8

func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// runes splits a word longer than a chunk into pieces of at most Size/2
// bytes (so at most Size/2 tokens), on rune boundaries.
func (b *builder) runes(start, end int, strength int8, heading string) {
	step := max(b.size/2, utf8.UTFMax)
	for start < end {
		e := start
		for e < end {
			_, w := utf8.DecodeRuneInString(b.text[e:end])
			if e+w-start > step {
				break
			}
			e += w
		}
		t := b.count(start, e)
		b.push(unit{start: start, end: e, tokens: t, strength: strength, prose: true, heading: heading})
		strength = strengthRune
		start = e
	}
}

// lines splits a block (fenced code, a code declaration) into line units;
// a line after a blank line is a block boundary.
func (b *builder) lines(start, end int, strength int8, heading string) {
	blank := false
	forLines(b.text[start:end], func(ls, le int) {
		if isBlank(b.text[start+ls : start+le]) {
			blank = true
			return
		}
		st := strengthLine
		if blank {
			st = strengthBlock
		}
		if strength >= 0 {
			st, strength = strength, -1
		}
		b.add(start+ls, start+le, levelLine, st, heading)
		blank = false
	})
}

// plain chunks text without markup: paragraphs, list items, sentences.
func (b *builder) plain() {
	paragraphs(b.text, func(start, end int) {
		b.paragraph(start, end, "")
	})
}

// paragraphs calls fn for every run of non-blank lines.
func paragraphs(text string, fn func(start, end int)) {
	ps := -1
	pe := 0
	forLines(text, func(ls, le int) {
		if isBlank(text[ls:le]) {
			if ps >= 0 {
				fn(ps, pe)
				ps = -1
			}
			return
		}
		if ps < 0 {
			ps = ls
		}
		pe = le
	})
	if ps >= 0 {
		fn(ps, pe)
	}
}

// paragraph pushes the units of one paragraph: table rows, or list items
// and prose split into sentences.
func (b *builder) paragraph(start, end int, heading string) {
	text := b.text[start:end]
	table := false
	forLines(text, func(ls, le int) {
		if !table && isTableDelimiter(text[ls:le]) {
			table = true
		}
	})
	strength := strengthBlock
	if table {
		forLines(text, func(ls, le int) {
			b.add(start+ls, start+le, levelSentence, strength, heading)
			strength = strengthLine
		})
		return
	}
	is := 0 // start of the current item
	forLines(text, func(ls, le int) {
		if ls > is && isListItem(text[ls:le]) {
			b.add(start+is, start+ls, levelProse, strength, heading)
			strength = strengthLine
			is = ls
		}
	})
	b.add(start+is, end, levelProse, strength, heading)
}

// forLines calls fn with the bounds of each line of s, without the line
// terminator ("\n" or "\r\n").
func forLines(s string, fn func(ls, le int)) {
	for ls := 0; ls < len(s); {
		nl := strings.IndexByte(s[ls:], '\n')
		next := len(s)
		le := len(s)
		if nl >= 0 {
			le = ls + nl
			next = le + 1
		}
		if le > ls && s[le-1] == '\r' {
			le--
		}
		fn(ls, le)
		ls = next
	}
}

func isBlank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// trim narrows [start, end) to exclude surrounding white space.
func trim(s string, start, end int) (int, int) {
	for start < end {
		r, w := utf8.DecodeRuneInString(s[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += w
	}
	for end > start {
		r, w := utf8.DecodeLastRuneInString(s[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= w
	}
	return start, end
}

func isListItem(line string) bool {
	l := strings.TrimLeft(line, " \t")
	if len(l) >= 2 && (l[0] == '-' || l[0] == '*' || l[0] == '+' || l[0] == '>') && (l[1] == ' ' || l[1] == '\t') {
		return true
	}
	i := 0
	for i < len(l) && i < 9 && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(l) && (l[i] == '.' || l[i] == ')') && (l[i+1] == ' ' || l[i+1] == '\t')
}

// isTableDelimiter reports whether line is a Markdown table delimiter row
// such as "|---|:--:|".
func isTableDelimiter(line string) bool {
	l := strings.TrimSpace(line)
	if !strings.Contains(l, "-") || !strings.Contains(l, "|") {
		return false
	}
	for _, c := range []byte(l) {
		switch c {
		case '|', '-', ':', ' ', '\t':
		default:
			return false
		}
	}
	return true
}
