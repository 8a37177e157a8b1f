package rank_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/situate/situate/analysis"
	"github.com/situate/situate/rank"
)

func TestPairText(t *testing.T) {
	for _, tc := range []struct {
		terms []string
		want  string
	}{
		{[]string{"contextu", "retriev", "work"}, "contextu_retriev retriev_work"},
		{[]string{"one"}, ""},
		{nil, ""},
		// A CJK bigram or a term the standard analyzer would split breaks the chain.
		{[]string{"go", "中文", "code", "x", "c++", "y"}, "code_x"},
		{[]string{"u.s", "armi", "don't", "go", "3.14"}, "u.s_armi armi_don't don't_go go_3.14"},
		{[]string{".x", "y"}, ""},
	} {
		if got := rank.PairText(tc.terms); got != tc.want {
			t.Errorf("PairText(%q) = %q, want %q", tc.terms, got, tc.want)
		}
	}
}

// TestPairTextStandard checks PairText's promise to the pair arm: every pair
// of every language analyzer's terms is one token of the standard analyzer,
// unchanged.
func TestPairTextStandard(t *testing.T) {
	std, err := analysis.New(rank.DefaultPairAnalyzer)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"en": "Anthropic's contextual retrieval doesn't lose U.S. chunks: 3.14 percent, e.g. the user's getUserName() call (HTTPServer v2).",
		"de": "Die Straße führt über den Fluß; Öl- und Gasförderung stieg 2019 um 3,5 %.",
		"es": "¿Dónde está la estación? El niño comió pingüinos y acción.",
		"ru": "Ёлка стоит в Москве; «Война и мир» — роман Толстого, 1869 г.",
		"zh": "上下文检索把每个块放在文档中。BM25 与 embedding 融合。",
		"":   "func (e *Engine) lexicalSearch(text string, k int) { return e.lex.Search(bm25.Query{Text: text}) } // parse_json_v2 x+=1",
	}
	for lang, text := range texts {
		for _, name := range []string{analysis.ForLanguage(lang).Name(), analysis.Code, analysis.Standard} {
			a, _ := analysis.New(name)
			var terms []string
			for _, tok := range a.Analyze(text) {
				terms = append(terms, tok.Term)
			}
			pt := rank.PairText(terms)
			want := strings.Fields(pt)
			var got []string
			for _, tok := range std.Analyze(pt) {
				got = append(got, tok.Term)
			}
			if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s: standard analyzer on PairText = %q, want %q", lang, name, got, want)
			}
			if lang != "zh" && name != analysis.Code && len(want) < len(terms)/2 {
				t.Errorf("%s/%s: only %d pairs from %d terms %q", lang, name, len(want), len(terms), terms)
			}
		}
	}
}

func TestPairQuery(t *testing.T) {
	en := []string{"run", "fast", "run", "fast"}
	de := []string{"run", "fast", "schnell"}
	got, want := strings.Fields(rank.PairQuery(en)), strings.Fields(rank.PairText(en))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("PairQuery(one list) pairs = %q, want PairText's %q", got, want)
	}
	// run_fast twice in en, once in de: twice; fast_run once; fast_schnell once.
	if got, want := rank.PairQuery(en, de), "run_fast run_fast fast_run fast_schnell"; got != want {
		t.Errorf("PairQuery(en, de) = %q, want %q", got, want)
	}
	if got := rank.PairQuery(); got != "" {
		t.Errorf("PairQuery() = %q, want empty", got)
	}
}

// TestPairTextASCII: a word pairs when its inner ASCII characters are
// letters, digits, underscores, full stops or apostrophes, as the Unicode
// classes say, on every ASCII character.
func TestPairTextASCII(t *testing.T) {
	for r := rune(0); r < 128; r++ {
		word := "a" + string(r) + "b"
		want := r == '_' || r == '.' || r == '\'' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
		if got := rank.PairText([]string{"x", word}) != ""; got != want {
			t.Errorf("%q pairs: %v, want %v", word, got, want)
		}
	}
}
