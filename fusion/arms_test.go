package fusion

import (
	"errors"
	"reflect"
	"testing"

	"github.com/situate/situate/rank"
)

// TestFuseSteps: Fuse is the lexical recipe's steps, then the hybrid method
// with the dense lists first; a plain arm keeps its own order.
func TestFuseSteps(t *testing.T) {
	lang := []Hit{{"b.go#0", "b.go", 2}, {"a.go#0", "a.go", 3}, {"a_test.go#0", "a_test.go", 4}}
	code := []Hit{{"a.go#0", "a.go", 1}}
	pairs := []Hit{{"b.go#0", "b.go", 5}}
	dense := []Hit{{"b.go#1", "b.go", 0.9}, {"a.go#0", "a.go", 0.5}}
	r := Recipe{DocumentWeight: 0.5, TestPenalty: 0.5, IsTest: rank.IsTestFile, Method: "rrf", LexicalWeight: 1}
	arms := []Arm{
		{Name: "bm25", Kind: Chunks, Weight: 1, Hits: lang, Ran: true},
		{Name: "bm25-code", Kind: Chunks, Weight: 1, Hits: code, Ran: true},
		{Name: "bm25-pairs", Kind: Document, Weight: 0.7, Hits: pairs, Ran: true},
		{Name: "dense", Kind: Dense, Weight: 0.3, Hits: dense, Ran: true},
	}
	got, err := Fuse(r, arms, 10)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Combine([][]Hit{lang, code}, []float64{1, 1})
	if err == nil {
		want, err = DocumentEvidence(want, pairs, 0.7)
	}
	if err == nil {
		want, err = DocumentBlend(want, 0.5)
	}
	if err == nil {
		want, err = TestPrior(want, 0.5, rank.IsTestFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Lexical, want) {
		t.Errorf("lexical ranking %v, want %v", got.Lexical, want)
	}
	lexList := List{Weight: 1, Min: ptr(0.0)}
	for _, h := range want {
		lexList.IDs, lexList.Scores = append(lexList.IDs, h.ID), append(lexList.Scores, h.Score)
	}
	denseList := List{Weight: 0.3, Min: ptr(-1.0), IDs: []string{"b.go#1", "a.go#0"}, Scores: []float64{0.9, 0.5}}
	fused, _ := RRF(DefaultRRFK, denseList, lexList)
	if !reflect.DeepEqual(got.Results, fused) || !reflect.DeepEqual(got.Inputs, []string{"dense", "lexical"}) {
		t.Errorf("fused %v over %v, want %v over dense, lexical", got.Results, got.Inputs, fused)
	}

	// One lexical arm, no blend, no penalty: its order as given, even where
	// Combine would break a tie the other way, cut to k.
	plain := []Hit{{"z#0", "z", 1}, {"a#0", "a", 1}, {"m#0", "m", 0.5}}
	got, err = Fuse(Recipe{LexicalWeight: 1}, []Arm{{Name: "bm25", Kind: Chunks, Weight: 1, Hits: plain, Ran: true}}, 2)
	if err != nil || !reflect.DeepEqual(got.Lexical, plain[:2]) || got.Results[0].ID != "z#0" || len(got.Results) != 2 {
		t.Errorf("plain arm: %v %v, want its first two in its order", got, err)
	}

	// An arm that sat the query out takes no part; a lexical ranking is
	// still fused (empty) so a hybrid query ranks alike whatever ran.
	got, err = Fuse(Recipe{Method: "relative", LexicalWeight: 1}, []Arm{
		{Name: "bm25", Kind: Chunks, Weight: 1},
		{Name: "dense", Kind: Dense, Weight: 0.3, Hits: dense, Ran: true},
	}, 10)
	if err != nil || len(got.Inputs) != 2 || len(got.Results) != 2 {
		t.Errorf("lexical arm sat out: %v %v, want dense and an empty lexical list fused", got, err)
	}

	if _, err := Fuse(Recipe{Method: "borda"}, arms, 10); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown method: %v, want ErrInvalid", err)
	}
}
