package bm25

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/situate/situate/analysis"
)

// reference scores every doc of a one-field corpus for a query, straight
// from the analyser's tokens and the BM25 formula: no index, no pruning. It
// is what Search must equal exactly.
type reference struct {
	a        analysis.Analyzer
	docs     []textDoc
	stats    []refDoc
	df       map[string]int64
	docCount int64
	cache    *[256]float32
}

type refDoc struct {
	tf   map[string]int
	norm uint8
}

func newReference(a analysis.Analyzer, docs []textDoc, k1, b float32) *reference {
	r := &reference{a: a, docs: docs, stats: make([]refDoc, len(docs)), df: map[string]int64{}}
	var sumTTF int64
	for i, d := range docs {
		toks := a.Analyze(d.text)
		ds := refDoc{tf: map[string]int{}}
		n := 0
		for j, tk := range toks {
			ds.tf[tk.Term]++
			if j == 0 || tk.Position != toks[j-1].Position {
				n++
			}
		}
		ds.norm = intToByte4(uint32(n))
		r.stats[i] = ds
		if len(toks) > 0 {
			r.docCount++
			sumTTF += int64(len(toks))
		}
		for term := range ds.tf {
			r.df[term]++
		}
	}
	r.cache = normCache(k1, b, avgFieldLength(sumTTF, r.docCount))
	return r
}

