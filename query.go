package situate

import (
	"fmt"
	"strings"
)

// Query is one search request.
type Query struct {
	Text string
	// K is the number of results wanted; 0 means DefaultK.
	K int
	// Mode is one of the Mode* constants; empty picks hybrid when an embedder
	// is configured and bm25 otherwise.
	Mode string
	// Filter restricts the search; it is applied while scoring, so K allowed
	// matches are returned whenever they exist.
	Filter Filter
	// Rerank asks for the configured reranker to reorder the fused top
	// candidates.
	Rerank bool
	// Explain fills Hit.Explain.
	Explain bool
}

// Hit is one search result: the ORIGINAL chunk text with its context apart.
type Hit struct {
	Rank    int
	DocID   string
	Chunk   int
	Text    string
	Context Context
	Heading string
	Title   string
	Score   float64
	// Explain is set when Query.Explain is.
	Explain *Explanation
}

// Explanation shows how a hit was ranked: its rank and score in each arm
// the query searched and in the lexical ranking the BM25 arms combine
// into, then the fused score and the reranker's.
type Explanation struct {
	// Arms are the arms that searched the query, in the Engine's order:
	// the BM25 arms ("bm25", and with the situate recipe "bm25-code",
	// "bm25-pairs", "bm25-defs"), "lexical" (the BM25 arms combined, the
	// list fusion sees), then "dense". Empty for a backend that ranks
	// natively.
	Arms        []ArmRank `json:"arms"`
	FusedScore  float64   `json:"fused_score"`
	Reranked    bool      `json:"reranked"`
	RerankScore float64   `json:"rerank_score"`
}

// ArmRank is a hit's place in one arm's list: Rank is 1-based, 0 when the
// arm did not retrieve the hit.
type ArmRank struct {
	Arm   string  `json:"arm"`
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// Arm returns the hit's place in the named arm ("lexical", "dense",
// "bm25", ...); Rank 0 when the arm did not retrieve it or did not run.
func (x *Explanation) Arm(name string) ArmRank {
	if x != nil {
		for _, a := range x.Arms {
			if a.Arm == name {
				return a
			}
		}
	}
	return ArmRank{Arm: name}
}

// String is the explanation on one line: each arm's rank and score
// ("bm25 rank 1 score 3.2100"; "not retrieved" where the arm did not
// return the hit), the fused score and the reranker's.
func (x *Explanation) String() string {
	var b strings.Builder
	for _, a := range x.Arms {
		if a.Rank == 0 {
			fmt.Fprintf(&b, "%s not retrieved; ", a.Arm)
			continue
		}
		fmt.Fprintf(&b, "%s rank %d score %.4f; ", a.Arm, a.Rank, a.Score)
	}
	fmt.Fprintf(&b, "fused %.4f", x.FusedScore)
	if x.Reranked {
		fmt.Fprintf(&b, "; rerank %.4f", x.RerankScore)
	}
	return b.String()
}
