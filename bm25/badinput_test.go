package bm25

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestOptionsValidation(t *testing.T) {
	for _, o := range []Options{
		{K1: -1}, {K1: math.NaN()}, {K1: math.Inf(1)}, {B: 1.5}, {B: -0.1},
		{Fields: []Field{{Name: ""}}}, {Fields: []Field{{"a", 1}, {"a", 1}}},
		{Fields: []Field{{"a", -1}}}, {Fields: []Field{{"a", math.NaN()}}},
		{Analyzer: "klingon"}, {MergeFactor: 1},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		} else {
			t.Log(err)
		}
	}
	if _, err := Open("", Options{}); err == nil {
		t.Error("Open(\"\") succeeded")
	}
}

func TestBadDocs(t *testing.T) {
	ix, err := New(Options{Analyzer: "english"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ok := []Doc{{ID: "a", Fields: map[string]string{"text": "apple banana"}}}
	if err := ix.Replace("g1", ok); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		group string
		docs  []Doc
	}{
		"empty group":       {"", ok},
		"empty id":          {"g2", []Doc{{ID: "", Fields: map[string]string{"text": "x"}}}},
		"duplicate id":      {"g2", []Doc{{ID: "b"}, {ID: "b"}}},
		"id of other group": {"g2", []Doc{{ID: "a", Fields: map[string]string{"text": "x"}}}},
		"unknown field":     {"g2", []Doc{{ID: "c", Fields: map[string]string{"title": "x"}}}},
		"group mismatch":    {"g2", []Doc{{ID: "c", Group: "g3"}}},
	} {
		if err := ix.Replace(tc.group, tc.docs); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	// Nothing of the failed calls is visible.
	if st := ix.Stats(); st.Docs != 1 || st.Groups != 1 {
		t.Fatalf("after failed replaces: %+v", st)
	}
	// Moving an ID to another group works when its old group is replaced in
	// the same batch.
	var b Batch
	b.Delete("g1")
	b.Replace("g2", []Doc{{ID: "a", Fields: map[string]string{"text": "cherry"}}})
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
	if r, _ := ix.Search(Query{Text: "cherry apple"}); len(r) != 1 || r[0].Group != "g2" {
		t.Fatalf("after move: %v", r)
	}
	if _, err := ix.Search(Query{Text: "x", K: -1}); err == nil {
		t.Error("K = -1 accepted")
	}
}

func TestEmptyAndOddInput(t *testing.T) {
	dir := t.TempDir()
	ix := openT(t, dir, Options{})
	docs := []Doc{
		{ID: "empty"},
		{ID: "blank", Fields: map[string]string{"text": "   \n\t "}},
		{ID: "stop", Lang: "en", Fields: map[string]string{"text": "the and of"}},
		{ID: "bad\xff\xfeutf8", Lang: "en", Fields: map[string]string{"text": "caf\xe9 \xff\xfe broken \xc3 utf8 word"}, Attrs: map[string]string{"k\xff": "v\x00"}},
		{ID: "nul\x00id", Lang: "en", Fields: map[string]string{"text": "nul\x00bytes inside\x00text zebra"}},
	}
	if err := ix.Replace("g\x00\xff", docs); err != nil {
		t.Fatal(err)
	}
	if err := ix.Replace("nothing", nil); err != nil { // deleting an unknown group
		t.Fatal(err)
	}
	check := func(ix *Index) {
		t.Helper()
		if st := ix.Stats(); st.Docs != len(docs) {
			t.Fatalf("%d docs, want %d", st.Docs, len(docs))
		}
		for _, q := range []string{"", "   ", "the of and", "\xff\xfe", "\x00"} {
			r, err := ix.Search(Query{Text: q})
			if err != nil || len(r) != 0 {
				t.Fatalf("query %q: %v %v", q, r, err)
			}
		}
		r, err := ix.Search(Query{Text: "broken zebra", Filter: &Filter{Accept: func(id, g string, a map[string]string) bool {
			return g == "g\x00\xff"
		}}})
		if err != nil || len(r) != 2 {
			t.Fatalf("broken zebra: %v %v", r, err)
		}
		ids := r[0].ID + "|" + r[1].ID
		if !strings.Contains(ids, "bad\xff\xfeutf8") || !strings.Contains(ids, "nul\x00id") {
			t.Fatalf("ids not preserved: %q", ids)
		}
	}
	check(ix)
	ix.Close()
	ix = openT(t, dir, Options{})
	defer ix.Close()
	check(ix)
}

func TestHugeQuery(t *testing.T) {
	ix, _ := cacmIndex(t)
	defer ix.Close()
	rng := rand.New(rand.NewSource(1))
	var words []string
	for i := 0; i < 10000; i++ {
		words = append(words, fmt.Sprintf("w%dx%d", rng.Intn(1e6), i))
	}
	words = append(words, "computer", "algorithm")
	r, err := ix.Search(Query{Text: strings.Join(words, " "), K: 5})
	if err != nil || len(r) != 5 {
		t.Fatalf("10,002-term query: %d results, %v", len(r), err)
	}
	// Beyond MaxQueryTerms unique terms: a clear error.
	var sb strings.Builder
	for i := 0; i <= MaxQueryTerms; i++ {
		fmt.Fprintf(&sb, "t%d ", i)
	}
	if _, err := ix.Search(Query{Text: sb.String()}); err == nil {
		t.Fatal("query over MaxQueryTerms accepted")
	} else {
		t.Log(err)
	}
}

// TestHugeDoc indexes a 50 MB single-line document on disk.
func TestHugeDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB document")
	}
	rng := rand.New(rand.NewSource(5))
	var sb strings.Builder
	sb.Grow(50 << 20)
	n := 0
	for sb.Len() < 50<<20 {
		fmt.Fprintf(&sb, "word%d ", rng.Intn(50000))
		n++
	}
	sb.WriteString("needle")
	n++
	text := sb.String()
	dir := t.TempDir()
	ix := openT(t, dir, Options{Analyzer: "standard"})
	if err := ix.Replace("big", []Doc{{ID: "big", Fields: map[string]string{"text": text}}, {ID: "small", Fields: map[string]string{"text": "needle in a haystack"}}}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	ix = openT(t, dir, Options{Analyzer: "standard"})
	defer ix.Close()
	st := ix.Stats()
	// The standard analyzer removes no stop words: "small" has 4 tokens.
	if st.Tokens != int64(n)+4 {
		t.Errorf("tokens %d, want %d", st.Tokens, n+4)
	}
	r, err := ix.Search(Query{Text: "needle"})
	if err != nil || len(r) != 2 || r[0].ID != "small" {
		t.Fatalf("needle: %v %v", r, err)
	}
}

func TestClosed(t *testing.T) {
	ix, _ := New(Options{})
	ix.Close()
	if err := ix.Replace("g", []Doc{{ID: "a"}}); !errors.Is(err, ErrClosed) {
		t.Errorf("Replace after Close: %v", err)
	}
	if err := ix.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if st := ix.Stats(); st.Docs != 0 {
		t.Errorf("Stats after Close: %+v", st)
	}
}
