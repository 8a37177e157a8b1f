package weaviate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/weaviatetest"
)

// BenchmarkSearchTerms measures one lexical arm's query on Weaviate, the way
// SearchTerms answers it (Weaviate's best max(2k, k+50) with their terms,
// the collection's statistics and each term's document frequency in one
// request, rescored with situate's BM25) beside Weaviate's own top k alone,
// over 20,000 chunks of 60 words from a Zipf vocabulary of 50,000, queries
// of 3 words, k = 150 (the Engine's Candidates). The server runs the exact
// WAND (weaviatetest). The part= runs time pieces of the rescoring request
// alone; filtered-counts is the way to document frequencies termDF avoids.
// Record its output in bench/.
//
//	go test -run XXX -bench BenchmarkSearchTerms -benchtime 200x ./weaviate
func BenchmarkSearchTerms(b *testing.B) {
	ctx := context.Background()
	cl := weaviatetest.Start(b)
	x, err := Open(ctx, Config{URLs: cl.URLs(), Collection: "Bench", VectorIndex: "flat"})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	arm := driver.BackendArm{Name: "bm25", K1: 1.2, B: 0.75, Analyzers: []string{"standard"}}
	if err := x.Init(ctx, []driver.BackendArm{arm}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 2, 50000)
	word := func() string { return fmt.Sprintf("w%d", z.Uint64()) }
	const chunks, per = 20000, 500
	for start := 0; start < chunks; start += per {
		docs := make([]driver.BackendDocument, per)
		for i := range docs {
			terms := make([]string, 60)
			for j := range terms {
				terms[j] = word()
			}
			docs[i] = driver.BackendDocument{Record: driver.DocumentRecord{ID: fmt.Sprintf("d%05d", start+i), Version: 1, Chunks: 1},
				Chunks: []driver.BackendChunk{{Terms: []driver.ArmTerms{{Arm: "bm25", Analyzer: "standard", Terms: terms, Positions: len(terms)}}}}}
		}
		if err := x.Replace(ctx, docs); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([][]string, 200)
	for i := range queries {
		queries[i] = []string{word(), word(), word()}
	}
	const k = 150
	class := x.lexClass("bm25", "standard")
	b.Run("weaviate-top-k", func(b *testing.B) {
		for i := range b.N {
			q := queries[i%len(queries)]
			search := fmt.Sprintf("bm25: {query: %s, properties: [%s]}", gqlString(strings.Join(q, " ")), gqlString(termsProp))
			if _, err := x.get(ctx, class, search, k, driver.Filter{}, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	gq := func(b *testing.B, q string) {
		var data map[string]any
		if err := x.c.graphql(ctx, q, &data); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("part=stats", func(b *testing.B) {
		for range b.N {
			gq(b, fmt.Sprintf(`{Aggregate{all: %s(tenant: "default"){meta{count} length{count sum}}}}`, class))
		}
	})
	b.Run("part=filtered-counts", func(b *testing.B) {
		for i := range b.N {
			q := queries[i%len(queries)]
			var agg strings.Builder
			for j, t := range q {
				fmt.Fprintf(&agg, " t%d: %s(tenant: \"default\", where: %s){meta{count}}", j, class, textEq(termsProp, t).gql())
			}
			gq(b, "{Aggregate{"+agg.String()+"}}")
		}
	})
	b.Run("part=candidates", func(b *testing.B) {
		for i := range b.N {
			q := queries[i%len(queries)]
			gq(b, fmt.Sprintf(`{Get{%s(tenant: "default", limit: %d, bm25: {query: %s, properties: ["terms"]}){doc_id chunk terms positions _additional{score}}}}`,
				class, candidateDepth(k), gqlString(strings.Join(q, " "))))
		}
	})
	b.Run("rescored", func(b *testing.B) {
		for i := range b.N {
			q := queries[i%len(queries)]
			if _, err := x.SearchTerms(ctx, driver.TermQuery{Arm: "bm25", Terms: map[string][]string{"standard": q}, K: k}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
