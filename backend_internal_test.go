package situate

import (
	"context"
	"maps"
	"testing"

	"github.com/situate/situate/analysis"
	"github.com/situate/situate/bm25"
)

// TestExpandBackendQuery: expanding a German query against a vocabulary
// asked in batches gives the terms and weights bm25 gives with the whole
// vocabulary at hand, in few rounds.
func TestExpandBackendQuery(t *testing.T) {
	an, err := analysis.New("german")
	if err != nil {
		t.Fatal(err)
	}
	c := an.(analysis.Compounder)
	terms := func(text string) []string {
		var out []string
		for _, tk := range an.Analyze(text) {
			if tk.Term != "" {
				out = append(out, tk.Term)
			}
		}
		return out
	}
	vocab := map[string]bool{}
	for _, t := range terms("Das Gerichtsverfahren über die Häuser am Hafen dauerte lange. Die Mitarbeiterzahl der Werft stieg. Ein Verfahren vor Gericht.") {
		vocab[t] = true
	}
	for _, q := range []string{"Verfahren vor dem Gericht", "Hafenhäuser", "Zahl der Mitarbeiter", "Gerichtsverfahren Hafen", "nichts bekanntes hier"} {
		qt := terms(q)
		// bm25's own expansion, every term's answer at hand.
		var uniq []string
		var counts []float32
		seen := map[string]int{}
		for _, t := range qt {
			if i, ok := seen[t]; ok {
				counts[i]++
				continue
			}
			seen[t] = len(uniq)
			uniq, counts = append(uniq, t), append(counts, 1)
		}
		wt, wc := bm25.ExpandCompounds(c, q, uniq, counts, 1.5, func(s string) bool { return vocab[s] })
		want := map[string]float64{}
		for i := len(uniq); i < len(wt); i++ {
			want[wt[i]] = float64(wc[i])
		}
		rounds := 0
		got, err := expandBackendQuery(context.Background(), c, q, qt, 1.5, func(ask []string) (map[string]bool, error) {
			rounds++
			out := map[string]bool{}
			for _, s := range ask {
				out[s] = vocab[s]
			}
			return out, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Errorf("%q: added %v, bm25 adds %v", q, got, want)
		}
		if rounds >= maxLookupRounds {
			t.Errorf("%q: %d lookup rounds, the bound is %d", q, rounds, maxLookupRounds)
		}
		t.Logf("%q: added %v in %d rounds", q, got, rounds)
	}
}
