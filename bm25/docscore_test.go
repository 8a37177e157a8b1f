package bm25_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/situate/situate/bm25"
)

// TestDocScoreEqualsSearch scores every hit of random queries over a random
// index (lengths from 1 to 300 terms, so the one-byte norm rounds) with
// DocScore, from statistics counted here, and wants Search's score to the
// bit.
func TestDocScoreEqualsSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 60)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	word := func() string { return vocab[int(rng.ExpFloat64()*8)%len(vocab)] } // skewed: common and rare terms
	for _, kb := range [][2]float64{{1.2, 0.75}, {0.9, 0.4}, {2, 1}} {
		ix, err := bm25.New(bm25.Options{K1: kb[0], B: kb[1], Analyzer: "standard"})
		if err != nil {
			t.Fatal(err)
		}
		docs := map[string][]string{}
		var sumTTF int64
		for i := range 200 {
			n := 1 + rng.IntN(300)
			ws := make([]string, n)
			for j := range ws {
				ws[j] = word()
			}
			id := fmt.Sprintf("d%d", i)
			docs[id] = ws
			sumTTF += int64(n)
			if err := ix.Replace(id, []bm25.Doc{{ID: id, Fields: map[string]string{bm25.DefaultField: strings.Join(ws, " ")}}}); err != nil {
				t.Fatal(err)
			}
		}
		df := map[string]int64{}
		for _, ws := range docs {
			seen := map[string]bool{}
			for _, w := range ws {
				if !seen[w] {
					seen[w] = true
					df[w]++
				}
			}
		}
		for range 50 {
			q := []string{word(), word(), word(), vocab[rng.IntN(len(vocab))]}
			res, err := ix.Search(bm25.Query{Text: strings.Join(q, " "), K: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) == 0 {
				t.Fatalf("query %v: no hits", q)
			}
			for _, r := range res {
				var stats []bm25.TermStat
				count := map[string]int{}
				for _, w := range q {
					count[w]++
				}
				for w, c := range count {
					tf := 0
					for _, x := range docs[r.ID] {
						if x == w {
							tf++
						}
					}
					stats = append(stats, bm25.TermStat{Boost: float64(c), DF: df[w], TF: tf})
				}
				got := bm25.DocScore(kb[0], kb[1], int64(len(docs)), sumTTF, uint32(len(docs[r.ID])), stats)
				if got != r.Score {
					t.Fatalf("k1=%g b=%g query %v doc %s (%d terms): DocScore %v, Search %v", kb[0], kb[1], q, r.ID, len(docs[r.ID]), got, r.Score)
				}
			}
		}
		ix.Close()
	}
}
