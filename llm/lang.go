package llm

import (
	"strings"
	"unicode"

	"github.com/situate/situate/driver"
)

// A cheap language check: scripts first (Han, Cyrillic, Latin), then stop
// words to tell English, German and Spanish apart. It is deliberately
// conservative: it answers "" unless the evidence is clear.

var stopwords = map[string]map[string]bool{
	driver.LangEnglish: set("the", "and", "of", "to", "is", "that", "for", "with", "this", "are", "on", "as", "by", "it", "be", "was", "from", "which", "its", "an"),
	driver.LangGerman:  set("der", "die", "das", "und", "ist", "nicht", "ein", "eine", "mit", "von", "zu", "den", "für", "auf", "im", "dem", "des", "sich", "auch", "wird", "werden", "einer", "eines"),
	driver.LangSpanish: set("el", "la", "los", "las", "y", "que", "en", "un", "una", "por", "con", "para", "del", "se", "al", "como", "su", "sus", "lo", "este", "esta"),
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// scriptStats counts letters by script in at most limit bytes of text.
type scriptStats struct {
	letters, han, cyrillic, latin int
}

func countScripts(text string, limit int) scriptStats {
	if limit > 0 && len(text) > limit {
		text = text[:limit]
	}
	var s scriptStats
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			s.han++
			s.letters++
		case unicode.Is(unicode.Cyrillic, r):
			s.cyrillic++
			s.letters++
		case unicode.Is(unicode.Latin, r):
			s.latin++
			s.letters++
		case unicode.IsLetter(r):
			s.letters++
		}
	}
	return s
}

// latinLang guesses en, de or es from stop words, or "" when unclear.
func latinLang(text string, limit int) string {
	if limit > 0 && len(text) > limit {
		text = text[:limit]
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) < 6 {
		return ""
	}
	best, second, bestLang := 0, 0, ""
	for _, l := range []string{driver.LangEnglish, driver.LangGerman, driver.LangSpanish} {
		n := 0
		for _, w := range words {
			if stopwords[l][w] {
				n++
			}
		}
		switch {
		case n > best:
			second, best, bestLang = best, n, l
		case n > second:
			second = n
		}
	}
	if best >= 3 && float64(best) >= 2*float64(second) {
		return bestLang
	}
	return ""
}

// detectLang guesses a text's language among en, de, es, ru and zh, or ""
// when the evidence is not clear.
func detectLang(text string) string {
	const limit = 64 << 10
	s := countScripts(text, limit)
	if s.letters < 10 {
		return ""
	}
	switch {
	case float64(s.han) >= 0.3*float64(s.letters):
		return driver.LangChinese
	case float64(s.cyrillic) >= 0.5*float64(s.letters):
		return driver.LangRussian
	case float64(s.latin) >= 0.5*float64(s.letters):
		return latinLang(text, limit)
	}
	return ""
}

// normLang reduces "de-DE", "DE", "de_AT" to "de".
func normLang(l string) string {
	l = strings.ToLower(strings.TrimSpace(l))
	if i := strings.IndexAny(l, "-_"); i > 0 {
		l = l[:i]
	}
	return l
}

// wrongLanguage reports whether a context is clearly not in language want.
func wrongLanguage(context, want string) bool {
	s := countScripts(context, 0)
	if s.letters < 12 {
		return false
	}
	f := func(n int) float64 { return float64(n) / float64(s.letters) }
	switch want {
	case driver.LangChinese:
		return f(s.han) < 0.2
	case driver.LangRussian:
		return f(s.cyrillic) < 0.3
	case driver.LangEnglish, driver.LangGerman, driver.LangSpanish:
		if f(s.han) > 0.3 || f(s.cyrillic) > 0.3 {
			return true
		}
		got := latinLang(context, 0)
		return got != "" && got != want
	}
	return false
}
