package fusion

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/situate/situate/rank"
)

func TestCombine(t *testing.T) {
	lang := []Hit{{"a#0", "a", 4}, {"b#1", "b", 3}, {"a#1", "a", 1}}
	code := []Hit{{"b#1", "b", 2}, {"c#0", "c", 2.5}}
	got, err := Combine([][]Hit{lang, code}, []float64{1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// a#0: 4; b#1: 3 + 0.5*2 = 4; c#0: 0.5*2.5 = 1.25; a#1: 1.
	// a#0 and b#1 tie at 4: ID ascending.
	want := []Hit{{"a#0", "a", 4}, {"b#1", "b", 4}, {"c#0", "c", 1.25}, {"a#1", "a", 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Combine = %v, want %v", got, want)
	}
	if lang[1].Score != 3 || code[0].Score != 2 {
		t.Error("Combine modified its input")
	}
	// One list of weight 1 only sorts.
	got, err = Combine([][]Hit{{{"x", "d", 1}, {"w", "d", 2}}}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Hit{{"w", "d", 2}, {"x", "d", 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Combine one list = %v, want %v", got, want)
	}
	// No lists: nothing.
	if got, err := Combine(nil, nil); err != nil || len(got) != 0 {
		t.Errorf("Combine(nil) = %v, %v", got, err)
	}
}

func TestCombineErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lists   [][]Hit
		weights []float64
		want    string
	}{
		{"weights count", [][]Hit{{{"a", "d", 1}}}, nil, "fusion combine: 0 weights for 1 lists: fusion: invalid input"},
		{"negative weight", [][]Hit{{{"a", "d", 1}}}, []float64{-1}, "fusion combine: weights[0]: must be a finite number >= 0, got -1: fusion: invalid input"},
		{"NaN score", [][]Hit{{{"a", "d", math.NaN()}}}, []float64{1}, `fusion combine: lists[0][0] "a": Score: must be a finite number >= 0, got NaN: fusion: invalid input`},
		{"infinite score", [][]Hit{{}, {{"a", "d", math.Inf(1)}}}, []float64{1, 1}, `fusion combine: lists[1][0] "a": Score: must be a finite number >= 0, got +Inf: fusion: invalid input`},
		{"duplicate", [][]Hit{{{"a", "d", 1}, {"a", "d", 2}}}, []float64{1}, `fusion combine: lists[0][1]: duplicate ID "a": fusion: invalid input`},
		{"two documents", [][]Hit{{{"a", "d", 1}}, {{"a", "e", 1}}}, []float64{1, 1}, `fusion combine: lists[1][0]: ID "a" in document "d" and "e": fusion: invalid input`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Combine(tc.lists, tc.weights)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

func TestDocumentBlend(t *testing.T) {
	hits := []Hit{
		{"lone#0", "lone", 5},   // best chunk of a document matching nowhere else
		{"good#3", "good", 4.5}, // best chunk of a document matching well
		{"good#0", "good", 3},
		{"other#2", "other", 1},
	}
	got, err := DocumentBlend(hits, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// lone#0: 5 + 0.5*5 = 7.5; good#3: 4.5 + 0.5*4.5 = 6.75;
	// good#0: 3 + 0.5*4.5 = 5.25; other#2: 1 + 0.5 = 1.5.
	want := []Hit{{"lone#0", "lone", 7.5}, {"good#3", "good", 6.75}, {"good#0", "good", 5.25}, {"other#2", "other", 1.5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DocumentBlend = %v, want %v", got, want)
	}
	// Within one document the order never changes, whatever the weight:
	// good#3 = 4.5 + 1*4.5 = 9 stays above good#0 = 4 + 4.5 = 8.5.
	got, err = DocumentBlend([]Hit{{"lone#0", "lone", 5}, {"good#3", "good", 4.5}, {"good#0", "good", 4}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	want = []Hit{{"lone#0", "lone", 10}, {"good#3", "good", 9}, {"good#0", "good", 8.5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DocumentBlend weight 1 = %v, want %v", got, want)
	}
	// A weaker chunk of a strongly matching document overtakes a stronger
	// chunk of a document with no other evidence: x#1 (3) of document x,
	// whose best chunk scores 6, beats y#0 (4): 3 + 0.7*6 = 7.2 > 4 + 0.7*4 = 6.8.
	got, err = DocumentBlend([]Hit{{"x#0", "x", 6}, {"y#0", "y", 4}, {"x#1", "x", 3}}, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	if ids := []string{got[0].ID, got[1].ID, got[2].ID}; !reflect.DeepEqual(ids, []string{"x#0", "x#1", "y#0"}) {
		t.Errorf("DocumentBlend order = %v, want [x#0 x#1 y#0]", ids)
	}
	if math.Abs(got[1].Score-7.2) > 1e-12 || math.Abs(got[2].Score-6.8) > 1e-12 {
		t.Errorf("DocumentBlend scores = %v, want 7.2 and 6.8", got)
	}
	// Weight 0 only sorts; the input is not modified.
	in := []Hit{{"b", "d", 1}, {"a", "d", 2}}
	got, err = DocumentBlend(in, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Hit{{"a", "d", 2}, {"b", "d", 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("DocumentBlend weight 0 = %v, want %v", got, want)
	}
	if in[0].ID != "b" {
		t.Error("DocumentBlend modified its input")
	}
	if got, err := DocumentBlend(nil, 1); err != nil || len(got) != 0 {
		t.Errorf("DocumentBlend(nil) = %v, %v", got, err)
	}
}

func TestDocumentBlendErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hits   []Hit
		weight float64
		want   string
	}{
		{"negative weight", nil, -0.5, "fusion document blend: weight: must be a finite number >= 0, got -0.5: fusion: invalid input"},
		{"NaN weight", nil, math.NaN(), "fusion document blend: weight: must be a finite number >= 0, got NaN: fusion: invalid input"},
		{"negative score", []Hit{{"a", "d", 1}, {"b", "d", -1}}, 1, `fusion document blend: hits[1] "b": Score: must be a finite number >= 0, got -1: fusion: invalid input`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DocumentBlend(tc.hits, tc.weight)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

func TestDocumentEvidence(t *testing.T) {
	hits := []Hit{{"a#0", "a", 5}, {"b#0", "b", 4}, {"b#1", "b", 3.5}, {"c#0", "c", 3}}
	evidence := []Hit{{"b#1", "b", 2}, {"b#0", "b", 1}, {"x#0", "x", 9}, {"a#1", "a", 0.5}}
	got, err := DocumentEvidence(hits, evidence, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	// b's best evidence is 2 (from b#1) for both b chunks; a gains 0.35; c
	// nothing; x is not a hit and is ignored.
	want := []Hit{{"b#0", "b", 5.4}, {"a#0", "a", 5.35}, {"b#1", "b", 4.9}, {"c#0", "c", 3}}
	if len(got) != len(want) {
		t.Fatalf("DocumentEvidence = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Doc != want[i].Doc || math.Abs(got[i].Score-want[i].Score) > 1e-9 {
			t.Errorf("DocumentEvidence[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if hits[0].Score != 5 {
		t.Error("DocumentEvidence modified its input")
	}
	if got, err := DocumentEvidence(hits, nil, 0.7); err != nil || got[0] != hits[0] || got[3] != hits[3] {
		t.Errorf("DocumentEvidence without evidence = %v, %v; want hits unchanged", got, err)
	}
	for name, tc := range map[string]struct {
		hits, ev []Hit
		w        float64
	}{
		"weight":    {hits, evidence, -1},
		"nan":       {hits, evidence, math.NaN()},
		"evidence":  {hits, []Hit{{"a#0", "a", math.Inf(1)}}, 1},
		"hit score": {[]Hit{{"a#0", "a", -1}}, evidence, 1},
		"duplicate": {[]Hit{{"a#0", "a", 1}, {"a#0", "a", 2}}, evidence, 1},
	} {
		if _, err := DocumentEvidence(tc.hits, tc.ev, tc.w); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
}

func TestTestPrior(t *testing.T) {
	in := []Hit{
		{ID: "t1", Doc: "a/x_test.go", Score: 10},
		{ID: "c1", Doc: "a/x.go", Score: 6},
		{ID: "t2", Doc: "a/x_test.go", Score: 4},
		{ID: "c2", Doc: "a/y.go", Score: 5},
	}
	got, err := TestPrior(in, 0.5, rank.IsTestFile)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hit{{"c1", "a/x.go", 6}, {"c2", "a/y.go", 5}, {"t1", "a/x_test.go", 5}, {"t2", "a/x_test.go", 2}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("TestPrior = %v, want %v", got, want)
		}
	}
	if in[0].Score != 10 {
		t.Error("TestPrior modified its input")
	}
	same, _ := TestPrior(in, 0, rank.IsTestFile)
	if same[0].ID != "t1" || same[0].Score != 10 {
		t.Errorf("penalty 0 changed scores: %v", same)
	}
	for _, w := range []float64{-0.1, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := TestPrior(in, w, rank.IsTestFile); !errors.Is(err, ErrInvalid) {
			t.Errorf("penalty %v: err %v, want ErrInvalid", w, err)
		}
	}
	if _, err := TestPrior([]Hit{{ID: "x", Doc: "a_test.go", Score: math.NaN()}}, 0.5, rank.IsTestFile); !errors.Is(err, ErrInvalid) {
		t.Errorf("NaN score: err %v, want ErrInvalid", err)
	}
}
