package rank_test

import (
	"fmt"

	"github.com/situate/situate/fusion"
	"github.com/situate/situate/rank"
)

// The recipe after the BM25 arms: sum the language and code arms, add the
// word-pair arm as document evidence, then lift the chunks of documents that
// match well as a whole.
func Example() {
	language := []fusion.Hit{ // BM25 with the document's language analyzer
		{ID: "auth.go#0", Doc: "auth.go", Score: 6.0},
		{ID: "readme.md#2", Doc: "readme.md", Score: 4.0},
		{ID: "auth.go#3", Doc: "auth.go", Score: 2.5},
	}
	code := []fusion.Hit{ // BM25 with the "code" analyzer (identifiers split)
		{ID: "auth.go#3", Doc: "auth.go", Score: 2.0},
		{ID: "readme.md#2", Doc: "readme.md", Score: 1.0},
	}
	hits, err := fusion.Combine([][]fusion.Hit{language, code}, []float64{1, rank.DefaultCodeWeight})
	if err != nil {
		fmt.Println(err)
		return
	}
	pairs := []fusion.Hit{ // BM25 over rank.PairText word pairs
		{ID: "auth.go#0", Doc: "auth.go", Score: 1.0},
	}
	hits, err = fusion.DocumentEvidence(hits, pairs, rank.DefaultPairWeight)
	if err != nil {
		fmt.Println(err)
		return
	}
	hits, err = fusion.DocumentBlend(hits, rank.DefaultDocumentWeight)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hits {
		fmt.Printf("%-12s %.2f\n", h.ID, h.Score)
	}
	// Combined, readme.md#2 (4+1 = 5) is above auth.go#3 (2.5+2 = 4.5); the
	// pair evidence adds 0.7 × 1 to both auth.go chunks (6.7 and 5.2); the
	// blend adds 0.7 × each document's best (6.7 for auth.go, 5 for
	// readme.md).

	// Output:
	// auth.go#0    11.39
	// auth.go#3    9.89
	// readme.md#2  8.50
}

// The query side of the pair arm: it searches adjacent term pairs (here of
// terms an english analyzer would produce), indexed with the standard
// analyzer.
func ExamplePairText() {
	fmt.Println(rank.PairText([]string{"buildtodockerdaemonandrun", "verifi", "imag"}))
	// Output:
	// buildtodockerdaemonandrun_verifi verifi_imag
}
