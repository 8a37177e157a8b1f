package bm25

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// TestSearchInto checks that Query.Into receives the results when it has
// the capacity (the same results as without it, in its array) and is left
// alone when it has not.
func TestSearchInto(t *testing.T) {
	ix := lanternIndex(t, 200, func(i int) (string, string) {
		g := fmt.Sprintf("d%03d", i)
		return g, g + "#0"
	})
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
	// A query without a term in the index returns Into emptied, not a new
	// slice: a caller that keeps the returned slice for its next search
	// keeps the array.
	into := make([]Result, 8)
	got, err := ix.Search(Query{Text: "unheardof", Into: into})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 || cap(got) != cap(into) || unsafe.SliceData(got) != unsafe.SliceData(into) {
		t.Fatalf("a query matching no term: %v (cap %d), want Into's array emptied", got, cap(got))
	}
}

// TestSearchIDBytes checks that Query.IDBytes receives the results' strings:
// the same results as without it, their IDs in its array once it has the
// capacity, and a buffer too small replaced by a larger one, never appended
// past (which would leave earlier strings in the old array).
func TestSearchIDBytes(t *testing.T) {
	ix := lanternIndex(t, 300, func(i int) (string, string) {
		g := fmt.Sprintf("doc-%d", i)
		return g, fmt.Sprintf("%s#%d", g, i%4)
	})
	for _, q := range []Query{{Text: "lantern harbour 3", K: 50}, {Text: "harbour", K: 150, Unordered: true, WithoutGroups: true}} {
		want, err := ix.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, start := range []int{0, 8, 1 << 16} {
			buf := make([]byte, start)
			for i := range buf {
				buf[i] = '!'
			}
			q.IDBytes = &buf
			got, err := ix.Search(q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q with a %d-byte IDBytes: %v, want %v", q.Text, start, got, want)
			}
			for _, r := range got {
				if !within(r.ID, buf) || (r.Group != "" && !within(r.Group, buf)) {
					t.Fatalf("%q with a %d-byte IDBytes: result %+v is not in the buffer", q.Text, start, r)
				}
			}
			if start == 1<<16 && cap(buf) != 1<<16 {
				t.Fatalf("%q: a buffer with room was replaced", q.Text)
			}
		}
	}
}

// within reports whether s's bytes lie in b's array.
func within(s string, b []byte) bool {
	if len(s) == 0 || len(b) == 0 {
		return len(s) == 0
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= lo && p+uintptr(len(s)) <= lo+uintptr(len(b))
}

// lanternIndex is an in-memory index of n groups of one doc each, group
// and doc ID ids(i), the doc's text "lantern i%7 harbour i%3".
func lanternIndex(t *testing.T, n int, ids func(i int) (group, id string)) *Index {
	t.Helper()
	ix, err := New(Options{Analyzer: "english"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	var b Batch
	for i := range n {
		g, id := ids(i)
		b.Replace(g, []Doc{{ID: id, Fields: map[string]string{"text": fmt.Sprintf("lantern %d harbour %d", i%7, i%3)}}})
	}
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
	return ix
}
