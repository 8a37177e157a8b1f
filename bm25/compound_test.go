package bm25

import "testing"

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
