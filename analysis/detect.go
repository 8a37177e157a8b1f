package analysis

import (
	"unicode"
	"unicode/utf8"
)

// DetectSampleBytes is how much of a text Detect reads: the first 64 KiB
// (cut back to a rune boundary).
const DetectSampleBytes = 64 << 10

// Detect guesses the ISO 639-1 language of a text that is mostly in one
// language. It returns "en", "de", "es", "ru", "uk", "zh", "ja" or "ko", and ""
// when unsure (no letters, or Latin text without clear evidence for English,
// German or Spanish); ForLanguage("") is the standard analyzer.
//
// Heuristic, deterministic and allocation-free:
//  1. Count letters by script over the first DetectSampleBytes. Han, kana
//     and Hangul count three times (one such character carries about as much
//     as three Latin letters). The script with the largest count wins.
//  2. Han/kana/Hangul: any kana -> "ja" (Japanese mixes kana into Han
//     text), else Hangul over Han -> "ko", else "zh".
//  3. Cyrillic: Ukrainian-only letters (і ї є ґ) -> "uk", else "ru".
//  4. Latin: each word that is a frequent function word of exactly one of
//     English, German or Spanish scores one point for it; ß, ä, ö, ü score for
//     German and ñ, ¿, ¡, á, é, í, ó, ú for Spanish. The best language must
//     score at least 1 and strictly more than the second, else "".
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
	var en, de, es int
	wordStart := -1
	flush := func(end int) {
		if wordStart < 0 {
			return
		}
		w := text[wordStart:end]
		wordStart = -1
		if len(w) > 12 {
			return
		}
		var buf [12]byte
		b := appendLower(buf[:0], w)
		switch detectWords[string(b)] {
		case 1:
			en++
		case 2:
			de++
		case 3:
			es++
		}
	}
	for i := 0; i < len(text); {
		r, sz := decode(text, i)
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
				de++
			case 'ñ', 'á', 'é', 'í', 'ó', 'ú':
				es++
			}
		case r == '¿' || r == '¡':
			es++
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
	best, lang, second := en, "en", de
	if de > best {
		best, lang, second = de, "de", en
	}
	if es > best {
		best, lang, second = es, "es", best
	} else if es > second {
		second = es
	}
	if best < 1 || best == second {
		return ""
	}
	return lang
}

// detectWords maps frequent function words to the one language among
// English (1), German (2) and Spanish (3) they belong to. Words shared by two
// of them ("in", "an", "es", "no", "was", "also"...) are left out.
var detectWords = func() map[string]uint8 {
	m := map[string]uint8{}
	for lang, words := range [...]string{
		1: `the and of to is that it for with as on are be this by not or from have which you at
			but they we can has will their been were would there what when how its our your
			than these those more other into such may should could about after all any only`,
		2: `der die das und ist nicht ein eine einen einem einer eines mit von den dem zu sich auf
			für auch im des wird werden sind bei nach wie oder aus aber ich wir sie dass noch kann
			über nur vom zum zur durch wurde wurden wenn schon sehr haben hat keine kein diese dieser
			dieses zwischen unter gegen ohne sowie`,
		3: `el la los las de y que en un una por con para del se al lo como más su sus pero
			este esta estos estas son ha fue también entre cuando muy sin sobre ya donde porque qué
			hay ser está están tiene puede desde hasta todo todos otro otra cada según`,
	} {
		for _, w := range splitFields(words) {
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
