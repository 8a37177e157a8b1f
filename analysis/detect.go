package analysis

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DetectSampleBytes is how much of a text Detect reads: the first 64 KiB
// (cut back to a rune boundary).
const DetectSampleBytes = 64 << 10

// Detect guesses the ISO 639-1 language of a text that is mostly in one
// language. It returns "en", "de", "es", "fr", "it", "pt", "nl", "ru", "uk",
// "zh", "ja" or "ko", and "" when unsure (no letters, another script, or
// Latin text without clear evidence). ForLanguage maps "" and the languages
// without an analyzer of their own (fr, it, pt, nl, uk) to the standard
// analyzer; recognizing them keeps, say, French text away from the Spanish
// stemmer.
//
// Heuristic, deterministic and allocation-free:
//  1. Count letters by script over the first DetectSampleBytes. Han, kana
//     and Hangul count three times (one such character carries about as much
//     as three Latin letters). The script with the largest count wins.
//  2. Han/kana/Hangul: any kana -> "ja" (Japanese mixes kana into Han
//     text), else Hangul over Han -> "ko", else "zh".
//  3. Cyrillic: Ukrainian-only letters (і ї є ґ) -> "uk", else "ru".
//  4. Latin: each word that is a frequent function word of exactly one of
//     English, German, Spanish, French, Italian, Portuguese and Dutch scores
//     one point for it; ß, ä, ö, ü score for German and ñ, ¿, ¡ for Spanish.
//     The best language must score at least 1 and strictly more than the
//     second, else "".
//  5. Other scripts (Greek, Arabic...) -> "".
func Detect(text string) string {
	if len(text) > DetectSampleBytes {
		cut := DetectSampleBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	var latin, cyr, han, kana, hangul, other, ukr int
	var score [len(detectLangs)]int
	wordStart := -1
	inCode := false // inside `inline code`
	flush := func(end int) {
		if wordStart < 0 {
			return
		}
		w := text[wordStart:end]
		start := wordStart
		wordStart = -1
		if inCode || codeWord(text, start, end) {
			// Letters of code are no one's prose.
			latin -= utf8.RuneCountInString(w) - strings.Count(w, "'")
			return
		}
		if len(w) > 12 || len(w) == 1 {
			// Single letters ("a", "e", "o", "y") are variables, list
			// markers and letter names as often as they are words.
			return
		}
		var buf [12]byte
		b := appendLower(buf[:0], w)
		if l, ok := detectWords[string(b)]; ok {
			score[l]++
		}
	}
	for i := 0; i < len(text); {
		if (i == 0 || text[i-1] == '\n') && skipLine(text[i:]) {
			flush(i)
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		}
		r, sz := decode(text, i)
		if r == '`' {
			flush(i)
			inCode = !inCode
		} else if r == '\n' && i+1 < len(text) && text[i+1] == '\n' {
			inCode = false // an unclosed backtick ends with its paragraph
		}
		isLatin := false
		switch {
		case r < utf8.RuneSelf:
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
				latin++
				isLatin = true
			}
		case unicode.Is(unicode.Latin, r):
			latin++
			isLatin = true
			switch unicode.ToLower(r) {
			case 'ß', 'ä', 'ö', 'ü':
				score[langDE]++
			case 'ñ':
				score[langES]++
			}
		case r == '¿' || r == '¡':
			score[langES]++
		case unicode.Is(unicode.Cyrillic, r):
			cyr++
			switch unicode.ToLower(r) {
			case 'і', 'ї', 'є', 'ґ':
				ukr++
			}
		case unicode.Is(unicode.Han, r):
			han += 3
		case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			kana += 3
		case unicode.Is(unicode.Hangul, r):
			hangul += 3
		case unicode.IsLetter(r):
			other++
		}
		if isLatin {
			if wordStart < 0 {
				wordStart = i
			}
		} else if r != '\'' {
			flush(i)
		}
		i += sz
	}
	flush(len(text))

	cjk := han + kana + hangul
	switch {
	case latin == 0 && cyr == 0 && cjk == 0:
		return ""
	case cjk >= latin && cjk >= cyr && cjk >= other:
		switch {
		case kana > 0:
			return "ja"
		case hangul > han:
			return "ko"
		}
		return "zh"
	case cyr >= latin && cyr >= other:
		if ukr > 0 {
			return "uk"
		}
		return "ru"
	case other > latin:
		return ""
	}
	best, second := 0, -1
	for l := 1; l < len(score); l++ {
		switch {
		case score[l] > score[best]:
			best, second = l, best
		case second < 0 || score[l] > score[second]:
			second = l
		}
	}
	if score[best] < 1 || score[best] == score[second] {
		return ""
	}
	return detectLangs[best]
}

