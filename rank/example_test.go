package rank_test

import (
	"fmt"

	"github.com/situate/situate/rank"
)

// The recipe after the BM25 arms: sum the language and code arms, add the
// word-pair arm as document evidence, then lift the chunks of documents that
// match well as a whole.
func Example() {
	language := []rank.Hit{ // BM25 with the document's language analyzer
		{ID: "auth.go#0", Doc: "auth.go", Score: 6.0},
		{ID: "readme.md#2", Doc: "readme.md", Score: 4.0},
		{ID: "auth.go#3", Doc: "auth.go", Score: 2.5},
	}
	code := []rank.Hit{ // BM25 with the "code" analyzer (identifiers split)
		{ID: "auth.go#3", Doc: "auth.go", Score: 2.0},
		{ID: "readme.md#2", Doc: "readme.md", Score: 1.0},
	}
	hits, err := rank.Combine([][]rank.Hit{language, code}, []float64{1, rank.DefaultCodeWeight})
	if err != nil {
		fmt.Println(err)
		return
	}
	pairs := []rank.Hit{ // BM25 over rank.PairText word pairs
		{ID: "auth.go#0", Doc: "auth.go", Score: 1.0},
	}
	hits, err = rank.DocumentEvidence(hits, pairs, rank.DefaultPairWeight)
	if err != nil {
		fmt.Println(err)
		return
	}
	hits, err = rank.DocumentBlend(hits, rank.DefaultDocumentWeight)
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

// The query side of the extra arms: the code arm searches the query with its
// identifiers emphasized; the pair arm searches adjacent term pairs (here of
// terms an english analyzer would produce), indexed with the standard
// analyzer.
func ExamplePairText() {
	fmt.Println(rank.EmphasizeIdentifiers("How does buildToDockerDaemonAndRun verify the image?", 1))
	fmt.Println(rank.PairText([]string{"buildtodockerdaemonandrun", "verifi", "imag"}))
	// Output:
	// How does buildToDockerDaemonAndRun verify the image? buildToDockerDaemonAndRun
	// buildtodockerdaemonandrun_verifi verifi_imag
}

// The lead prior (measured in round 3, not in recipe v2): after the blend,
// every chunk gains DefaultLeadWeight × its document's best score / √(1+i),
// i its index in the document, so that a file's opening chunk (header,
// imports, declarations) overtakes a slightly better-scoring later chunk.
func ExampleLeadPrior() {
	hits := []rank.Hit{
		{ID: "auth.go#4", Doc: "auth.go", Score: 10.0},
		{ID: "auth.go#7", Doc: "auth.go", Score: 9.8},
		{ID: "auth.go#0", Doc: "auth.go", Score: 9.6},
	}
	index := map[string]int{"auth.go#4": 4, "auth.go#7": 7, "auth.go#0": 0}
	hits, err := rank.LeadPrior(hits, index, rank.DefaultLeadWeight)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hits {
		fmt.Printf("%-10s %.3f\n", h.ID, h.Score)
	}
	// auth.go#0 gains 0.08 × 10 = 0.8, auth.go#4 0.8/√5, auth.go#7 0.8/√8.

	// Output:
	// auth.go#0  10.400
	// auth.go#4  10.358
	// auth.go#7  10.083
}
