// Package situate implements Contextual Retrieval for RAG.
//
// Chunking cuts a document apart and each chunk loses who, what and when.
// situate gives it back: for every chunk a Contextualizer reads the whole
// document and writes a short context that situates the chunk. The context is
// prepended to the chunk ("context\n\nchunk") and that contextualized text goes
// into a BM25 index and, when an Embedder is configured, a vector index. Search
// runs the arms, fuses their ranks, optionally reranks, and returns the
// ORIGINAL chunk text with the generated context kept apart.
//
// The store is the source of truth. One writer at a time opens it (Open
// takes the index directory's write lock) and makes every index hold
// exactly the store's documents; any number of readers (OpenReader)
// open it beside the writer without a lock, search the last commit and see
// later ones as they come. A Filter (document ids, access principals,
// metadata conditions) restricts every arm while it scores.
//
// The root package owns the nouns (Document, Chunk, Context, Hit, Query), the
// small interfaces it consumes (Contextualizer, Embedder, Reranker, Store) and
// the Engine that ties the leaf mechanisms together. It never imports an
// adapter: providers, SQLite and ingestion live in their own packages and are
// wired together only by cmd/situate.
package situate
