package bm25

import (
	"fmt"
	"testing"
)

// TestCompoundWeight: with CompoundWeight, a German query's compound finds
// a chunk that names its parts, a query's neighbouring words find a chunk
// holding their compound, and without it (Lucene's scoring) neither does.
func TestCompoundWeight(t *testing.T) {
	docs := []Doc{
		{ID: "a#0", Lang: "de", Fields: map[string]string{"text": "Das Verfahren vor dem Gericht dauerte drei Jahre."}},
		{ID: "a#1", Lang: "de", Fields: map[string]string{"text": "Die Mitarbeiterzahl stieg im Jahr auf 4200."}},
		{ID: "a#2", Lang: "de", Fields: map[string]string{"text": "Der Hafen liegt am Fluss; die Zahl der Schiffe wuchs."}},
		{ID: "a#3", Lang: "de", Fields: map[string]string{"text": "Ein Jahr später öffnete das neue Werk."}},
	}
	for _, tc := range []struct {
		query, want string
	}{
		{"Wie lange lief das Gerichtsverfahren?", "a#0"},
		{"Wie hoch war die Zahl der Mitarbeiter?", "a#1"},
	} {
		for _, weight := range []float64{0, 1.5} {
			ix, err := New(Options{CompoundWeight: weight})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.Replace("a", docs); err != nil {
				t.Fatal(err)
			}
			res, err := ix.Search(Query{Text: tc.query, K: 4})
			if err != nil {
				t.Fatal(err)
			}
			top := ""
			if len(res) > 0 {
				top = res[0].ID
			}
			if (top == tc.want) != (weight > 0) {
				t.Errorf("CompoundWeight %g, %q: top %q (results %v); want %q first only with compounds on", weight, tc.query, top, res, tc.want)
			}
			ix.Close()
		}
	}
	if _, err := New(Options{CompoundWeight: -1}); err == nil {
		t.Error("CompoundWeight -1 accepted")
	}
}

// TestCompoundVocabularyIsLive: the vocabulary compounds are split and
// formed with is that of the live docs, so an index where a doc was
// deleted (its terms still in a segment until a merge) searches exactly
// like one built without it.
func TestCompoundVocabularyIsLive(t *testing.T) {
	keep := Doc{ID: "k#0", Group: "k", Lang: "de", Fields: map[string]string{"text": "Das Verfahren vor dem Gericht dauerte drei Jahre."}}
	gone := Doc{ID: "g#0", Group: "g", Lang: "de", Fields: map[string]string{"text": "Das Gerichtsverfahren begann im Mai."}}
	clean, err := New(Options{CompoundWeight: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	defer clean.Close()
	var cb Batch
	cb.Replace("k", []Doc{keep})
	for i := range 5 {
		cb.Replace(fmt.Sprintf("o%d", i), []Doc{{ID: fmt.Sprintf("o%d#0", i), Lang: "de", Fields: map[string]string{"text": "Der Hafen liegt am Fluss."}}})
	}
	if err := clean.Apply(&cb); err != nil {
		t.Fatal(err)
	}
	repaired, err := New(Options{CompoundWeight: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	defer repaired.Close()
	// g among enough others that deleting it rewrites no segment.
	var b Batch
	b.Replace("k", []Doc{keep})
	b.Replace("g", []Doc{gone})
	for i := range 5 {
		b.Replace(fmt.Sprintf("o%d", i), []Doc{{ID: fmt.Sprintf("o%d#0", i), Lang: "de", Fields: map[string]string{"text": "Der Hafen liegt am Fluss."}}})
	}
	if err := repaired.Apply(&b); err != nil {
		t.Fatal(err)
	}
	if err := repaired.Delete("g"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Wie lange lief das Gerichtsverfahren?", "Verfahren vor Gericht"} {
		want, err := clean.Search(Query{Text: q, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		got, err := repaired.Search(Query{Text: q, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || len(got) != len(want) || got[0] != want[0] {
			t.Errorf("%q: after a delete %v, built without the doc %v", q, got, want)
		}
	}
}
