package analysis

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func terms(a Analyzer, text string) []string {
	var out []string
	for _, t := range a.Analyze(text) {
		out = append(out, t.Term)
	}
	return out
}

func mustNew(tb testing.TB, name string) Analyzer {
	tb.Helper()
	a, err := New(name)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// checkTokens verifies the invariants every analyzer promises.
func checkTokens(t testing.TB, a Analyzer, text string, toks []Token) {
	t.Helper()
	// Rune boundaries as Go decodes the text (an invalid byte is one rune).
	boundary := make([]bool, len(text)+1)
	for i := range text {
		boundary[i] = true
	}
	boundary[len(text)] = true
	for i, tok := range toks {
		if tok.Term == "" || !utf8.ValidString(tok.Term) {
			t.Fatalf("%s: token %d: term %q is empty or invalid UTF-8", a.Name(), i, tok.Term)
		}
		if tok.Start < 0 || tok.Start >= tok.End || tok.End > len(text) {
			t.Fatalf("%s: token %d %q: bad offsets [%d,%d) for %d bytes", a.Name(), i, tok.Term, tok.Start, tok.End, len(text))
		}
		if !boundary[tok.Start] || !boundary[tok.End] {
			t.Fatalf("%s: token %d %q: offsets [%d,%d) not on rune boundaries", a.Name(), i, tok.Term, tok.Start, tok.End)
		}
		if i > 0 && tok.Position < toks[i-1].Position {
			t.Fatalf("%s: token %d %q: position %d before %d", a.Name(), i, tok.Term, tok.Position, toks[i-1].Position)
		}
		// The surface form analysed alone yields the term again.
		surface := text[tok.Start:tok.End]
		if !slices.Contains(terms(a, surface), tok.Term) {
			t.Fatalf("%s: token %d %q: surface %q analyses to %q", a.Name(), i, tok.Term, surface, terms(a, surface))
		}
	}
}

func TestStandardTokenizer(t *testing.T) {
	a := mustNew(t, Standard)
	long := strings.Repeat("a", 300)
	for _, c := range []struct {
		in   string
		want []string
	}{
		// Cases from Lucene's TestStandardAnalyzer and UAX#29.
		{"B2B 2B R2D2 C3PO", []string{"b2b", "2b", "r2d2", "c3po"}},
		{"some-dashed-phrase dogs,chase,cats ac/dc", []string{"some", "dashed", "phrase", "dogs", "chase", "cats", "ac", "dc"}},
		{"O'Reilly you're she's Jim's don't O'Reilly's", []string{"o'reilly", "you're", "she's", "jim's", "don't", "o'reilly's"}},
		{"21.35 216.239.63.104 1,000.50 David has 5000 bones", []string{"21.35", "216.239.63.104", "1,000.50", "david", "has", "5000", "bones"}},
		{"U.S.A. C++ C# 2005-03-15", []string{"u.s.a", "c", "c", "2005", "03", "15"}},
		{"test@example.com http://lucene.apache.org/x?y=1", []string{"test", "example.com", "http", "lucene.apache.org", "x", "y", "1"}},
		{"foo_bar _under_ __ a:b a..b 1.a", []string{"foo_bar", "_under_", "a:b", "a", "b", "1", "a"}},
		{"我是中国人。", []string{"我", "是", "中", "国", "人"}},
		{"カタカナ ひらがな 안녕하세요 한글입니다", []string{"カタカナ", "ひ", "ら", "が", "な", "안녕하세요", "한글입니다"}},
		{"การที่ได้ต้องแสดงว่างานดี", []string{"การที่ได้ต้องแสดงว่างานดี"}},
		{"Καλημέρα κόσμε Привет, мир!", []string{"καλημέρα", "κόσμε", "привет", "мир"}},
		{"café naïve Ǆemal", []string{"café", "naïve", "ǆemal"}},
		{"💩 👩‍❤️‍👩 🇩🇪", []string{"💩", "👩‍❤️‍👩", "🇩🇪"}},
		{long, []string{long[:255], long[:45]}},
		{"\x00\xff\xfeabc\x00", []string{"abc"}},
		{"", nil},
	} {
		if got := terms(a, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("standard %q:\n got %q\nwant %q", c.in, got, c.want)
		}
		checkTokens(t, a, c.in, a.Analyze(c.in))
	}
}

func TestEnglish(t *testing.T) {
	a := mustNew(t, English)
	in := "The quick brown foxes jumped over the lazy dog's back; Smith’s relational databases."
	want := []string{"quick", "brown", "fox", "jump", "over", "lazi", "dog", "back", "smith", "relat", "databas"}
	toks := a.Analyze(in)
	checkTokens(t, a, in, toks)
	var got []string
	for _, tok := range toks {
		got = append(got, tok.Term)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("english:\n got %q\nwant %q", got, want)
	}
	// Stop words keep their positions (Lucene position increments).
	if toks[0].Position != 1 || toks[6].Position != 8 {
		t.Errorf("positions: quick at %d (want 1), dog at %d (want 8)", toks[0].Position, toks[6].Position)
	}
	if s := in[toks[8].Start:toks[8].End]; s != "Smith’s" {
		t.Errorf("surface of smith = %q, want the whole possessive", s)
	}
}

// TestPorter checks examples from Porter's paper, as his reference
// implementation (and Lucene) stems them.
func TestPorter(t *testing.T) {
	for in, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "disabled": "disabl", "matting": "mat", "mating": "mate",
		"meeting": "meet", "milling": "mill", "messing": "mess", "meetings": "meet", "happy": "happi",
		"sky": "sky", "relational": "relat", "conditional": "condit", "rational": "ration",
		"valenci": "valenc", "hesitanci": "hesit", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
		"vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
		"decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
		"irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
		"angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controlling": "control", "rolling": "roll",
		"generalizations": "gener", "oscillators": "oscil", "archaeology": "archaeolog",
		"is": "is", "as": "as", "naïveties": "naïveti",
	} {
		if got := PorterStem(in); got != want {
			t.Errorf("PorterStem(%q) = %q, want %q", in, got, want)
		}
	}
}

