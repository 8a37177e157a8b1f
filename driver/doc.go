// Package driver holds what a backend implements and the nouns it shares
// with the situate Engine, as database/sql/driver does for database/sql:
// the Store family (Store, BatchStore, ChunkReader, MetaStore, JobStore,
// KeyStore and the optional interfaces found by type assertion), the index
// backend family (IndexBackend, NativeRanker, TermLookup), the model side
// (LLM, TokenCounter, Contextualizer, Embedder, Reranker), the caches, the
// usage recorder and the call observer.
//
// A store, index backend or provider imports driver and never the root
// package (deps_test.go checks it); a program using situate reads the root
// package, which re-exports the few nouns it names (Document, Filter,
// the errors) as aliases.
//
// driver imports no project package but the analysis leaf.
package driver
