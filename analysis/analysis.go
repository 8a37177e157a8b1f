package analysis

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Token is one indexable term and where it came from.
type Token struct {
	// Term is the analysed form (lowercased, folded, stemmed...). It is valid,
	// non-empty UTF-8. Terms of one Analyze call share a few backing arrays
	// (never the input's): keeping one term keeps that call's term bytes.
	Term string
	// Start and End are byte offsets into the analysed text, on rune
	// boundaries: text[Start:End] is the surface form Term came from (for a
	// stemmed possessive "Smith's" -> "smith", the whole "Smith's").
	Start, End int
	// Position is the token's position in the token stream, counting the
	// positions of removed stop words, as Lucene does. Tokens made from one
	// word (a code identifier and its parts) share the first part's position.
	Position int
}

// Analyzer turns text into index terms. Implementations are safe for
// concurrent use.
type Analyzer interface {
	Name() string
	Analyze(text string) []Token
}

// IntoAnalyzer is an Analyzer that can reuse a caller's token slice:
// AnalyzeInto(dst, text) returns the tokens Analyze(text) does, in dst's
// array when it is large enough. The terms are in new memory either way, so
// a caller may keep them after it reuses dst: an indexer that analyses
// millions of chunks and keeps only their terms saves allocating a token
// slice per chunk (about a quarter of a GOROOT index's allocations).
type IntoAnalyzer interface {
	Analyzer
	AnalyzeInto(dst []Token, text string) []Token
}

// AnalyzeInto analyses text with a, into dst when a is an IntoAnalyzer.
func AnalyzeInto(a Analyzer, dst []Token, text string) []Token {
	if ia, ok := a.(IntoAnalyzer); ok {
		return ia.AnalyzeInto(dst, text)
	}
	return a.Analyze(text)
}

// Analyzer names.
const (
	Standard = "standard"
	English  = "english"
	German   = "german"
	Spanish  = "spanish"
	Russian  = "russian"
	Chinese  = "chinese"
	Code     = "code"
)

var analyzers = map[string]Analyzer{}

func register(a Analyzer) { analyzers[a.Name()] = a }

// Names lists the analyzer names New accepts, sorted.
func Names() []string {
	names := make([]string, 0, len(analyzers))
	for n := range analyzers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns the analyzer with that name: "standard", "english", "german",
// "spanish", "russian", "chinese" (CJK bigrams) or "code".
func New(name string) (Analyzer, error) {
	if a, ok := analyzers[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("analysis: unknown analyzer %q (known: %s)", name, strings.Join(Names(), ", "))
}

// ForLanguage maps an ISO 639-1 code to its analyzer: en -> english,
// de -> german, es -> spanish, ru -> russian, zh/ja/ko -> chinese (CJK
// bigrams); anything else, including "", -> standard. Region subtags and
// case are ignored ("de-AT", "EN").
func ForLanguage(lang string) Analyzer {
	lang = strings.ToLower(lang)
	if i := strings.IndexAny(lang, "-_"); i >= 0 {
		lang = lang[:i]
	}
	name := Standard
	switch lang {
	case "en":
		name = English
	case "de":
		name = German
	case "es":
		name = Spanish
	case "ru":
		name = Russian
	case "zh", "ja", "ko":
		name = Chinese
	}
	if a, ok := analyzers[name]; ok {
		return a
	}
	return analyzers[Standard]
}

// spanPool recycles tokenizer output between calls.
var spanPool = sync.Pool{New: func() any { s := make([]span, 0, 256); return &s }}

// termBuilder collects tokens; their terms live in append-only byte blocks
// that are never written again once a term is in them, so a term can be a
// string over its block without a copy.
type termBuilder struct {
	arena  []byte
	tokens []Token
}

// newTermBuilder starts a builder whose tokens go into dst's array when it
// holds tokenCap of them, into a new one otherwise; the terms always go into
// new blocks.
func newTermBuilder(dst []Token, arenaCap, tokenCap int) termBuilder {
	if cap(dst) < tokenCap {
		dst = make([]Token, 0, tokenCap)
	}
	return termBuilder{arena: make([]byte, 0, arenaCap), tokens: dst[:0]}
}

func (tb *termBuilder) add(term []byte, start, end, pos int) {
	if len(term) == 0 {
		return
	}
	if cap(tb.arena)-len(tb.arena) < len(term) {
		// A new block; earlier terms keep the old one alive.
		tb.arena = make([]byte, 0, max(2*cap(tb.arena), 4*len(term), 256))
	}
	off := len(tb.arena)
	tb.arena = append(tb.arena, term...)
	t := unsafe.String(&tb.arena[off], len(term))
	tb.tokens = append(tb.tokens, Token{Term: t, Start: start, End: end, Position: pos})
}

func (tb *termBuilder) finish() []Token { return tb.tokens }

// appendLower appends the lowercase form of s (Java's Character.toLowerCase
// per code point, as Lucene's LowerCaseFilter) to dst.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
			dst = append(dst, b)
			i++
			continue
		}
		r, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
	}
	return dst
}

