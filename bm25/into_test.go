package bm25

import (
	"fmt"
	"slices"
	"testing"
)

// TestSearchInto checks that Query.Into receives the results when it has
// the capacity (the same results as without it, in its array) and is left
// alone when it has not.
func TestSearchInto(t *testing.T) {
	ix, err := New(Options{Analyzer: "english"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var b Batch
	for i := range 200 {
		id := fmt.Sprintf("d%03d", i)
		b.Replace(id, []Doc{{ID: id + "#0", Fields: map[string]string{"text": fmt.Sprintf("lantern %d harbour %d", i%7, i%3)}}})
	}
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{{Text: "lantern harbour 3", K: 50}, {Text: "harbour", K: 10, Unordered: true, WithoutGroups: true}} {
		want, err := ix.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		big := make([]Result, 64)
		for i := range big {
			big[i] = Result{ID: "stale", Group: "stale", Score: -1}
		}
		q.Into = big
		got, err := ix.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q with Into: %v, want %v", q.Text, got, want)
		}
		if &got[0] != &big[0] {
			t.Fatalf("%q: the results are not in Into's array", q.Text)
		}
		small := make([]Result, 2)
		q.Into = small
		if got, err = ix.Search(q); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || small[0] != (Result{}) {
			t.Fatalf("%q with a short Into: %v (Into now %v), want %v", q.Text, got, small, want)
		}
	}
}
