// Package harness measures retrieval on a reference question set: it
// indexes the set's documents into a temporary store once per
// configuration (raw chunks, offline contexts, contexts shipped with the
// set, LLM contexts; BM25, dense or hybrid search, with or without a
// reranker), runs every question through Engine.Search and scores the
// rankings with package eval. `situate eval` and bench/quality are its
// front ends.
package harness