func (r *reference) search(query string, k int) []Result {
	counts := map[string]int{}
	for _, tk := range r.a.Analyze(query) {
		counts[tk.Term]++
	}
	var out []Result
	for i, d := range r.docs {
		sum, match := 0.0, false
		for term, c := range counts {
			tf := r.stats[i].tf[term]
			if tf == 0 {
				continue
			}
			match = true
			w := float32(float32(c) * idf(r.df[term], r.docCount))
			sum += float64(termScore(w, float32(tf), r.cache[r.stats[i].norm]))
		}
		if match {
			out = append(out, Result{ID: d.id, Group: d.id, Score: float64(float32(sum))})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

func sameResults(t testing.TB, what string, got, want []Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, exhaustive scoring has %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: result %d is %+v, exhaustive scoring has %+v", what, i, got[i], want[i])
		}
	}
}

// TestSearchMatchesExhaustive checks that pruned, multi-segment search with
// deletions returns exactly what exhaustive scoring of the live docs does.
func TestSearchMatchesExhaustive(t *testing.T) {
	docs := readCACM(t)
	topics := readTopics(t)
	a, err := analysis.New("english")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := New(Options{K1: 0.9, B: 0.4, Analyzer: "english", MergeFactor: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	// Index in batches of random size, so segments merge at several levels.
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < len(docs); {
		n := 1 + rng.Intn(300)
		var b Batch
		for _, d := range docs[i:min(i+n, len(docs))] {
			b.Replace(d.id, []Doc{{ID: d.id, Fields: map[string]string{"text": d.text}}})
		}
		if err := ix.Apply(&b); err != nil {
			t.Fatal(err)
		}
		i += n
	}
	check := func(stage string, live []textDoc) {
		t.Helper()
		if got := ix.Stats().Docs; got != len(live) {
			t.Fatalf("%s: %d docs, want %d", stage, got, len(live))
		}
		ref := newReference(a, live, 0.9, 0.4)
		for _, k := range []int{1, 10, 1000} {
			for _, tp := range topics {
				got, err := ix.Search(Query{Text: tp.text, K: k})
				if err != nil {
					t.Fatal(err)
				}
				sameResults(t, fmt.Sprintf("%s: topic %s k=%d", stage, tp.id, k), got, ref.search(tp.text, k))
			}
		}
	}
	t.Logf("segments after indexing: %d", ix.Stats().Segments)
	check("indexed", docs)

	// Delete a random third, in several commits; replace some docs with
	// other text. Statistics must follow exactly.
	live := map[string]string{}
	for _, d := range docs {
		live[d.id] = d.text
	}
	for round := 0; round < 5; round++ {
		var b Batch
		for _, d := range docs {
			if _, ok := live[d.id]; !ok {
				continue
			}
			switch r := rng.Intn(100); {
			case r < 7:
				b.Delete(d.id)
				delete(live, d.id)
			case r < 9:
				text := docs[rng.Intn(len(docs))].text
				b.Replace(d.id, []Doc{{ID: d.id, Fields: map[string]string{"text": text}}})
				live[d.id] = text
			}
		}
		if err := ix.Apply(&b); err != nil {
			t.Fatal(err)
		}
	}
	var rest []textDoc
	for _, d := range docs {
		if text, ok := live[d.id]; ok {
			rest = append(rest, textDoc{d.id, text})
		}
	}
	t.Logf("segments after deletions: %d, live docs %d", ix.Stats().Segments, len(rest))
	check("after deletions", rest)
}

// TestSearchTiesMatchExhaustive checks the tie-breaking by ID on a corpus
// made of ties: docs of five words from a vocabulary of eight, so most
// scores are shared by many docs, IDs in no particular order (the
// per-segment ordinals matter), spread over many segments with deletions.
// Every k must cut the ties exactly where exhaustive scoring does.
func TestSearchTiesMatchExhaustive(t *testing.T) {
	a, err := analysis.New("standard")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := New(Options{Analyzer: "standard", MergeFactor: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewSource(7))
	vocab := []string{"ka", "to", "ri", "ne", "mo", "sa", "lu", "pe"}
	live := map[string]string{}
	for round := 0; round < 40; round++ {
		var b Batch
		for range 1 + rng.Intn(60) {
			id := fmt.Sprintf("%x/%d", rng.Int63n(1<<20), rng.Intn(12))
			var words []string
			for range 5 {
				words = append(words, vocab[rng.Intn(len(vocab))])
			}
			text := fmt.Sprint(words)
			b.Replace(id, []Doc{{ID: id, Fields: map[string]string{"text": text}}})
			live[id] = text
		}
		for id := range live {
			if rng.Intn(30) == 0 {
				b.Delete(id)
				delete(live, id)
			}
		}
		if err := ix.Apply(&b); err != nil {
			t.Fatal(err)
		}
	}
	var docs []textDoc
	for id, text := range live {
		docs = append(docs, textDoc{id, text})
	}
	ref := newReference(a, docs, DefaultK1, DefaultB)
	t.Logf("%d docs in %d segments", len(docs), ix.Stats().Segments)
	for _, q := range []string{"ka", "ka to", "ri ri ne", "pe lu sa mo", "ka to ri ne mo sa lu pe"} {
		for _, k := range []int{1, 3, 10, 50, 150, 1000} {
			got, err := ix.Search(Query{Text: q, K: k})
			if err != nil {
				t.Fatal(err)
			}
			want := ref.search(q, k)
			sameResults(t, fmt.Sprintf("%q k=%d", q, k), got, want)
			// WithoutGroups: the same results without their groups.
			if got, err = ix.Search(Query{Text: q, K: k, WithoutGroups: true}); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				want[i].Group = ""
			}
			sameResults(t, fmt.Sprintf("%q k=%d without groups", q, k), got, want)
			// Unordered: the same results (the ties cut at the same
			// IDs), once sorted.
			if got, err = ix.Search(Query{Text: q, K: k, WithoutGroups: true, Unordered: true}); err != nil {
				t.Fatal(err)
			}
			sort.Slice(got, func(i, j int) bool {
				if got[i].Score != got[j].Score {
					return got[i].Score > got[j].Score
				}
				return got[i].ID < got[j].ID
			})
			sameResults(t, fmt.Sprintf("%q k=%d unordered", q, k), got, want)
		}
	}
	// The first searches broke ties by comparing id strings, the later ones
	// by ordinals (ordWarmUses): both were checked above.
	warm := 0
	for _, ss := range ix.snap.Load().segs {
		if ss.seg.ordDone.Load() {
			warm++
		}
	}
	if warm == 0 {
		t.Fatalf("no segment got its ordinals: the ordinal tie-break went untested")
	}
}
