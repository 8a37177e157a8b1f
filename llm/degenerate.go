package llm

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/situate/situate/driver"
)

// Kinds of degenerate answers (FlagDegenerate + kind).
const (
	DegenerateRepetition = "repetition" // repeated n-grams, few distinct words
	DegenerateNoise      = "noise"      // scripts or symbols neither the document nor its language has
	DegenerateUnrelated  = "unrelated"  // no word shared with the document
	DegenerateLength     = "length"     // far outside the asked 50-100 tokens
)

// FlagDegenerate prefixes the flag of a context whose answer was degenerate
// ("degenerate:repetition"): a fallback after the retries, or the answer
// itself with Options.KeepDegenerate.
const FlagDegenerate = "degenerate:"

// ErrDegenerate is matched by the error of an answer rejected as
// degenerate (see DegenerateError).
var ErrDegenerate = errors.New("llm: degenerate context")

// DegenerateError says why an answer was rejected.
type DegenerateError struct {
	Kind   string // DegenerateRepetition, ...
	Detail string // what was seen
}

func (e *DegenerateError) Error() string {
	return fmt.Sprintf("degenerate context (%s): %s", e.Kind, e.Detail)
}

func (e *DegenerateError) Unwrap() error { return ErrDegenerate }

// ErrorKind names the kind for counting errors by kind
// (situate.ErrorKind): "degenerate context (repetition)".
func (e *DegenerateError) ErrorKind() string { return "degenerate context (" + e.Kind + ")" }

// Thresholds of the degenerate checks. They were set on the 737 contexts
// Claude 3 Haiku wrote for the codebase set (see degenerate_test.go, which
// measures false positives there and the catch rate on generated nonsense).
const (
	minContextTokens  = 5    // shorter says nothing about the chunk
	minContextFields  = 3    // nor do fewer words
	maxContextAnswer  = 250  // o200k tokens; the prompt asks for 50-100
	minRepeatWords    = 12   // repetition checks need this many words
	minDistinctRatio  = 0.25 // distinct words / words
	maxRepeatCoverage = 0.5  // words inside a trigram seen 3+ times / words
	minContentWords   = 4    // the shared-word check needs this many
	maxNoiseRunes     = 2    // more foreign letters or symbols are noise
	maxGibberish      = 0.12 // share of words that are no words (Claude's contexts: at most 0.06)
	minSharedWords    = 10   // with this many words,
	minSharedShare    = 0.15 // fewer shared with the document is unrelated (Claude's contexts: 1st percentile 0.26)
)

// genericWords are words of the answers' own vocabulary (the prompt's, and
// what every context says): they do not show that an answer is about the
// document.
var genericWords = set("this", "that", "chunk", "document", "section", "part", "describes", "describe", "shows",
	"which", "with", "from", "about", "within", "context", "contains", "provides", "defines", "file", "code",
	"text", "overall", "discusses", "related", "following", "these", "those", "their", "there", "into", "also",
	"used", "uses", "other", "such", "some", "what", "when", "where", "while", "have", "been", "more", "most",
	"than", "then", "they", "them", "each", "only", "over", "under", "after", "before", "between", "through")

// commonPunct are symbols any context may use whatever the document holds.
const commonPunct = ".,;:!?'\"()[]-–—/%&«»„“”‘’…。，、；：！？（）·*#+=<>_`$@{}|~^\\"

// docWords is what the degenerate checks need of a document, computed once.
type docWords struct {
	once    sync.Once
	words   map[string]bool // lowercased words, identifiers split at case and underscores
	trigram map[string]bool // lowercased word trigrams (the document's own repeated phrases)
	runes   map[rune]bool   // non-letter, non-space runes present
	scripts map[string]bool // scripts of the document's letters
}

func (d *docWords) init(text string) {
	d.once.Do(func() {
		d.words, d.runes, d.scripts, d.trigram = map[string]bool{}, map[rune]bool{}, map[string]bool{}, map[string]bool{}
		ws := splitWords(text)
		for i := 0; i+2 < len(ws); i++ {
			d.trigram[strings.ToLower(ws[i]+" "+ws[i+1]+" "+ws[i+2])] = true
		}
		for _, w := range ws {
			d.words[strings.ToLower(w)] = true
			for _, p := range splitIdent(w) {
				d.words[strings.ToLower(p)] = true
			}
		}
		for _, r := range text {
			switch {
			case unicode.IsLetter(r):
				d.scripts[scriptOf(r)] = true
			case !unicode.IsSpace(r):
				d.runes[r] = true
			}
		}
	})
}

