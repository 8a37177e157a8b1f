package driver

import "context"

// IndexBackend is an index outside the process (a search engine such as
// Weaviate) that an Engine uses instead of its embedded BM25 arms and vector
// index (Options.Backend). The store stays the source of truth: the Engine
// analyses every chunk with situate's analyzers, hands the backend each
// lexical arm's terms and the chunk's vector, and runs situate's lexical
// recipe and fusion over the lists the backend returns, so results match
// the embedded engine's. Filters (access lists, metadata) are pushed down:
// the backend applies them while it ranks. The Engine owns the backend
// once Open succeeds and closes it in Close.
type IndexBackend interface {
	// Init prepares the backend for these lexical arms (creating what it
	// needs on first use) and fails when what it holds was built with
	// other settings.
	Init(ctx context.Context, arms []BackendArm) error
	// Replace replaces every chunk held for each document with docs' chunks
	// (none: the document is removed).
	Replace(ctx context.Context, docs []BackendDocument) error
	// Delete removes documents; an unknown id is not an error.
	Delete(ctx context.Context, ids []string) error
	// SearchTerms runs one lexical arm's BM25 query: per analyzer, its
	// query terms against the chunks indexed with that analyzer, merged by
	// score; the top K chunks that pass the filter.
	SearchTerms(ctx context.Context, q TermQuery) ([]BackendHit, error)
	// SearchVector returns the K chunks nearest v (Score: cosine
	// similarity) that pass the filter.
	SearchVector(ctx context.Context, v []float32, k int, f Filter) ([]BackendHit, error)
	// Versions returns the version of every document the backend holds
	// completely (Open re-indexes the documents whose version differs
	// from the store's).
	Versions(ctx context.Context) (map[string]int, error)
	Close() error
}

// NativeRanker is implemented by a backend that can rank by its own means
// (its tokenizers, its hybrid fusion) instead of situate's recipe; Search
// uses SearchNative when Native reports true. It exists to measure the
// backend's own ranking against situate's (EVAL.md).
type NativeRanker interface {
	Native() bool
	SearchNative(ctx context.Context, q NativeQuery) ([]BackendHit, error)
}

// NativeQuery is a query a NativeRanker ranks by its own means.
type NativeQuery struct {
	Text string
	// Vector is the query's embedding (nil in bm25 mode).
	Vector []float32
	Mode   string
	K      int
	Filter Filter
	// DenseWeight and LexicalWeight are the Engine's arm weights.
	DenseWeight, LexicalWeight float64
}

// BackendArm describes one lexical arm a backend keeps: its BM25
// parameters and the analyzers whose terms it holds.
type BackendArm struct {
	Name      string
	K1, B     float64
	Analyzers []string
}

// BackendDocument is one document's record with every chunk to index.
type BackendDocument struct {
	Record DocumentRecord
	Chunks []BackendChunk
}

// BackendChunk is a chunk with its context, its analysed terms per arm and
// its vector (nil without an embedder).
type BackendChunk struct {
	StoredChunk
	Terms  []ArmTerms
	Vector []float32
}

// ArmTerms are a chunk's terms in one arm: Analyzer's output, in order.
type ArmTerms struct {
	Arm, Analyzer string
	Terms         []string
	// Positions is the number of token positions the terms take (terms at
	// one position count once): the length the embedded BM25 normalises
	// by (bm25.DocScore).
	Positions int
}

// TermQuery is one lexical arm's query.
type TermQuery struct {
	Arm string
	// Terms maps each analyzer to the query's terms under it; a term
	// repeated n times counts n times (Lucene's boost by query count).
	Terms map[string][]string
	// Weights, where set, maps an analyzer's term to its weight instead
	// of its count: compound matching (Options.CompoundWeight) adds terms
	// weighted CompoundWeight.
	Weights map[string]map[string]float64
	K       int
	Filter  Filter
}

// TermLookup is implemented by an IndexBackend that can say which terms
// its chunks hold. The Engine then matches German compounds with their
// parts on the backend as the embedded index does (Options.CompoundWeight:
// the backend's vocabulary is the dictionary).
type TermLookup interface {
	// KnownTerms returns the terms of terms that at least one chunk holds
	// in the arm under the analyzer.
	KnownTerms(ctx context.Context, arm, analyzer string, terms []string) (map[string]bool, error)
}

// BackendHit is one chunk a backend found.
type BackendHit struct {
	DocID string
	Chunk int
	Score float64
}
