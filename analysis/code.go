package analysis

import (
	"unicode"
	"unicode/utf8"
)

// The "code" analyzer is for source code. An identifier is a run of letters,
// digits and underscores, joined across '-' when a letter follows (kebab
// case). It is emitted whole and lowercased, and split into sub-words at
// underscores and hyphens, lower-to-upper case changes (getUser -> get|User),
// the end of an acronym (HTTPServer -> HTTP|Server) and letter/digit changes
// (v2 -> v|2):
//
//	getUserName   -> get user name getusername
//	HTTPServer    -> http server httpserver
//	parse_json_v2 -> parse json v 2 parse_json_v2
//
// The sub-words are lowercased, dropped if they are CodeStopWords and Porter
// stemmed; the whole identifier is neither stopped nor stemmed. Operators and
// punctuation are dropped. Runs of Han, kana and Hangul (comments, strings)
// become overlapping bigrams as in the chinese analyzer.

// CodeStopWords are very common English words dropped from code.
const CodeStopWords = "a an and are as at be by for in is it of on or that the this to with"

type codeAnalyzer struct {
	stop *stopSet
	stem bool
}

func (*codeAnalyzer) Name() string { return Code }

// codeClass classifies a rune for identifier scanning.
const (
	ccOther = iota
	ccLower
	ccUpper
	ccDigit
	ccLetter // letters without case, marks
	ccUnderscore
	ccHyphen
	ccCJK
)

func codeClassOf(r rune) uint8 {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z':
			return ccLower
		case 'A' <= r && r <= 'Z':
			return ccUpper
		case '0' <= r && r <= '9':
			return ccDigit
		case r == '_':
			return ccUnderscore
		case r == '-':
			return ccHyphen
		}
		return ccOther
	}
	switch c := classOf(r); c {
	case classHan, classHiragana, classKatakana, classHangul:
		return ccCJK
	}
	switch {
	case unicode.IsLower(r):
		return ccLower
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return ccUpper
	case unicode.IsDigit(r):
		return ccDigit
	case unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r):
		return ccLetter
	}
	return ccOther
}

func isIdentClass(c uint8) bool {
	return c == ccLower || c == ccUpper || c == ccDigit || c == ccLetter || c == ccUnderscore
}

func (a *codeAnalyzer) Analyze(text string) []Token { return a.AnalyzeInto(nil, text) }

// AnalyzeInto is Analyze writing the tokens into dst's array (see
// IntoAnalyzer).
func (a *codeAnalyzer) AnalyzeInto(dst []Token, text string) []Token {
	tb := newTermBuilder(dst, len(text)+len(text)/4, len(text)/8+8)
	pos := 0
	bg := bigrammer{tb: &tb, pos: &pos}
	n := len(text)
	for i := 0; i < n; {
		r, sz := decode(text, i)
		c := codeClassOf(r)
		switch {
		case c == ccCJK:
			_, end := unit(text, i, n)
			bg.addSpan(text, i, end)
			i = end
			continue
		case !isIdentClass(c):
			i += sz
			continue
		}
		bg.flush(text)
		// Scan the identifier.
		end := i + sz
		for end < n && end-i < MaxTokenLength { // longer identifiers are cut
			r2, sz2 := decode(text, end)
			c2 := codeClassOf(r2)
			if isIdentClass(c2) {
				end += sz2
				continue
			}
			if c2 == ccHyphen && end+1 < n {
				if r3, _ := decode(text, end+1); codeClassOf(r3) == ccLower || codeClassOf(r3) == ccUpper || codeClassOf(r3) == ccLetter {
					end += sz2
					continue
				}
			}
			break
		}
		pos = a.identifier(&tb, text, i, end, pos)
		i = end
	}
	bg.flush(text)
	return tb.finish()
}

// identifier emits the whole identifier text[start:end] (when it differs
// from its only sub-word) and its sub-words, starting at position pos; it
// returns the next position. The whole identifier shares the first sub-word's
// position.
func (a *codeAnalyzer) identifier(tb *termBuilder, text string, start, end, pos int) int {
	var partsBuf [32]int // pairs of sub-word start, end
	parts := partsBuf[:0]
	add := func(ps, pe int) {
		if ps < pe {
			parts = append(parts, ps, pe)
		}
	}
	partStart := start
	var prev, prev2 uint8 = ccOther, ccOther
	for p := start; p < end; {
		r, sz := decode(text, p)
		c := codeClassOf(r)
		switch {
		case c == ccUnderscore || c == ccHyphen:
			add(partStart, p)
			partStart = p + sz
			c = ccOther
		case p == partStart:
		case c == ccUpper && (prev == ccLower || prev == ccDigit || prev == ccLetter):
			add(partStart, p) // getUser
			partStart = p
		case c == ccLower && prev == ccUpper && prev2 == ccUpper:
			// HTTPServer: the acronym ends before the last capital.
			_, psz := utf8.DecodeLastRuneInString(text[:p])
			add(partStart, p-psz)
			partStart = p - psz
		case (c == ccDigit) != (prev == ccDigit) && prev != ccOther:
			add(partStart, p) // v2, 2d
			partStart = p
		}
		prev2, prev = prev, c
		p += sz
	}
	add(partStart, end)

	var scratch [256]byte
	whole := appendLower(scratch[:0], text[start:end])
	if len(parts) != 2 || parts[0] != start || parts[1] != end {
		tb.add(whole, start, end, pos)
	}
	for i := 0; i < len(parts); i += 2 {
		t := appendLower(scratch[:0], text[parts[i]:parts[i+1]])
		if !a.stop.has(t) {
			if a.stem {
				t = porterBytes(t)
			}
			tb.add(t, parts[i], parts[i+1], pos)
		}
		pos++
	}
	if len(parts) == 0 {
		pos++
	}
	return pos
}

func init() {
	register(&codeAnalyzer{stop: newStopSet(CodeStopWords), stem: true})
}
