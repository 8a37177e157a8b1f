package bm25

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestCompactDictionary indexes terms that share long prefixes across many
// dictionary blocks and checks that every term is found with its postings,
// that absent terms (before the first, between two, after the last) are
// not, and that the terms come back in order.
func TestCompactDictionary(t *testing.T) {
	ix, err := New(Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var b Batch
	for i := 0; i < 1000; i++ {
		term := fmt.Sprintf("pre_%03d_%s", i/7, string(rune('a'+i%7)))
		want = append(want, term)
		b.Replace(fmt.Sprint("g", i), []Doc{{ID: fmt.Sprint(i), Fields: map[string]string{"text": term + " common"}}})
	}
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
	sort.Strings(want)
	seg := ix.snap.Load().segs[0].seg
	p := &seg.parts[0]
	if !p.compact || p.numTerms != len(want)+1 {
		t.Fatalf("compact %v, %d terms; want compact, %d", p.compact, p.numTerms, len(want)+1)
	}
	var got []string
	for it := newTermIter(seg, p); it.ok; it.advance() {
		if it.term != "common" {
			got = append(got, it.term)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("terms in order: %d, first %q; want %d, first %q", len(got), got[0], len(want), want[0])
	}
	for i, term := range want {
		e, ok, err := seg.lookup(p, term)
		if err != nil || !ok || e.df != 1 {
			t.Fatalf("lookup %q: %v %v df %d", term, ok, err, e.df)
		}
		var it postings
		it.reset(e)
		if !it.next() || seg.id(it.doc) == "" {
			t.Fatalf("lookup %q: no posting", term)
		}
		if j, _ := seg.find(p, term); p.term(j) != term {
			t.Fatalf("find %q = %d, term(%d) = %q (entry %d)", term, j, j, p.term(j), i)
		}
	}
	for _, absent := range []string{"a", "pre_", "pre_000_b0", "pre_142_g", "pre_999", "zzz"} {
		if _, ok, err := seg.lookup(p, absent); ok || err != nil {
			t.Errorf("lookup %q: found %v, err %v", absent, ok, err)
		}
	}
	res, err := ix.Search(Query{Text: "pre_100_c", K: 3})
	if err != nil || len(res) != 1 {
		t.Fatalf("search: %v %v", res, err)
	}
}

// TestCompactDictionaryDamage flips every byte of a persistent segment's
// dictionary in turn: opening or searching reports ErrCorrupt or finds
// nothing, and never panics.
func TestCompactDictionaryDamage(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	for i := 0; i < 200; i++ {
		b.Replace(fmt.Sprint("g", i), []Doc{{ID: fmt.Sprint(i), Fields: map[string]string{"text": fmt.Sprintf("word%d shared", i)}}})
	}
	if err := w.Apply(&b); err != nil {
		t.Fatal(err)
	}
	seg := w.snap.Load().segs[0].seg
	p := seg.parts[0]
	path := seg.path
	w.Close()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	for off := p.entriesOff; off < p.blobOff+len(p.blob); off += step {
		data := append([]byte(nil), orig...)
		data[off] ^= 0x5a
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenReadOnly(dir, Options{Analyzer: "standard"})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("byte %d: open: %v", off, err)
			}
			continue
		}
		for _, q := range []string{"word7 shared", "word199", "absent"} {
			if _, err := r.Search(Query{Text: q}); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("byte %d: search %q: %v", off, q, err)
			}
		}
		r.Close()
	}
}