// splitWords returns runs of letters and digits; a Han, kana or Hangul
// character is a word of its own.
func splitWords(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		cjk := isCJK(r)
		word := (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) && !cjk
		if word {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
		if cjk {
			out = append(out, string(r))
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// splitIdent splits camelCase and digit boundaries ("parseHTTPHeader2" ->
// parse, HTTP, Header, 2).
func splitIdent(w string) []string {
	var out []string
	rs := []rune(w)
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		if (unicode.IsLower(prev) && unicode.IsUpper(cur)) ||
			(unicode.IsUpper(prev) && unicode.IsUpper(cur) && unicode.IsLower(next)) ||
			(unicode.IsDigit(prev) != unicode.IsDigit(cur)) {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	if start > 0 {
		out = append(out, string(rs[start:]))
	}
	return out
}

var scriptTables = []struct {
	name  string
	table *unicode.RangeTable
}{
	{"Latin", unicode.Latin}, {"Cyrillic", unicode.Cyrillic}, {"Han", unicode.Han}, {"Greek", unicode.Greek},
	{"Arabic", unicode.Arabic}, {"Hebrew", unicode.Hebrew}, {"Hiragana", unicode.Hiragana},
	{"Katakana", unicode.Katakana}, {"Hangul", unicode.Hangul}, {"Devanagari", unicode.Devanagari},
	{"Thai", unicode.Thai}, {"Armenian", unicode.Armenian}, {"Georgian", unicode.Georgian},
}

func scriptOf(r rune) string {
	for _, s := range scriptTables {
		if unicode.Is(s.table, r) {
			return s.name
		}
	}
	return "other"
}

// langScripts are the scripts a context in a language may use besides the
// document's own (Latin always: names, code, acronyms).
var langScripts = map[string][]string{"ru": {"Cyrillic"}, "zh": {"Han"}}

// degenerate checks a cleaned answer (before it is bounded) against the
// document; it returns nil when the answer looks like a context.
// outputTokens and maxTokens tell an answer that ran out of its budget.
func degenerate(s string, doc *docWords, docText, lang string, outputTokens, maxTokens int) *DegenerateError {
	doc.init(docText)
	tokens := rawTokens(s)
	fields := strings.Fields(strings.ToLower(s))
	cjk := 0
	for _, r := range s {
		if isCJK(r) {
			cjk++
		}
	}
	if tokens < minContextTokens || (len(fields) < minContextFields && cjk < 2*minContextTokens) {
		return &DegenerateError{Kind: DegenerateLength, Detail: fmt.Sprintf("%d tokens in %d words, asked for 50-100 tokens", tokens, len(fields))}
	}
	if e := noise(s, doc, lang); e != nil {
		return e
	}
	words := splitWords(s)
	lower := make([]string, len(words))
	for i, w := range words {
		lower[i] = strings.ToLower(w)
	}
	if e := repetition(fields, doc); e != nil {
		return e
	}
	if len(words) < minContextFields {
		return &DegenerateError{Kind: DegenerateNoise, Detail: fmt.Sprintf("%d words among %d tokens", len(words), tokens)}
	}
	if e := repetition(lower, doc); e != nil {
		return e
	}
	if e := unrelated(words, lower, doc, lang); e != nil {
		return e
	}
	if tokens > maxContextAnswer || (maxTokens >= 200 && outputTokens >= maxTokens) {
		return &DegenerateError{Kind: DegenerateLength, Detail: fmt.Sprintf("%d tokens (%d generated of at most %d), asked for 50-100", tokens, outputTokens, maxTokens)}
	}
	return nil
}

func noise(s string, doc *docWords, lang string) *DegenerateError {
	allowed := func(script string) bool {
		if script == "Latin" || doc.scripts[script] {
			return true
		}
		for _, l := range langScripts[lang] {
			if l == script {
				return true
			}
		}
		return false
	}
	var foreign []rune
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			if !allowed(scriptOf(r)) {
				foreign = append(foreign, r)
			}
		case unicode.IsSpace(r), unicode.IsDigit(r), unicode.Is(unicode.Mn, r):
		case strings.ContainsRune(commonPunct, r), doc.runes[r]:
		default:
			foreign = append(foreign, r)
		}
	}
	if len(foreign) > maxNoiseRunes {
		return &DegenerateError{Kind: DegenerateNoise, Detail: fmt.Sprintf("%d characters neither the document nor its language has: %q", len(foreign), string(foreign[:min(len(foreign), 12)]))}
	}
	// A word mixing alphabets ("RoЪagua") that the document does not have.
	for _, w := range splitWords(s) {
		if utf8.RuneCountInString(w) < 2 || doc.words[strings.ToLower(w)] {
			continue
		}
		var first string
		for _, r := range w {
			if !unicode.IsLetter(r) {
				continue
			}
			sc := scriptOf(r)
			if first == "" {
				first = sc
			} else if sc != first {
				return &DegenerateError{Kind: DegenerateNoise, Detail: fmt.Sprintf("word %q mixes %s and %s letters", w, first, sc)}
			}
		}
	}
	return nil
}

func repetition(words []string, doc *docWords) *DegenerateError {
	n := len(words)
	if n < minRepeatWords {
		return nil
	}
	count := map[string]int{}
	top, topN := "", 0
	for _, w := range words {
		count[w]++
		if count[w] > topN {
			top, topN = w, count[w]
		}
	}
	if ratio := float64(len(count)) / float64(n); ratio < minDistinctRatio {
		return &DegenerateError{Kind: DegenerateRepetition, Detail: fmt.Sprintf("%d distinct of %d words; %q %d times", len(count), n, top, topN)}
	}
	tri := map[string]int{}
	key := func(i int) string { return words[i] + " " + words[i+1] + " " + words[i+2] }
	for i := 0; i+2 < n; i++ {
		tri[key(i)]++
	}
	covered := make([]bool, n)
	worst, worstN := "", 0
	for i := 0; i+2 < n; i++ {
		if c := tri[key(i)]; c >= 3 && !doc.trigram[key(i)] {
			covered[i], covered[i+1], covered[i+2] = true, true, true
			if c > worstN {
				worst, worstN = key(i), c
			}
		}
	}
	cov := 0
	for _, c := range covered {
		if c {
			cov++
		}
	}
	if float64(cov)/float64(n) > maxRepeatCoverage {
		return &DegenerateError{Kind: DegenerateRepetition, Detail: fmt.Sprintf("%d of %d words in repeated phrases; %q %d times", cov, n, worst, worstN)}
	}
	return nil
}

func unrelated(words, lower []string, doc *docWords, lang string) *DegenerateError {
	content, shared := 0, 0
	var sample, gibberish []string
	// In English, a word the document does not have is a common word: one
	// or two o200k tokens. Random-weight babble glues subwords together
	// ("ayantshalotorepository"). (German compounds are long: English only.)
	checkWords := (lang == "" || lang == "en") && !wrongLanguage(strings.Join(words, " "), driver.LangEnglish)
	for i, w := range lower {
		cjk := len(w) > 0 && isCJK([]rune(w)[0])
		if !cjk && (utf8.RuneCountInString(w) < 4 || genericWords[w] || isNumber(w)) {
			continue
		}
		content++
		if doc.words[w] || doc.words[strings.TrimSuffix(w, "s")] || doc.words[w+"s"] || identShared(words[i], doc) {
			shared++
			continue
		}
		if len(sample) < 5 {
			sample = append(sample, words[i])
		}
		if checkWords && !cjk && rawTokens(" "+w) >= 3 {
			gibberish = append(gibberish, words[i])
		}
	}
	// Under minContentWords the share checks do not apply; a short answer
	// that shares no content word with the document and has a glued-subword
	// one is babble all the same ("umeume portraitbmatrixinture ip
	// dasrefresh lod").
	if content < minContentWords && shared == 0 && len(gibberish) > 0 {
		return &DegenerateError{Kind: DegenerateNoise, Detail: fmt.Sprintf("%d of its %d words are neither in the document nor words of the language (%s)",
			len(gibberish), content, strings.Join(gibberish, ", "))}
	}
	if content >= minContentWords && float64(len(gibberish)) >= maxGibberish*float64(content) {
		return &DegenerateError{Kind: DegenerateNoise, Detail: fmt.Sprintf("%d of its %d words are neither in the document nor words of the language (%s...)",
			len(gibberish), content, strings.Join(gibberish[:min(5, len(gibberish))], ", "))}
	}
	if checkWords && content >= minSharedWords && float64(shared) < minSharedShare*float64(content) {
		return &DegenerateError{Kind: DegenerateUnrelated, Detail: fmt.Sprintf("only %d of its %d words are in the document (%s...)", shared, content, strings.Join(sample, ", "))}
	}
	if content >= minContentWords && shared == 0 {
		return &DegenerateError{Kind: DegenerateUnrelated, Detail: fmt.Sprintf("none of its %d words is in the document (%s...)", content, strings.Join(sample, ", "))}
	}
	return nil
}

func identShared(w string, doc *docWords) bool {
	parts := splitIdent(w)
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len(p) >= 3 && doc.words[strings.ToLower(p)] {
			return true
		}
	}
	return false
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func hasDegenerateFlag(flags []string) bool {
	for _, f := range flags {
		if strings.HasPrefix(f, FlagDegenerate) {
			return true
		}
	}
	return false
}