// codeWord reports whether the word text[start:end] reads as code rather
// than prose: part of a dotted name or path (os.Open, a.b), a call (f(),
// an identifier joined by _ or an operator, a markup entity or tag name, a
// command-line option. Prose words are bounded by white space and
// punctuation followed by white space.
func codeWord(text string, start, end int) bool {
	if start > 0 {
		switch text[start-1] {
		case '.', '_', '$', '\\', '/', '@', '#', '-', '<', '&', '%', '=', ':', '>', '*', '+', '|', '~', '^', '[', '{':
			return true
		}
	}
	if end < len(text) {
		switch c := text[end]; c {
		case '(', '_', '=', '[', '{', '/', '\\', '<', '>', '$', '@', '#', '+', '*', '|', '^', '~', '&', ';':
			return true
		case '.', ':', '-':
			if end+1 < len(text) && isWordByte(text[end+1]) {
				return true
			}
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c >= utf8.RuneSelf
}

// skipLine reports a line that carries no prose of the document's own: a
// troff comment (man pages keep their licence there, often in English
// above a translated page).
func skipLine(line string) bool {
	return strings.HasPrefix(line, `.\"`) || strings.HasPrefix(line, `'\"`) || strings.HasPrefix(line, `.\#`)
}

// Latin-script languages Detect scores, indexes into its score array.
var detectLangs = [...]string{"en", "de", "es", "fr", "it", "pt", "nl"}

const (
	langDE = 1
	langES = 2
)

// detectWords maps frequent function words to the one language of
// detectLangs they belong to. Words shared by two of them ("de", "la",
// "die"...) are left out, and so are words that are also frequent in a
// language not listed for them ("in" and "was" are English and German as
// well as Dutch).
var detectWords = func() map[string]uint8 {
	lists := [len(detectLangs)]string{
		`the and of to is that it for with as on are be this by not or from have which you at
			but they we can has will their been were would there what when how its our your
			than these those more other into such may should could about after all any only`,
		`der die das und ist nicht ein eine einen einem einer eines mit von den dem zu sich auf
			für auch im des wird werden sind bei nach wie oder aus aber ich wir sie dass noch kann
			über nur vom zum zur durch wurde wurden wenn schon sehr haben hat keine kein diese dieser
			dieses zwischen unter gegen ohne sowie`,
		`el la los las de y que en un una por con para del se al lo como más su sus pero
			este esta estos estas son ha fue también entre cuando muy sin sobre ya donde porque qué
			hay ser está están tiene puede desde hasta todo todos otro otra cada según`,
		`le la les des du un une est et en que qui dans pour pas sur au aux avec ce cette ces il
			elle ils sont par plus ne se ont été être mais ou où nous vous leur leurs sa son ses
			comme aussi très sans entre fait peut`,
		`il lo la gli le di da del della dei delle che è e un una per con non sono nel nella alla
			al anche come più ma ha questo questa sul tra essere stato molto`,
		`o a os as um uma de do da dos das em no na nos nas que é e para com não por mais como mas
			ao foi são pelo pela também está muito entre seu sua quando`,
		`de het een en van is dat die op te met voor zijn niet aan er ook als bij maar door
			wordt worden naar dan nog wel zo deze hij ze`,
	}
	owner := map[string]int{}
	for lang, words := range lists {
		for _, w := range splitFields(words) {
			if o, ok := owner[w]; ok && o != lang {
				owner[w] = -1 // shared: no evidence
			} else if !ok {
				owner[w] = lang
			}
		}
	}
	m := map[string]uint8{}
	for w, lang := range owner {
		if lang >= 0 {
			m[w] = uint8(lang)
		}
	}
	return m
}()

func splitFields(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\n' || s[i] == '\t' {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return out
}

// DetectFormat is Detect for a document of the given format ("code",
// "markdown", "text", ...). Source code is judged by its comments (and
// Python docstrings) only, since its identifiers and keywords are no
// language's prose ("os", "e", "do", "se" made Go and Tcl files read as
// Portuguese and Spanish); code whose comments show no language is
// English, the language of its keywords. Fenced code blocks in Markdown are
// skipped. Other formats go to Detect as they are.
func DetectFormat(text, format string) string {
	switch format {
	case "code":
		if lang := Detect(commentText(text)); lang != "" {
			return lang
		}
		return "en"
	case "markdown", "html":
		return Detect(withoutFences(text))
	}
	return Detect(text)
}

// commentText returns the comments of source code, one per line: //, #,
// --, ; and /* */ comments and Python docstrings, read from the first
// DetectSampleBytes.
func commentText(src string) string {
	if len(src) > DetectSampleBytes {
		src = src[:DetectSampleBytes]
	}
	var b strings.Builder
	inBlock, inDoc := false, ""
	for line := range strings.Lines(src) {
		l := strings.TrimSpace(line)
		switch {
		case inBlock:
			if i := strings.Index(l, "*/"); i >= 0 {
				l, inBlock = l[:i], false
			}
			b.WriteString(strings.TrimLeft(l, "*"))
		case inDoc != "":
			if i := strings.Index(l, inDoc); i >= 0 {
				l, inDoc = l[:i], ""
			}
			b.WriteString(l)
		default:
			for _, q := range []string{`"""`, "'''"} {
				if strings.HasPrefix(l, q) {
					rest := l[len(q):]
					if i := strings.Index(rest, q); i >= 0 {
						b.WriteString(rest[:i])
					} else {
						b.WriteString(rest)
						inDoc = q
					}
					l = ""
				}
			}
			m, at := commentStart(l)
			switch m {
			case "":
			case "/*":
				rest := l[at+2:]
				if j := strings.Index(rest, "*/"); j >= 0 {
					b.WriteString(rest[:j])
				} else {
					b.WriteString(rest)
					inBlock = true
				}
			default:
				b.WriteString(l[at+len(m):])
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// commentStart finds the first comment marker of a line of code that is
// not inside a string literal: "/*", "//", "#", "--" or a leading ";".
func commentStart(l string) (marker string, at int) {
	quote := byte(0)
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && i+1 < len(l) && (l[i+1] == '/' || l[i+1] == '*'):
			return l[i : i+2], i
		case c == '#' && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'):
			return "#", i
		case c == '-' && i+1 < len(l) && l[i+1] == '-' && (i == 0 || l[i-1] == ' '):
			return "--", i
		case c == ';' && i == 0:
			return ";", i
		}
	}
	return "", -1
}

// withoutFences returns Markdown without its fenced code blocks.
func withoutFences(text string) string {
	if !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return text
	}
	var b strings.Builder
	fence := ""
	for line := range strings.Lines(text) {
		l := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(l, fence) {
				fence = ""
			}
		case strings.HasPrefix(l, "```"):
			fence = "```"
		case strings.HasPrefix(l, "~~~"):
			fence = "~~~"
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}
