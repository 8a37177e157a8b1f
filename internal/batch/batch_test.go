package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

func TestPlan(t *testing.T) {
	for _, c := range []struct {
		name               string
		tokens             []int
		maxItems, maxToken int
		want               []Span
	}{
		{"empty", nil, 3, 100, nil},
		{"by items", []int{1, 1, 1, 1, 1, 1, 1}, 3, 100, []Span{{0, 3}, {3, 6}, {6, 7}}},
		{"by tokens", []int{40, 40, 40, 10}, 10, 100, []Span{{0, 2}, {2, 4}}},
		{"oversized item alone", []int{10, 500, 10}, 10, 100, []Span{{0, 1}, {1, 2}, {2, 3}}},
		{"exact fit", []int{50, 50, 1}, 10, 100, []Span{{0, 2}, {2, 3}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Plan(c.tokens, c.maxItems, c.maxToken); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Plan = %v, want %v", got, c.want)
			}
		})
	}
}

var errTooLarge = errors.New("too large")

func TestRunSplitsTooLarge(t *testing.T) {
	// The server refuses any request of more than 2 items.
	var sent []Span
	var refs []Ref
	err := Run(context.Background(), []Span{{0, 5}, {5, 6}}, func(_ context.Context, s Span, r Ref) error {
		sent, refs = append(sent, s), append(refs, r)
		if s.Hi-s.Lo > 2 {
			return errTooLarge
		}
		return nil
	}, func(err error) bool { return errors.Is(err, errTooLarge) })
	if err != nil {
		t.Fatal(err)
	}
	want := []Span{{0, 5}, {0, 2}, {2, 5}, {2, 3}, {3, 5}, {5, 6}}
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("sent %v, want %v", sent, want)
	}
	if r := refs[1]; r != (Ref{N: 2, First: 0, Last: 1}) {
		t.Errorf("second request's Ref = %+v", r)
	}
}

func TestRunStops(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	err := Run(context.Background(), []Span{{0, 1}, {1, 2}, {2, 3}}, func(_ context.Context, s Span, r Ref) error {
		n++
		if s.Lo == 1 {
			return boom
		}
		return nil
	}, func(error) bool { return true }) // a single item is never split
	if !errors.Is(err, boom) || n != 2 {
		t.Errorf("err %v after %d requests, want boom after 2", err, n)
	}
}

func TestCheckTexts(t *testing.T) {
	est := func(s string) int { return len(s) }
	tokens, p := CheckTexts([]string{"ab", "abcd"}, "q: ", 7, "text", est)
	if p != nil || !reflect.DeepEqual(tokens, []int{5, 7}) {
		t.Fatalf("got %v, %+v", tokens, p)
	}
	_, p = CheckTexts([]string{"ab", ""}, "q: ", 7, "document 3 chunk", est)
	if p == nil || p.TooLong || p.Index != 1 || p.Message != "document 3 chunk 1 is empty" {
		t.Errorf("empty: %+v", p)
	}
	_, p = CheckTexts([]string{"abcde"}, "q: ", 7, "text", est)
	want := "text 0: about 8 tokens (estimated from 8 bytes) > MaxInputTokens 7; shorten it before embedding"
	if p == nil || !p.TooLong || p.Index != 0 || p.Message != want {
		t.Errorf("too long: %+v", p)
	}
}

func TestCheckVectors(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct {
		vecs [][]float32
		n    int
		want string
	}{
		{nil, 2, "got no vectors for 2 texts"},
		{[][]float32{{1}}, 2, "got 1 vectors for 2 texts"},
		{[][]float32{{}, {}}, 2, "vector 0 is empty"},
		{[][]float32{{1, 0}, {1}}, 2, "vector 1 has dimension 1, want 2 as vector 0"},
		{[][]float32{{1, nan}}, 1, "vector 0 has NaN at position 1"},
		{[][]float32{{1, 0}, {0, 0}}, 2, "vector 1 is all zeros"},
		{[][]float32{{1, 0}, {0, 1}}, 2, ""},
	} {
		if _, got := CheckVectors(c.vecs, c.n, 0, ""); got != c.want {
			t.Errorf("CheckVectors(%v) = %q, want %q", c.vecs, got, c.want)
		}
	}
}

func TestCheckEmbeddings(t *testing.T) {
	var seen atomic.Int64
	if p := CheckEmbeddings([][]float32{{1, 0, 0}}, 1, 0, &seen); p != "" || seen.Load() != 3 {
		t.Fatalf("first batch: %q, seen %d", p, seen.Load())
	}
	if p := CheckEmbeddings([][]float32{{1, 0}}, 1, 0, &seen); !strings.Contains(p, "want 3 as earlier batches") {
		t.Errorf("second batch of another dimension: %q", p)
	}
	var none atomic.Int64
	if p := CheckEmbeddings([][]float32{{1, 0}}, 1, 3, &none); p != "vector 0 has dimension 2, want 3 as Dimensions" || none.Load() != 0 {
		t.Errorf("configured: %q, seen %d", p, none.Load())
	}
}

