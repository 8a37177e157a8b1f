package analysis

import (
	"slices"
	"testing"
)

func TestGermanCompounds(t *testing.T) {
	a, err := New(German)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := a.(Compounder)
	if !ok {
		t.Fatal("the German analyzer is not a Compounder")
	}
	// The vocabulary: the terms of a small text, as an index would hold them.
	vocab := map[string]bool{}
	for _, tok := range a.Analyze("Das Verfahren vor dem Gericht. Die Zahl der Mitarbeiter stieg. " +
		"Der Wald am Amazonas. Die Mitarbeiterzahl und das Wirtschaftswachstum; Wachstum der Wirtschaft.") {
		vocab[tok.Term] = true
	}
	known := func(s string) bool { return vocab[s] }
	term := func(w string) string { return a.Analyze(w)[0].Term }
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"Gerichtsverfahren", []string{term("Gericht"), term("Verfahren")}}, // linking s
		{"Amazonaswald", []string{term("Amazonas"), term("Wald")}},
		{"Wirtschaftswachstum", []string{term("Wirtschaft"), term("Wachstum")}},
		{"Gerichtswald", []string{term("Gericht"), term("Wald")}},
		{"Wolkenkratzer", nil}, // no part known
		{"Verfahrensart", nil}, // head unknown
		{"Waldverfahren", []string{term("Wald"), term("Verfahren")}},
	} {
		got := c.Decompose(term(tc.word), known)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Decompose(%q): %q, want %q", tc.word, got, tc.want)
		}
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"Zahl der Mitarbeiter", []string{term("Mitarbeiterzahl")}},
		{"Wachstum der Wirtschaft", []string{term("Wirtschaftswachstum")}},
		{"Wald und Gericht", nil},
	} {
		got := c.Compose(tc.query, a.Analyze(tc.query), known)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Compose(%q): %q, want %q", tc.query, got, tc.want)
		}
	}
	for _, name := range []string{English, Spanish, Russian, Chinese, Code, Standard} {
		a, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := a.(Compounder); ok {
			t.Errorf("%s is a Compounder: only languages that write compounds as one word should be", name)
		}
	}
}
