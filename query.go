package situate

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

// Explanation shows how a hit was ranked in each stage. Ranks are 1-based;
// 0 means the hit was not retrieved by that arm.
type Explanation struct {
	BM25Rank    int
	BM25Score   float64
	DenseRank   int
	DenseScore  float64
	FusedScore  float64
	RerankScore float64
	Reranked    bool
}
