package llm

import (
	"reflect"
	"strings"
	"testing"
)

func TestCleanContext(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Here is the context:\nThe chunk describes revenue.", "The chunk describes revenue."},
		{"Here's the succinct context for the chunk: The chunk describes revenue.", "The chunk describes revenue."},
		{"Sure! Here is a short succinct context: The chunk describes revenue.", "The chunk describes revenue."},
		{"Context: The chunk describes revenue.", "The chunk describes revenue."},
		{"assistant: The chunk describes revenue.", "The chunk describes revenue."},
		{"<context>\nThe chunk describes revenue.\n</context>", "The chunk describes revenue."},
		{"<succinct_context>The chunk   describes\n\nrevenue.</succinct_context>", "The chunk describes revenue."},
		{"**Context:** The chunk describes **Q2** revenue.", "The chunk describes Q2 revenue."},
		{"\"The chunk describes revenue.\"", "The chunk describes revenue."},
		{"“The chunk describes revenue.”", "The chunk describes revenue."},
		{"Kontext: Der Abschnitt beschreibt den Umsatz.", "Der Abschnitt beschreibt den Umsatz."},
		{"Контекст: Фрагмент описывает выручку.", "Фрагмент описывает выручку."},
		{"上下文：该文本块描述收入。", "该文本块描述收入。"},
		{"The function __init__ sets my__var and I32__eqz.", "The function __init__ sets my__var and I32__eqz."},
		{"\"Quoted\" word and \"another\" one.", "\"Quoted\" word and \"another\" one."},
		{"The context of the chunk: x", "The context of the chunk: x"},
		{"   ", ""},
		{"<context></context>", ""},
	}
	for _, tc := range cases {
		if got := cleanContext(tc.in); got != tc.want {
			t.Errorf("cleanContext(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBound(t *testing.T) {
	s := strings.Repeat("This sentence has exactly some words in it. ", 20)
	s = strings.TrimSpace(s)
	got, cut := bound(s, 50)
	if !cut || rawTokens(got) > 50 || !strings.HasSuffix(got, "in it.") {
		t.Errorf("bound: cut=%v, %d tokens, %q", cut, rawTokens(got), got)
	}
	if n := strings.Count(got, "."); n != rawTokensSentences(got) {
		t.Errorf("not whole sentences: %q", got)
	}
	short := "One short sentence."
	if got, cut := bound(short, 50); cut || got != short {
		t.Errorf("short text changed: %q", got)
	}
	// One overlong sentence is cut at a word and marked.
	long := strings.Repeat("word ", 300)
	got, cut = bound(strings.TrimSpace(long), 40)
	if !cut || rawTokens(got) > 40 || !strings.HasSuffix(got, "word…") {
		t.Errorf("long sentence: %q (%d tokens)", got, rawTokens(got))
	}
	// Chinese sentences end with 。
	zh := strings.Repeat("该文本块描述了公司的收入增长情况。", 30)
	got, cut = bound(zh, 60)
	if !cut || rawTokens(got) > 60 || !strings.HasSuffix(got, "。") {
		t.Errorf("zh: %q", got)
	}
}

func rawTokensSentences(s string) int { return len(sentences(s)) }

func TestCheckFacts(t *testing.T) {
	doc := "The parser in parse_config.go calls readFile and os.Open; it retries 3 times and waits 1,500 ms. Version 2.4 of HashMap."
	cases := []struct {
		ctx  string
		want []string
	}{
		{"The chunk shows parse_config.go calling readFile and os.Open with 3 retries.", nil},
		{"It waits 1500 ms (1,500 ms) in version 2.4 of HashMap.", nil},
		{"It retries 5 times via load_config and fetchUrl.", []string{"unknown-number:5", "unknown-identifier:load_config", "unknown-identifier:fetchUrl"}},
		{"It calls os.Create and io.Copy.", []string{"unknown-identifier:os.Create", "unknown-identifier:io.Copy"}},
		{"It calls Open on os (os.Open) e.g. for files, i.e. reads.", nil},
		{"Released in 2019 by JavaScript devs.", []string{"unknown-number:2019", "unknown-identifier:JavaScript"}},
	}
	for _, tc := range cases {
		if got := checkFacts(tc.ctx, newDocFacts(doc)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("checkFacts(%q) = %v, want %v", tc.ctx, got, tc.want)
		}
	}
}

func TestWrongLanguage(t *testing.T) {
	en := "This chunk describes the revenue growth of the company in the second quarter of the year."
	de := "Dieser Abschnitt beschreibt das Umsatzwachstum des Unternehmens im zweiten Quartal und ist nicht neu."
	es := "Este fragmento describe el crecimiento de los ingresos de la empresa en el segundo trimestre del año."
	ru := "Этот фрагмент описывает рост выручки компании во втором квартале года."
	zh := "该文本块描述了公司第二季度的收入增长情况。"
	zhWithCode := "该文本块描述了 parse_config 函数如何读取配置文件并返回 Config 结构。"
	cases := []struct {
		ctx, lang string
		want      bool
	}{
		{en, "en", false}, {de, "de", false}, {es, "es", false}, {ru, "ru", false}, {zh, "zh", false}, {zhWithCode, "zh", false},
		{de, "en", true}, {en, "de", true}, {en, "es", true}, {es, "en", true},
		{en, "ru", true}, {en, "zh", true}, {ru, "en", true}, {zh, "de", true},
		{"Short text.", "de", false}, // too little evidence
		{en, "", false},              // unknown document language
		{"parse_config reads config.yaml and returns Config.", "de", false}, // no stop words either way
	}
	for _, tc := range cases {
		if got := wrongLanguage(tc.ctx, tc.lang); got != tc.want {
			t.Errorf("wrongLanguage(%q, %q) = %v, want %v", tc.ctx, tc.lang, got, tc.want)
		}
	}
	for text, want := range map[string]string{en: "en", de: "de", es: "es", ru: "ru", zh: "zh", "x := 1": ""} {
		if got := detectLang(text); got != want {
			t.Errorf("detectLang(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	doc := "Das Modul parse_config liest die Datei und prüft 3 Felder."
	got := check("Kontext: **Der Abschnitt** beschreibt, wie parse_config die Datei liest und 4 Felder prüft.", newDocFacts(doc), "de", 150, 30, 256)
	if got.text != "Der Abschnitt beschreibt, wie parse_config die Datei liest und 4 Felder prüft." || !reflect.DeepEqual(got.flags, []string{"unknown-number:4"}) {
		t.Errorf("check = %+v", got)
	}
	if got := check(" <context> </context>", newDocFacts(doc), "de", 150, 30, 256); got.text != "" || !reflect.DeepEqual(got.flags, []string{FlagEmpty}) {
		t.Errorf("empty: %+v", got)
	}
}