// shareTerm reports whether the query's terms all occur among the
// document's: what a BM25 conjunction needs.
func findable(a Analyzer, doc, query string) bool {
	dt := terms(a, doc)
	qt := terms(a, query)
	if len(qt) == 0 {
		return false
	}
	for _, q := range qt {
		if !slices.Contains(dt, q) {
			return false
		}
	}
	return true
}

func TestLanguages(t *testing.T) {
	for _, c := range []struct {
		analyzer, doc string
		queries       []string
		absent        []string // terms that must not appear (stop words)
	}{
		{German, "Die Häuser am Marktplatz wurden vom Bundesverfassungsgericht für denkmalgeschützt erklärt. Die Straße führt zum Haus des Müllers.",
			[]string{"Häuser", "Hauser", "Haeuser", "Haus", "Hauses", "Bundesverfassungsgericht", "bundesverfassungsgerichts", "Strasse", "Straße", "Mueller", "Müller"},
			[]string{"die", "für", "fur", "zum"}},
		{Spanish, "La información de los niños está en el análisis. Las informaciones biológicas corrían por la región.",
			[]string{"información", "informacion", "informaciones", "niño", "niños", "analisis", "análisis", "region", "región"},
			[]string{"la", "de", "los", "esta", "en", "el"}},
		{Russian, "Я читал книгу о новой книге. В книгах и книгой много ёлок, ёлку и ели.",
			[]string{"книга", "книги", "книгам", "КНИГОЮ", "ёлка", "елки", "новая", "новыми"},
			[]string{"я", "о", "в", "и"}},
		{Chinese, "我们开发了一个信息检索系统，使用BM25和向量搜索。",
			[]string{"检索", "信息检索", "系统", "搜索", "bm25", "BM25"},
			[]string{}},
		{Code, "func (s *HTTPServer) getUserName(ctx context.Context) string { return parse_json_v2(s.rawBody) } // kebab-case-name",
			[]string{"getUserName", "user name", "get user", "HTTPServer", "server", "http", "parse_json_v2", "json", "raw body", "rawBody", "kebab-case-name", "kebab case"},
			[]string{}},
	} {
		a := mustNew(t, c.analyzer)
		toks := a.Analyze(c.doc)
		checkTokens(t, a, c.doc, toks)
		for _, q := range c.queries {
			if !findable(a, c.doc, q) {
				t.Errorf("%s: query %q (terms %q) not findable in doc terms %q", c.analyzer, q, terms(a, q), terms(a, c.doc))
			}
		}
		for _, w := range c.absent {
			if slices.Contains(terms(a, c.doc), w) {
				t.Errorf("%s: stop word %q indexed", c.analyzer, w)
			}
		}
	}
}

