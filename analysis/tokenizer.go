package analysis

import (
	"unicode/utf8"
)

// Character classes of the StandardTokenizer grammar, as generated into
// tables.go by gen_tables.go (keep both lists in the same order).
const (
	classOther = iota
	classALetter
	classHangul
	classHebrew
	classNumeric
	classKatakana
	classExtendNumLet
	classMidLetter
	classMidNum
	classMidNumLet
	classSingleQuote
	classDoubleQuote
	classExtend // Word_Break Extend or Format
	classZWJ
	classRegional
	classHan
	classHiragana
	classComplex // Line_Break Complex_Context: Thai, Lao, Myanmar, Khmer...
	classPict    // Extended_Pictographic
)

type classRange struct {
	lo, hi rune
	class  uint8
}

// classOf returns the grammar class of r.
func classOf(r rune) uint8 {
	if r < 0x10000 {
		if r < 0 {
			return classOther
		}
		return bmpBlocks[bmpIndex[r>>6]][r&63]
	}
	lo, hi := 0, len(suppRanges)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch rg := &suppRanges[m]; {
		case r < rg.lo:
			hi = m
		case r > rg.hi:
			lo = m + 1
		default:
			return rg.class
		}
	}
	return classOther
}

// Token types of Lucene's StandardTokenizer.
const (
	typeAlphanum = iota
	typeNum
	typeSoutheastAsian
	typeIdeographic
	typeHiragana
	typeKatakana
	typeHangul
	typeEmoji
)

// MaxTokenLength is the StandardTokenizer's maximum token length in UTF-16
// code units, Lucene's default: a longer word is cut into pieces of at most
// this length, exactly as Lucene's scanner buffer does.
const MaxTokenLength = 255

// span is one token of the standard tokenizer: input[start:end].
type span struct {
	start, end int
	typ        uint8
}

// decode returns the rune at text[i] and its width. Invalid UTF-8 decodes
// as utf8.RuneError of width 1, which is classOther.
func decode(text string, i int) (rune, int) {
	if b := text[i]; b < utf8.RuneSelf {
		return rune(b), 1
	}
	return utf8.DecodeRuneInString(text[i:])
}

// unit returns the class of the rune at p and the offset after it and the
// Extend, Format and ZWJ runes that follow it (UAX#29 WB4), limited to limit.
func unit(text string, p, limit int) (uint8, int) {
	r, sz := decode(text, p)
	c := classOf(r)
	q := p + sz
	for q < limit {
		// Below U+0300 only U+00AD SOFT HYPHEN (C2 AD) is Extend/Format/ZWJ.
		if b := text[q]; b < 0xCC && (b != 0xC2 || q+1 >= limit || text[q+1] != 0xAD) {
			break
		}
		r, sz = decode(text, q)
		if c2 := classOf(r); c2 != classExtend && c2 != classZWJ {
			break
		}
		q += sz
	}
	return c, q
}

func isAHLetter(c uint8) bool { return c == classALetter || c == classHangul || c == classHebrew }

// Word scanner states.
const (
	stStart = iota
	stLetter
	stHebrew
	stHebrewQuote
	stNum
	stKatakana
	stExtendNumLet
)

// scanWord matches Lucene's WORD_TYPE and NUMERIC_TYPE rules (UAX#29 WB5-WB13b)
// from start, not beyond limit. It returns the end of the longest match
// (start if there is none) and its token type.
func scanWord(text string, start, limit int) (int, uint8) {
	state := stStart
	end := start
	p := start
	hasCore := false
	onlyNum, onlyKata, onlyHangul := true, true, true
loop:
	for p < limit {
		c, q := unit(text, p, limit)
		switch c {
		case classALetter, classHangul, classHebrew:
			if state == stKatakana {
				break loop
			}
			if c == classHebrew {
				state = stHebrew
			} else {
				state = stLetter
			}
			onlyNum, onlyKata = false, false
			if c != classHangul {
				onlyHangul = false
			}
		case classNumeric:
			if state == stKatakana {
				break loop
			}
			state = stNum
			onlyKata, onlyHangul = false, false
		case classKatakana:
			if state != stStart && state != stKatakana && state != stExtendNumLet {
				break loop
			}
			state = stKatakana
			onlyNum, onlyHangul = false, false
		case classExtendNumLet:
			state = stExtendNumLet
			onlyKata, onlyHangul = false, false
			p = q
			if hasCore {
				end = p
			}
			continue
		case classMidLetter, classMidNum, classMidNumLet, classSingleQuote, classDoubleQuote:
			if c == classSingleQuote && state == stHebrew { // WB7a
				state = stHebrewQuote
				onlyNum, onlyKata, onlyHangul = false, false, false
				p, end = q, q
				continue
			}
			if q >= limit {
				break loop
			}
			c2, q2 := unit(text, q, limit)
			switch {
			case (state == stLetter || state == stHebrew) && isAHLetter(c2) &&
				(c == classMidLetter || c == classMidNumLet || c == classSingleQuote): // WB6, WB7
				state = stLetter
				if c2 == classHebrew {
					state = stHebrew
				}
			case state == stNum && c2 == classNumeric &&
				(c == classMidNum || c == classMidNumLet || c == classSingleQuote): // WB11, WB12
			case state == stHebrew && c == classDoubleQuote && c2 == classHebrew: // WB7b, WB7c
			default:
				break loop
			}
			onlyKata, onlyHangul = false, false
			if state != stNum {
				onlyNum = false
			}
			p, end = q2, q2
			continue
		default:
			break loop
		}
		hasCore = true
		p, end = q, q
	}
	if !hasCore {
		return start, 0
	}
	switch {
	case onlyNum:
		return end, typeNum
	case onlyKata:
		return end, typeKatakana
	case onlyHangul:
		return end, typeHangul
	}
	return end, typeAlphanum
}