func TestPlaceScores(t *testing.T) {
	i := func(v int) *int { return &v }
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		res  []Scored
		want string
	}{
		{[]Scored{{i(1), f(0.9)}, {i(0), f(0.1)}}, ""},
		{[]Scored{{i(1), f(0.9)}}, "got 1 scores for 2 texts"},
		{[]Scored{{i(1), f(0.9)}, {nil, f(0.1)}}, "results[1] lacks index or relevance_score"},
		{[]Scored{{i(1), f(0.9)}, {i(1), f(0.1)}}, "results[1].index 1 is out of range or repeated (batch of 2)"},
		{[]Scored{{i(2), f(0.9)}, {i(0), f(0.1)}}, "results[0].index 2 is out of range or repeated (batch of 2)"},
		{[]Scored{{i(1), f(math.Inf(1))}, {i(0), f(0.1)}}, "results[0].relevance_score is +Inf"},
	} {
		dst := []float64{-1, -1}
		got := PlaceScores(c.res, dst, "results", "relevance_score")
		if got != c.want {
			t.Errorf("PlaceScores: %q, want %q", got, c.want)
		}
		if got == "" && (dst[0] != 0.1 || dst[1] != 0.9) {
			t.Errorf("dst = %v", dst)
		}
		if got != "" && (dst[0] != -1 || dst[1] != -1) {
			t.Errorf("dst written despite %q: %v", got, dst)
		}
	}
}

func TestCheckQuery(t *testing.T) {
	est := func(s string) int { return len(s) }
	if qt, p := CheckQuery("abc", 4, est); p != nil || qt != 3 {
		t.Errorf("fits: %d %+v", qt, p)
	}
	if _, p := CheckQuery("", 4, est); p == nil || p.TooLong || p.Index != -1 || p.Message != "query is empty" {
		t.Errorf("empty: %+v", p)
	}
	if _, p := CheckQuery("abcd", 4, est); p == nil || !p.TooLong || p.Message != "query: about 4 tokens (estimated) >= MaxInputTokens 4" {
		t.Errorf("too long: %+v", p)
	}
}

func TestDecodeVectors(t *testing.T) {
	raw := func(s ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(s))
		for i, x := range s {
			out[i] = json.RawMessage(x)
		}
		return out
	}
	dim := 0
	vs, p := DecodeVectors([][]json.RawMessage{raw("1", "-2.5"), raw("0", "3e2")}, &dim)
	if p != "" || dim != 2 || vs[1][1] != 300 || vs[0][1] != -2.5 {
		t.Fatalf("%v %q dim %d", vs, p, dim)
	}
	for want, in := range map[string][][]json.RawMessage{
		"text 1: empty vector":                                 {raw("1", "2"), raw()},
		"text 0: vector has 3 dimensions, want 2":              {raw("1", "2", "3")},
		`text 0: component 1 is "NaN", not a finite number`:    {raw("1", `"NaN"`)},
		"text 0: component 0 is 1e39, not a finite number":     {raw("1e39", "1")},
		"text 0: component 1 is Infinity, not a finite number": {raw("1", "Infinity")},
	} {
		d := 2
		if _, p := DecodeVectors(in, &d); p != want {
			t.Errorf("got %q, want %q", p, want)
		}
	}
}

func TestSequential(t *testing.T) {
	texts := []string{"a", "b", "c", "d", "e"}
	var refs []Ref
	out, err := Sequential(context.Background(), texts, 2, func(_ context.Context, texts []string, r Ref) ([][]float32, error) {
		refs = append(refs, r)
		vecs := make([][]float32, len(texts))
		for i := range texts {
			vecs[i] = []float32{float32(r.First + i)}
		}
		return vecs, nil
	})
	if err != nil || len(out) != 5 || out[4][0] != 4 || fmt.Sprint(refs) != "[{1 0 1} {2 2 3} {3 4 4}]" {
		t.Fatalf("got %v %v, refs %v", out, err, refs)
	}
	boom := errors.New("boom")
	calls := 0
	if _, err := Sequential(context.Background(), texts, 2, func(context.Context, []string, Ref) ([][]float32, error) {
		calls++
		return nil, boom
	}); err != boom || calls != 1 {
		t.Errorf("error: %v after %d calls, want the first error, at once", err, calls)
	}
}
