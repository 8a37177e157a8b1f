package analysis

import (
	"unicode/utf8"
)

// The "chinese" analyzer is Lucene's CJKAnalyzer: StandardTokenizer ->
// width folding -> lowercase -> CJKBigramFilter -> stop words. Runs of
// adjacent Han, Hiragana, Katakana and Hangul characters become overlapping
// bigrams ("信息检索" -> 信息 息检 检索), so a two-character word is found
// inside a sentence written without spaces; a lone CJK character is kept as a
// unigram. Everything else (Latin words, numbers) is tokenized as by the
// standard analyzer. No dictionary is loaded.
//
// Differences from Lucene: a CJK character keeps the combining marks that
// follow it (Lucene bigrams code points), and width folding covers the
// fullwidth ASCII forms only (not halfwidth katakana).

// CJKStopWords is Lucene's CJKAnalyzer default stop set.
const CJKStopWords = "a and are as at be but by for if in into is it no not of on or s such t that the their then there these they this to was will with www"

type cjkAnalyzer struct {
	stop *stopSet
}

func (*cjkAnalyzer) Name() string { return Chinese }

func isCJKType(t uint8) bool {
	return t == typeIdeographic || t == typeHiragana || t == typeKatakana || t == typeHangul
}

// bigrammer buffers a run of contiguous CJK characters and emits their
// overlapping bigrams.
type bigrammer struct {
	tb    *termBuilder
	bound []int // character boundaries of the current run: run = text[bound[0]:bound[last]]
	pos   *int
}

func (bg *bigrammer) addSpan(text string, start, end int) {
	if len(bg.bound) > 0 && bg.bound[len(bg.bound)-1] != start {
		bg.flush(text)
	}
	if len(bg.bound) == 0 {
		bg.bound = append(bg.bound, start)
	}
	for p := start; p < end; {
		_, q := unit(text, p, end)
		bg.bound = append(bg.bound, q)
		p = q
	}
}

func (bg *bigrammer) flush(text string) {
	b := bg.bound
	switch {
	case len(b) == 2:
		bg.emit(text, b[0], b[1])
	case len(b) > 2:
		for i := 0; i+2 < len(b); i++ {
			bg.emit(text, b[i], b[i+2])
		}
	}
	bg.bound = bg.bound[:0]
}

func (bg *bigrammer) emit(text string, start, end int) {
	var buf [16]byte
	bg.tb.add(appendWidthFold(buf[:0], text[start:end]), start, end, *bg.pos)
	*bg.pos++
}

// appendWidthFold appends s to dst with fullwidth ASCII (U+FF01..U+FF5E)
// folded to ASCII and lowercased.
func appendWidthFold(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, sz := decode(s, i)
		i += sz
		if r >= 0x2E80 && r < 0xA640 || r >= 0xAC00 && r < 0xD800 || r >= 0x20000 {
			dst = append(dst, s[i-sz:i]...) // CJK, Hangul: caseless
			continue
		}
		if r >= 0xFF01 && r <= 0xFF5E {
			r -= 0xFF01 - 0x21
		}
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			dst = append(dst, byte(r))
			continue
		}
		dst = appendLower(dst, s[i-sz:i])
	}
	return dst
}

func (a *cjkAnalyzer) Analyze(text string) []Token { return a.AnalyzeInto(nil, text) }

// AnalyzeInto is Analyze writing the tokens into dst's array (see
// IntoAnalyzer).
func (a *cjkAnalyzer) AnalyzeInto(dst []Token, text string) []Token {
	sp := spanPool.Get().(*[]span)
	spans := standardSpans(text, (*sp)[:0])
	tb := newTermBuilder(dst, len(text)+len(text)/2, len(spans)+len(spans)/2)
	pos := 0
	bg := bigrammer{tb: &tb, pos: &pos}
	var scratch [256]byte
	for _, s := range spans {
		if isCJKType(s.typ) {
			bg.addSpan(text, s.start, s.end)
			continue
		}
		bg.flush(text)
		t := appendWidthFold(scratch[:0], text[s.start:s.end])
		if !a.stop.has(t) {
			tb.add(t, s.start, s.end, pos)
		}
		pos++
	}
	bg.flush(text)
	*sp = spans[:0]
	if cap(spans) <= 1<<16 {
		spanPool.Put(sp)
	}
	return tb.finish()
}

func init() {
	register(&cjkAnalyzer{stop: newStopSet(CJKStopWords)})
}