// stripPossessive removes a trailing 's, ’s or ＇s (Lucene's
// EnglishPossessiveFilter) from a lowercased term.
func stripPossessive(t []byte) []byte {
	n := len(t)
	if n < 2 || t[n-1] != 's' {
		return t
	}
	switch {
	case t[n-2] == '\'':
		return t[:n-2]
	case n >= 4 && t[n-4] == 0xE2 && t[n-3] == 0x80 && t[n-2] == 0x99: // U+2019
		return t[:n-4]
	case n >= 4 && t[n-4] == 0xEF && t[n-3] == 0xBC && t[n-2] == 0x87: // U+FF07
		return t[:n-4]
	}
	return t
}

// isASCII reports whether b is all ASCII.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// stopSet is a set of stop words. Most terms are longer than every stop
// word or begin with a byte none begins with, and are told apart without a
// map lookup (stop-word lookups were 2% of a GOROOT index's CPU). A nil
// *stopSet holds nothing.
type stopSet struct {
	words  map[string]struct{}
	maxLen int
	first  [256]bool
}

func newStopSet(words string) *stopSet {
	return stopSetOf(strings.Fields(words))
}

func stopSetOf(words []string) *stopSet {
	s := &stopSet{words: make(map[string]struct{}, len(words))}
	for _, w := range words {
		if w == "" {
			continue
		}
		s.words[w] = struct{}{}
		s.maxLen = max(s.maxLen, len(w))
		s.first[w[0]] = true
	}
	return s
}

func (s *stopSet) has(t []byte) bool {
	if s == nil || len(t) == 0 || len(t) > s.maxLen || !s.first[t[0]] {
		return false
	}
	_, ok := s.words[string(t)]
	return ok
}

// wordChain is the analyzer shape shared by the standard and the
// European-language analyzers: StandardTokenizer, then per term an optional
// possessive strip, lowercase, stop words, normalization and stemming.
type wordChain struct {
	name       string
	possessive bool
	stop       *stopSet
	// norm rewrites a lowercased term; it may reuse t's storage and
	// returns the result. With normFirst it runs before the stop-word test
	// (and the stop set must hold normalized words), else after it.
	norm      func(t []byte) []byte
	normFirst bool
	// stem stems a normalized term; it may reuse t's storage.
	stem func(t []byte) []byte
}

func (c *wordChain) Name() string { return c.name }

func (c *wordChain) Analyze(text string) []Token { return c.AnalyzeInto(nil, text) }

// AnalyzeInto is Analyze writing the tokens into dst's array (see
// IntoAnalyzer).
func (c *wordChain) AnalyzeInto(dst []Token, text string) []Token {
	sp := spanPool.Get().(*[]span)
	spans := standardSpans(text, (*sp)[:0])
	tb := newTermBuilder(dst, len(text), len(spans))
	var scratch [256]byte
	for pos, s := range spans {
		t := appendLower(scratch[:0], text[s.start:s.end])
		if c.possessive {
			t = stripPossessive(t)
		}
		if c.norm != nil && c.normFirst {
			t = c.norm(t)
		}
		if len(t) == 0 || c.stop.has(t) {
			continue
		}
		if c.norm != nil && !c.normFirst {
			t = c.norm(t)
		}
		if c.stem != nil {
			t = c.stem(t)
		}
		tb.add(t, s.start, s.end, pos)
	}
	*sp = spans[:0]
	if cap(spans) <= 1<<16 {
		spanPool.Put(sp)
	}
	return tb.finish()
}

// EnglishStopWords is Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET.
const EnglishStopWords = "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with"

// porterBytes stems a lowercased term with Lucene's Porter stemmer.
func porterBytes(t []byte) []byte {
	if isASCII(t) {
		return porterStem(t)
	}
	r := porterStem([]rune(string(t)))
	return []byte(string(r))
}

func init() {
	register(&wordChain{name: Standard})
	register(&wordChain{
		name:       English,
		possessive: true,
		stop:       newStopSet(EnglishStopWords),
		stem:       porterBytes,
	})
}
