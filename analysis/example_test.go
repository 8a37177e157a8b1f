package analysis_test

import (
	"fmt"

	"github.com/situate/situate/analysis"
)

func Example() {
	a, err := analysis.New("english")
	if err != nil {
		panic(err)
	}
	text := "The user's documents were indexed."
	for _, t := range a.Analyze(text) {
		fmt.Printf("%-8s %q pos=%d\n", t.Term, text[t.Start:t.End], t.Position)
	}
	// Output:
	// user     "user's" pos=1
	// document "documents" pos=2
	// were     "were" pos=3
	// index    "indexed" pos=4
}

func ExampleForLanguage() {
	for _, text := range []string{
		"Die Häuser wurden renoviert.",
		"我们开发了信息检索系统",
		"func getUserName() string",
	} {
		lang := analysis.Detect(text)
		a := analysis.ForLanguage(lang)
		if lang == "" {
			a, _ = analysis.New("code")
		}
		var terms []string
		for _, t := range a.Analyze(text) {
			terms = append(terms, t.Term)
		}
		fmt.Printf("%q %s %q\n", lang, a.Name(), terms)
	}
	// Output:
	// "de" german ["haus" "renoviert"]
	// "zh" chinese ["我们" "们开" "开发" "发了" "了信" "信息" "息检" "检索" "索系" "系统"]
	// "" code ["func" "getusername" "get" "user" "name" "string"]
}
