package analysis

import "testing"

// FuzzAnalyze runs every analyzer on arbitrary bytes: no panic, every term is
// non-empty valid UTF-8, offsets lie on rune boundaries within the input,
// positions never decrease, and the surface form input[Start:End] analyses
// to the term again (also for the code analyzer's whole identifiers).
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"The quick brown fox's tail", "O'Reilly's U.S.A. 1,000.50 foo_bar a:b",
		"Die Häuser, Straße, Müller", "La información está aquí", "Книга ёлка",
		"我们开发了一个信息检索系统，使用BM25", "カタカナ ひらがな 한국어 การที่ได้",
		"getUserName HTTPServer parse_json_v2 kebab-case __init__", "👩‍❤️‍👩 🇩🇪 ©",
		"\x00\xff\xfe\xc3", "a\u0301\u200d\u05d0'\u05d0\"\u05d1", "_ __ -a- 1_a",
	} {
		f.Add(s)
	}
	analyzers := make([]Analyzer, 0, len(Names()))
	for _, n := range Names() {
		analyzers = append(analyzers, mustNew(f, n))
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, a := range analyzers {
			checkTokens(t, a, text, a.Analyze(text))
		}
		Detect(text)
	})
}
