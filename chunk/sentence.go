package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sentenceEnds calls fn with the end offset of every sentence in s but the
// last, in order. A sentence ends after ".", "!", "?" or "…" (and any
// closing quotes or brackets) followed by white space, or after the CJK
// terminators "。", "！", "？" (no space needed). A "." does not end a
// sentence after an abbreviation ("e.g.", "Dr.", "z.B.", "т.е."), an
// initial, a one- or two-digit number ("am 3. Oktober") or before a
// lowercase word; decimals ("3.14") have no space after the dot.
func sentenceEnds(s string, fn func(end int)) {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '。', '！', '？', '｡':
			j := skipTerminators(s, i+w)
			j = skipClosers(s, j)
			if j < len(s) && !onlySpaceLeft(s, j) {
				fn(j)
			}
			i = j
			continue
		case '.', '!', '?', '…':
			j := skipTerminators(s, i+w)
			term := s[i:j]
			j = skipClosers(s, j)
			if j >= len(s) {
				return
			}
			next, _ := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsSpace(next) {
				i = j
				continue
			}
			if isSentenceEnd(s, i, term, j) {
				fn(j)
			}
			i = j
			continue
		}
		i += w
	}
}

// isSentenceEnd decides whether the terminator run term at s[i:] (followed
// by closers and then white space at j) ends a sentence.
func isSentenceEnd(s string, i int, term string, j int) bool {
	// The next word must exist and, after a period, not be lowercase.
	k := j
	for k < len(s) {
		r, w := utf8.DecodeRuneInString(s[k:])
		if !unicode.IsSpace(r) {
			break
		}
		k += w
	}
	if k >= len(s) {
		return false
	}
	if strings.ContainsAny(term, "!?") {
		return true
	}
	next, _ := utf8.DecodeRuneInString(s[k:])
	if unicode.IsLower(next) {
		return false
	}
	if term != "." {
		return true // "...", "…"
	}
	// The word before the period.
	ws := i
	for ws > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:ws])
		if unicode.IsSpace(r) || r == '(' || r == '"' || r == '“' || r == '«' {
			break
		}
		ws -= w
	}
	return !isAbbreviation(s[ws:i])
}

// abbreviations that are normally followed by a capitalised word without
// ending the sentence (lowercase, without the final period).
var abbreviations = map[string]bool{
	// English
	"dr": true, "mr": true, "mrs": true, "ms": true, "prof": true, "st": true,
	"vs": true, "jr": true, "sr": true, "no": true, "fig": true, "figs": true,
	"approx": true, "cf": true, "mt": true, "gen": true, "col": true, "lt": true,
	"sgt": true, "rev": true, "hon": true, "dept": true, "est": true, "vol": true,
	"ch": true, "sec": true, "p": true, "pp": true, "eq": true,
	// German
	"nr": true, "ca": true, "vgl": true, "bzw": true, "hr": true, "fr": true,
	"abs": true, "art": true, "bd": true, "jh": true, "str": true, "tel": true,
	// Spanish
	"sra": true, "srta": true, "dra": true, "ej": true, "núm": true, "pág": true,
	"avda": true, "av": true, "dña": true, "d": true, "ud": true, "uds": true,
	// Russian
	"г": true, "гг": true, "см": true, "стр": true, "им": true, "ул": true,
	"рис": true, "тыс": true, "млн": true, "млрд": true, "руб": true, "проф": true,
}

func isAbbreviation(word string) bool {
	word = strings.TrimLeft(word, "([{\"'“‘«")
	if word == "" {
		return false
	}
	n := utf8.RuneCountInString(word)
	first, _ := utf8.DecodeRuneInString(word)
	// Initials: "J." in "J. R. R. Tolkien".
	if n == 1 && unicode.IsLetter(first) {
		return true
	}
	// Ordinals and list numbers: "am 3. Oktober", "el 12. Abril".
	if n <= 2 && isDigits(word) {
		return true
	}
	// Dotted abbreviations: "e.g", "i.e", "z.B", "U.S", "т.е", "p.ej".
	if strings.Contains(word, ".") {
		short := true
		for _, part := range strings.Split(word, ".") {
			if c := utf8.RuneCountInString(part); c == 0 || c > 3 {
				short = false
				break
			}
		}
		if short {
			return true
		}
	}
	return abbreviations[strings.ToLower(word)]
}

func isDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func skipTerminators(s string, j int) int {
	for j < len(s) {
		r, w := utf8.DecodeRuneInString(s[j:])
		switch r {
		case '.', '!', '?', '…', '。', '！', '？', '｡':
			j += w
			continue
		}
		break
	}
	return j
}

func skipClosers(s string, j int) int {
	for j < len(s) {
		r, w := utf8.DecodeRuneInString(s[j:])
		switch r {
		case '"', '\'', ')', ']', '”', '’', '»', '」', '』', '）', '》', '*', '_':
			j += w
			continue
		}
		break
	}
	return j
}

func onlySpaceLeft(s string, j int) bool {
	return isBlank(s[j:])
}
