package rank

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// PairSeparator joins the two terms of a word pair in PairText. It is a
// connector punctuation (Unicode word-break ExtendNumLet), so the
// "standard" analyzer keeps "left_right" as one token.
const PairSeparator = "_"

// PairText turns the analysed terms of a text, in token order (stop words
// already removed, one term per position), into the text of a word-pair
// field: "t0_t1 t1_t2 ...", each pair of adjacent terms one token. Indexed
// with the "standard" analyzer (lower-casing, no stemming, no stop words),
// it gives BM25 a phrase-like arm that rewards a chunk holding the query's
// words next to each other. A term in a script without word spaces (Han,
// Hiragana, Katakana, Hangul, Thai, Lao, Khmer, Myanmar), whose analyzers
// already emit overlapping bigrams, ends the chain instead of pairing, as
// does an empty term; so does a term holding PairSeparator's neighbours
// that the standard analyzer would split, so every pair is one token.
func PairText(terms []string) string {
	// One allocation: at most every term twice, with a separator and a space.
	n := 0
	for _, t := range terms {
		n += 2*len(t) + len(PairSeparator) + 1
	}
	var b strings.Builder
	b.Grow(n)
	prev := ""
	for _, t := range terms {
		if !pairable(t) {
			prev = ""
			continue
		}
		if prev != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(prev)
			b.WriteString(PairSeparator)
			b.WriteString(t)
		}
		prev = t
	}
	return b.String()
}

// pairable reports whether t can be one side of a pair token: letters,
// digits, marks and underscores of scripts with word spaces, with at most
// an inner full stop or apostrophe (UAX #29 MidLetter/MidNum, which keep a word whole).
func pairable(t string) bool {
	if t == "" {
		return false
	}
	for i, r := range t {
		switch {
		case r == '_':
		case r == '.' || r == '\'' || r == '’':
			if i == 0 || i+utf8.RuneLen(r) >= len(t) {
				return false
			}
		case r < utf8.RuneSelf: // ASCII: letters and digits only
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
				return false
			}
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar):
			return false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		default:
			return false
		}
	}
	return true
}

// PairQuery is the pair arm's query text when the index holds documents of
// several languages: PairText of the query's terms under each analyzer in
// use (one term list per analyzer), merged so that a pair every analyzer
// produces alike counts as often as in one list, not once per analyzer
// (its count is the largest count of any list). Repeats of a pair are
// grouped at its first appearance; with one list the result holds exactly
// PairText's pairs and counts, which is all a BM25 query reads.
func PairQuery(termLists ...[]string) string {
	counts := map[string]int{}
	var order []string
	for _, terms := range termLists {
		pairs := strings.Fields(PairText(terms))
		here := map[string]int{}
		for _, p := range pairs {
			here[p]++
		}
		for _, p := range pairs {
			if c, ok := counts[p]; !ok {
				order = append(order, p)
				counts[p] = here[p]
			} else if here[p] > c {
				counts[p] = here[p]
			}
		}
	}
	var b strings.Builder
	for _, p := range order {
		for range counts[p] {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(p)
		}
	}
	return b.String()
}