func TestLanguageTerms(t *testing.T) {
	for _, c := range []struct {
		analyzer, in string
		want         []string
	}{
		// Different spellings and case forms share one term.
		{German, "Häuser Hauser Haus Hauses", []string{"haus", "haus", "haus", "haus"}},
		{German, "Straße Strasse Mauer Quelle", []string{"strass", "strass", "mau", "quell"}},
		{Spanish, "información informacion informaciones", []string{"inform", "inform", "inform"}},
		{Spanish, "año ano", []string{"año", "ano"}},
		{Russian, "книга книги книге книгу книгой книгах", []string{"книг", "книг", "книг", "книг", "книг", "книг"}},
		{Russian, "ёлка Ёлка елка", []string{"елк", "елк", "елк"}},
		{Chinese, "信息检索", []string{"信息", "息检", "检索"}},
		{Chinese, "中 The Lucene www", []string{"中", "lucene"}},
		{Chinese, "ＡＢＣ１２３", []string{"abc123"}},
		{Code, "getUserName", []string{"getusername", "get", "user", "name"}},
		{Code, "HTTPServer", []string{"httpserver", "http", "server"}},
		{Code, "parse_json_v2", []string{"parse_json_v2", "pars", "json", "v", "2"}},
		{Code, "x-1 x+y __init__ user", []string{"x", "1", "x", "y", "__init__", "init", "user"}},
		{Code, "XMLHttpRequest", []string{"xmlhttprequest", "xml", "http", "request"}},
		{Code, "the_value is ok", []string{"the_value", "valu", "ok"}},
	} {
		a := mustNew(t, c.analyzer)
		if got := terms(a, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q:\n got %q\nwant %q", c.analyzer, c.in, got, c.want)
		}
		checkTokens(t, a, c.in, a.Analyze(c.in))
	}
}

func TestCodePositions(t *testing.T) {
	a := mustNew(t, Code)
	toks := a.Analyze("getUserName next")
	want := []Token{
		{"getusername", 0, 11, 0}, {"get", 0, 3, 0}, {"user", 3, 7, 1}, {"name", 7, 11, 2}, {"next", 12, 16, 3},
	}
	if !reflect.DeepEqual(toks, want) {
		t.Fatalf("got %+v\nwant %+v", toks, want)
	}
}

func TestNewAndForLanguage(t *testing.T) {
	for _, n := range []string{Standard, English, German, Spanish, Russian, Chinese, Code} {
		a, err := New(n)
		if err != nil || a.Name() != n {
			t.Errorf("New(%q) = %v, %v", n, a, err)
		}
	}
	if _, err := New("klingon"); err == nil || !strings.Contains(err.Error(), `"klingon"`) {
		t.Errorf("New(klingon) error = %v, want one naming it", err)
	}
	for lang, want := range map[string]string{
		"en": English, "EN": English, "en-US": English, "de": German, "de_AT": German, "es": Spanish,
		"ru": Russian, "zh": Chinese, "ja": Chinese, "ko": Chinese, "fr": Standard, "": Standard, "uk": Standard,
	} {
		if got := ForLanguage(lang).Name(); got != want {
			t.Errorf("ForLanguage(%q) = %s, want %s", lang, got, want)
		}
	}
}

func TestConcurrent(t *testing.T) {
	texts := []string{
		"The quick brown foxes jumped over the lazy dog's back",
		"Die Häuser am Marktplatz wurden erklärt",
		"我们开发了一个信息检索系统 getUserName",
	}
	var wg sync.WaitGroup
	for _, name := range Names() {
		a := mustNew(t, name)
		want := make([][]Token, len(texts))
		for i, s := range texts {
			want[i] = a.Analyze(s)
		}
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 200; k++ {
					i := k % len(texts)
					if got := a.Analyze(texts[i]); !reflect.DeepEqual(got, want[i]) {
						t.Errorf("%s: concurrent result differs", name)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
}

// TestHugeInput runs every analyzer over 2 MB inputs without a line break:
// one unbroken word, and words without newlines. Tokens of the unbroken
// word are cut at MaxTokenLength like Lucene's.
func TestHugeInput(t *testing.T) {
	const size = 2 << 20
	word := strings.Repeat("x", size)
	words := strings.Repeat("Häuser检索 getUserName, ", size/32)
	for _, name := range Names() {
		a := mustNew(t, name)
		toks := a.Analyze(word)
		if len(toks) < size/MaxTokenLength || len(toks) > 2*size/MaxTokenLength+2 {
			t.Errorf("%s: %d tokens for one %d-byte word", name, len(toks), size)
		}
		for _, tok := range toks {
			if tok.End-tok.Start > MaxTokenLength+3 {
				t.Fatalf("%s: token of %d bytes", name, tok.End-tok.Start)
			}
		}
		if toks := a.Analyze(words); len(toks) < size/32 {
			t.Errorf("%s: %d tokens for %d words", name, len(toks), size/32)
		}
	}
}