// TestTermCache checks that a large partition's lookups answer the same
// from its cache as from the dictionary, found and absent terms alike,
// with a cache too small for all of them (entries are replaced), and that
// a damaged dictionary block is reported on every lookup, never cached as
// an absent term.
func TestTermCache(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	var terms []string
	for i := 0; i < 6000; i++ {
		term := fmt.Sprintf("t%04dx", i)
		terms = append(terms, term)
		b.Replace(fmt.Sprint("g", i), []Doc{{ID: fmt.Sprint(i), Fields: map[string]string{"text": term + " common"}}})
	}
	if err := w.Apply(&b); err != nil {
		t.Fatal(err)
	}
	seg := w.snap.Load().segs[0].seg
	p := &seg.parts[0]
	if p.cache == nil || len(p.cache.slots) >= len(terms) {
		t.Fatalf("cache %v for %d terms: want one smaller than the partition", p.cache != nil, p.numTerms)
	}
	absent := []string{"a", "t0000", "t1500y", "zzz"}
	for round := 0; round < 3; round++ {
		for _, term := range append(append([]string(nil), terms...), absent...) {
			want, wantOK, err := seg.lookupUncached(p, term)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := seg.lookup(p, term)
			if err != nil || ok != wantOK || got.df != want.df || got.maxTf != want.maxTf || got.minNorm != want.minNorm ||
				len(got.post) != len(want.post) || (len(got.post) > 0 && &got.post[0] != &want.post[0]) {
				t.Fatalf("round %d: lookup %q = %+v %v %v, want %+v %v", round, term, got, ok, err, want, wantOK)
			}
		}
	}
	path := seg.path
	w.Close()

	// Damage the block holding t2000x's dictionary entry.
	r, err := OpenReadOnly(dir, Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	rs := r.snap.Load().segs[0].seg
	rp := &rs.parts[0]
	i, _ := rs.find(rp, "t2000x")
	off, _ := (&dictCursor{s: rs, p: rp}).blockRange(i / dictBlockTerms)
	r.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[off+1] ^= 0x5a
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = OpenReadOnly(dir, Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for round := 0; round < 2; round++ {
		if _, err := r.Search(Query{Text: "t2000x"}); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("round %d: search of a term in a damaged block: %v, want ErrCorrupt", round, err)
		}
	}
}

// TestTermFilter checks a small partition's Bloom filter: every term of the
// partition passes it, as the lookups of TestCompactDictionary do through
// it, and few absent terms do.
func TestTermFilter(t *testing.T) {
	ix, err := New(Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var b Batch
	const n = 5000
	for i := range n {
		b.Replace(fmt.Sprint("g", i), []Doc{{ID: fmt.Sprint(i), Fields: map[string]string{"text": fmt.Sprintf("term%d", i)}}})
	}
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
	seg := ix.snap.Load().segs[0].seg
	p := &seg.parts[0]
	for i := range p.filter.after - 1 {
		if p.filter.get(seg, p) != nil {
			t.Fatalf("a filter after %d lookups, before the %d that pay for it", i+1, p.filter.after)
		}
	}
	f := p.filter.get(seg, p)
	if f == nil {
		t.Fatalf("no filter for a partition of %d terms after %d lookups", p.numTerms, p.filter.after)
	}
	for i := range n {
		if !f.mayHave(termHash(fmt.Sprintf("term%d", i))) {
			t.Fatalf("term%d is in the partition but not in its filter", i)
		}
	}
	passed := 0
	const absent = 100000
	for i := range absent {
		if f.mayHave(termHash(fmt.Sprintf("absent%d", i))) {
			passed++
		}
	}
	if rate := float64(passed) / absent; rate > 0.02 {
		t.Errorf("%.2f%% of absent terms pass the filter, want under 2%%", 100*rate)
	} else {
		t.Logf("%.2f%% of absent terms pass the filter", 100*rate)
	}
}

// TestTermFilterLarge checks that a partition whose filter is built on a
// goroutine gets one after the lookups that pay for it, holding every term,
// and that lookups find every term before and after.
func TestTermFilterLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 20,000 terms")
	}
	ix, err := New(Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var b Batch
	const n = (termFilterInlineTerms/10 + 400) * 10
	for i := range n / 10 {
		var sb strings.Builder
		for j := range 10 {
			fmt.Fprintf(&sb, "w%d ", i*10+j)
		}
		b.Replace(fmt.Sprint("g", i), []Doc{{ID: fmt.Sprint(i), Fields: map[string]string{"text": sb.String()}}})
	}
	if err := ix.Apply(&b); err != nil {
		t.Fatal(err)
	}
	seg := ix.snap.Load().segs[0].seg
	p := &seg.parts[0]
	if p.numTerms != n || p.filter == nil || p.filter.inline {
		t.Fatalf("%d terms, filter %+v: want %d terms and a filter built on a goroutine", p.numTerms, p.filter, n)
	}
	for i := range p.filter.after {
		if _, ok, err := seg.lookup(p, fmt.Sprintf("w%d", i*37%n)); !ok || err != nil {
			t.Fatalf("lookup w%d before the filter: %v %v", i*37%n, ok, err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for p.filter.f.Load() == nil {
		if time.Now().After(deadline) {
			t.Fatal("no filter 30 s after the lookups that start it")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := range n {
		if _, ok, err := seg.lookup(p, fmt.Sprintf("w%d", i)); !ok || err != nil {
			t.Fatalf("lookup w%d with the filter: %v %v", i, ok, err)
		}
	}
	if _, ok, _ := seg.lookup(p, "absent"); ok {
		t.Fatal("an absent term was found")
	}
}