// utf16Limit returns the byte offset after at most max UTF-16 code units of
// text from start.
func utf16Limit(text string, start, max int) int {
	n := 0
	p := start
	for p < len(text) {
		r, sz := decode(text, p)
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > max {
			break
		}
		n += w
		p += sz
	}
	return p
}

// maxTokenBytes bounds the bytes of MaxTokenLength UTF-16 code units (a
// 3-byte rune is one unit): scanning never looks further than this ahead of a
// token's start, which keeps tokenization linear on a huge unbroken word.
const maxTokenBytes = 3*MaxTokenLength + 4

// window returns the end of the region a token starting at i may span: past
// the end of the longest possible token, within text.
func window(n, i int) int {
	if i+maxTokenBytes < n {
		return i + maxTokenBytes
	}
	return n
}

// capSpan returns the exact end of the MaxTokenLength window from start if a
// token [start, end) may exceed it (end-start > MaxTokenLength bytes), else
// end.
func capSpan(text string, start, end int) int {
	if end-start <= MaxTokenLength { // bytes >= UTF-16 units
		return end
	}
	if limit := utf16Limit(text, start, MaxTokenLength); limit < end {
		return limit
	}
	return end
}

// standardSpans appends the tokens of Lucene 8's StandardTokenizer
// (StandardTokenizerImpl.jflex: UAX#29 word boundaries, Unicode 15 tables)
// to dst. Like Lucene's scanner, whose buffer holds MaxTokenLength chars, a
// token is the longest match within MaxTokenLength UTF-16 code units of its
// start; the rest of a longer word starts the next token.
func standardSpans(text string, dst []span) []span {
	n := len(text)
	i := 0
	for i < n {
		// Fast skip of ASCII that cannot start a token.
		b := text[i]
		if b < utf8.RuneSelf && asciiSkip[b] {
			i++
			continue
		}
		r, sz := decode(text, i)
		c := classOf(r)
		w := window(n, i)
		switch c {
		case classALetter, classHangul, classHebrew, classNumeric, classKatakana, classExtendNumLet:
			end, typ := scanWord(text, i, w)
			if end == i {
				i += sz
				continue
			}
			if limit := capSpan(text, i, end); limit < end {
				end, typ = scanWord(text, i, limit)
				if end == i { // the first unit alone is longer than the window
					end = limit
				}
			}
			dst = append(dst, span{i, end, typ})
			i = end
		case classHan, classHiragana:
			_, end := unit(text, i, w)
			end = capSpan(text, i, end)
			typ := uint8(typeIdeographic)
			if c == classHiragana {
				typ = typeHiragana
			}
			dst = append(dst, span{i, end, typ})
			i = end
		case classComplex:
			end := i
			for end < w {
				c2, q := unit(text, end, w)
				if c2 != classComplex {
					break
				}
				end = q
			}
			end = capRunes(text, i, end)
			dst = append(dst, span{i, end, typeSoutheastAsian})
			i = end
		case classPict:
			// Extended_Pictographic (Extend)* (ZWJ Extended_Pictographic (Extend)*)*
			end := i + sz
			for end < w {
				r2, sz2 := decode(text, end)
				c2 := classOf(r2)
				if c2 == classExtend {
					end += sz2
					continue
				}
				if c2 != classZWJ {
					break
				}
				end += sz2 // a ZWJ joins the next pictograph or ends the token
				if end < w {
					if r3, sz3 := decode(text, end); classOf(r3) == classPict {
						end += sz3
						continue
					}
				}
				break
			}
			end = capRunes(text, i, end)
			dst = append(dst, span{i, end, typeEmoji})
			i = end
		case classRegional:
			_, q := unit(text, i, w)
			if q < w {
				if c2, q2 := unit(text, q, w); c2 == classRegional {
					q2 = capRunes(text, i, q2)
					dst = append(dst, span{i, q2, typeEmoji})
					i = q2
					continue
				}
			}
			i += sz
		default:
			i += sz
		}
	}
	return dst
}

// capRunes cuts a run [start, end) to the MaxTokenLength window, on a rune
// boundary, never below one rune.
func capRunes(text string, start, end int) int {
	limit := capSpan(text, start, end)
	if limit == start {
		_, sz := decode(text, start)
		limit = start + sz
	}
	return limit
}

// asciiSkip marks ASCII bytes that never start a standard token.
var asciiSkip = func() (t [utf8.RuneSelf]bool) {
	for b := range t {
		switch c := classOf(rune(b)); c {
		case classALetter, classNumeric, classExtendNumLet:
		default:
			t[b] = true
		}
	}
	return t
}()
