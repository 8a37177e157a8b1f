package llm

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Flags set on generated contexts.
const (
	FlagFallback      = "fallback"
	FlagEmpty         = "empty"
	FlagTooLarge      = "too-large"
	FlagError         = "error"
	FlagWrongLanguage = "wrong-language"
	FlagTruncated     = "truncated"
	// FlagUnknownNumber and FlagUnknownIdentifier prefix a number or a
	// code-like identifier that the context names but the document does not
	// contain (a possible hallucination): "unknown-number:42".
	FlagUnknownNumber     = "unknown-number:"
	FlagUnknownIdentifier = "unknown-identifier:"
)

// maxUnknownFlags caps the unknown-number and unknown-identifier flags each.
const maxUnknownFlags = 5

var (
	// Preambles models put before the answer, in the five languages.
	preambleRe = regexp.MustCompile(`(?is)^\s*(?:(?:sure|certainly|of course|okay|ok)[,!.]?\s*)?` +
		`(?:(?:assistant|answer|response)\s*:\s*)?` +
		`(?:(?:here(?:'s| is)|this is|below is)\s+(?:the|a|an)?\s*(?:short\s+|succinct\s+|brief\s+|concise\s+|requested\s+)*(?:context|contextuali[sz]ation|answer)[^:\n]{0,80}:\s*` +
		`|(?:short\s+|succinct\s+|brief\s+|concise\s+)*(?:context|kontext|contexto|контекст|上下文|背景)\s*[:：]\s*)`)
	roleRe     = regexp.MustCompile(`(?i)^\s*(?:assistant|answer|response)\s*:\s*`)
	wrapTagRe  = regexp.MustCompile(`(?s)^\s*<([A-Za-z_][A-Za-z0-9_-]*)>\s*(.*?)\s*</([A-Za-z_][A-Za-z0-9_-]*)>\s*$`)
	openTagRe  = regexp.MustCompile(`^\s*<(?:context|answer|response|succinct_context)>\s*`)
	closeTagRe = regexp.MustCompile(`\s*</(?:context|answer|response|succinct_context)>\s*$`)
	boldRe     = regexp.MustCompile(`\*\*([^*\n]+?)\*\*`)
	boldUndRe  = regexp.MustCompile(`(^|[\s(])__([^_\s][^_\n]*?\s[^_\n]*?)__`)
	headingRe  = regexp.MustCompile(`(?m)^\s*#{1,6}\s+`)
	numberRe   = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	identRe    = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*`)
	camelRe    = regexp.MustCompile(`^_*(?:[a-z][a-z0-9]*[A-Z]|[A-Z][a-z0-9]+[A-Z])[A-Za-z0-9]*$`)
	snakeRe    = regexp.MustCompile(`^_*[A-Za-z0-9]+(?:_+[A-Za-z0-9]+)+_*$`)
)

var quotePairs = map[rune]rune{'"': '"', '\'': '\'', '“': '”', '„': '“', '«': '»', '「': '」', '『': '』', '`': '`'}

// cleanContext strips what is not the context itself: preambles, wrapping
// tags and quotes, markdown emphasis; and collapses whitespace.
func cleanContext(s string) string {
	for range 3 {
		before := s
		s = strings.TrimSpace(s)
		if m := wrapTagRe.FindStringSubmatch(s); m != nil && m[1] == m[3] {
			s = m[2]
		}
		s = openTagRe.ReplaceAllString(s, "")
		s = closeTagRe.ReplaceAllString(s, "")
		s = roleRe.ReplaceAllString(s, "")
		s = preambleRe.ReplaceAllString(s, "")
		s = boldRe.ReplaceAllString(s, "$1")
		s = boldUndRe.ReplaceAllString(s, "$1$2")
		s = headingRe.ReplaceAllString(s, "")
		s = strings.TrimSpace(s)
		if r, n := utf8.DecodeRuneInString(s); n > 0 {
			if closer, ok := quotePairs[r]; ok {
				last, m := utf8.DecodeLastRuneInString(s)
				if last == closer && len(s) > n+m && !strings.ContainsRune(s[n:len(s)-m], closer) {
					s = s[n : len(s)-m]
				}
			}
		}
		if s == before {
			break
		}
	}
	return strings.Join(strings.Fields(s), " ")
}

// sentences splits text after . ! ? … 。！？ (keeping the punctuation).
func sentences(s string) []string {
	var out []string
	start := 0
	rs := []rune(s)
	pos := 0 // byte offset
	for i, r := range rs {
		pos += utf8.RuneLen(r)
		end := false
		switch r {
		case '。', '！', '？':
			end = true
		case '.', '!', '?', '…':
			end = i+1 == len(rs) || unicode.IsSpace(rs[i+1])
		}
		if end {
			out = append(out, strings.TrimSpace(s[start:pos]))
			start = pos
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// bound keeps whole sentences up to max tokens; a first sentence that alone
// is too long is cut at a word (or, for Chinese, character) boundary.
func bound(s string, max int) (string, bool) {
	if rawTokens(s) <= max {
		return s, false
	}
	var kept []string
	total := 0
	for _, sen := range sentences(s) {
		t := rawTokens(sen + " ")
		if total+t > max {
			break
		}
		kept = append(kept, sen)
		total += t
	}
	if len(kept) > 0 {
		return joinSentences(kept), true
	}
	// Cut the first sentence: binary search on a rune prefix.
	rs := []rune(s)
	lo, hi := 0, len(rs)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if rawTokens(string(rs[:mid])+"…") <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	cut := string(rs[:lo])
	if i := strings.LastIndexFunc(cut, unicode.IsSpace); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…", true
}

func joinSentences(ss []string) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			last, _ := utf8.DecodeLastRuneInString(ss[i-1])
			if !(last == '。' || last == '！' || last == '？') {
				b.WriteByte(' ')
			}
		}
		b.WriteString(s)
	}
	return b.String()
}

// checkFacts flags numbers and code-like identifiers that the context names
// but the document text does not contain.
func checkFacts(context string, doc *docFacts) []string {
	var flags []string
	seen := map[string]bool{}
	docNums, docText := doc.nums, doc.text
	nNum := 0
	for _, num := range numberRe.FindAllString(context, -1) {
		if seen[num] || nNum >= maxUnknownFlags {
			continue
		}
		seen[num] = true
		if docNums[num] || docNums[stripSep(num)] {
			continue
		}
		flags = append(flags, FlagUnknownNumber+num)
		nNum++
	}
	nID := 0
	for _, loc := range identRe.FindAllStringIndex(context, -1) {
		id := context[loc[0]:loc[1]]
		// Not part of a longer word in a non-ASCII script.
		if loc[0] > 0 {
			if r, _ := utf8.DecodeLastRuneInString(context[:loc[0]]); unicode.IsLetter(r) || unicode.IsDigit(r) {
				continue
			}
		}
		if seen[id] || nID >= maxUnknownFlags || !codeLike(id) {
			continue
		}
		seen[id] = true
		if strings.Contains(docText, id) {
			continue
		}
		if strings.ContainsAny(id, ".:") {
			// A qualified name whose parts all occur is not invented.
			all := true
			for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '.' || r == ':' }) {
				if !strings.Contains(docText, part) {
					all = false
					break
				}
			}
			if all {
				continue
			}
		}
		flags = append(flags, FlagUnknownIdentifier+id)
		nID++
	}
	return flags
}

var sepReplacer = strings.NewReplacer(",", "", ".", "")

func stripSep(n string) string { return sepReplacer.Replace(n) }

// docFacts is what the fact checks need of a document, computed once.
type docFacts struct {
	text  string
	nums  map[string]bool
	words docWords // for the degenerate checks, computed on first use
}

func newDocFacts(text string) *docFacts {
	f := &docFacts{text: text, nums: map[string]bool{}}
	for _, n := range numberRe.FindAllString(text, -1) {
		f.nums[n] = true
		f.nums[stripSep(n)] = true
		for _, part := range strings.FieldsFunc(n, func(r rune) bool { return r == '.' || r == ',' }) {
			f.nums[part] = true
		}
	}
	return f
}

// codeLike reports camelCase, snake_case and dotted (or ::) names.
func codeLike(id string) bool {
	if strings.Contains(id, ".") || strings.Contains(id, "::") {
		parts := strings.FieldsFunc(id, func(r rune) bool { return r == '.' || r == ':' })
		for _, p := range parts {
			if len(p) < 2 {
				return false // e.g., i.e., U.S.
			}
		}
		return len(parts) >= 2
	}
	return camelRe.MatchString(id) || snakeRe.MatchString(id)
}

// checked is the result of cleaning and checking one answer.
type checked struct {
	text  string
	flags []string
	// degenerate is set when the answer is not a context at all (see
	// degenerate); text and flags are still filled.
	degenerate *DegenerateError
}

// check cleans an answer and runs every check against the document;
// maxTokens bounds the kept context, outputTokens and maxOutput tell an
// answer that ran out of its output budget.
func check(answer string, doc *docFacts, lang string, maxTokens, outputTokens, maxOutput int) checked {
	s := cleanContext(answer)
	var flags []string
	if s == "" {
		return checked{flags: []string{FlagEmpty}}
	}
	dg := degenerate(s, &doc.words, doc.text, lang, outputTokens, maxOutput)
	if dg != nil {
		flags = append(flags, FlagDegenerate+dg.Kind)
	}
	s, cut := bound(s, maxTokens)
	if cut {
		flags = append(flags, FlagTruncated)
	}
	if lang != "" && wrongLanguage(s, lang) {
		flags = append(flags, FlagWrongLanguage)
	}
	flags = append(flags, checkFacts(s, doc)...)
	return checked{text: s, flags: flags, degenerate: dg}
}
