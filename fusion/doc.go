// Package fusion merges the ranked lists of situate's search arms (BM25,
// vectors, ...) into one ranking: the one place they meet.
//
// Fuse takes every arm's hits of a query (Arm: its Hits, its Kind and
// Weight) and a Recipe, and ranks them in two steps. The lexical arms
// become the lexical ranking: the chunk arms' scores are summed (Combine),
// the document arms lift their documents' chunks (DocumentEvidence), every
// chunk gains a share of its document's best score (DocumentBlend) and
// chunks of test files lose a share (TestPrior) — the recipe in EVAL.md,
// whose defaults are in package rank. The dense arms are then fused with
// the lexical ranking by one of the methods below.
//
// Every method takes per-arm weights (List.Weight) and returns Results
// ordered best first, each with its fused Score and its 1-based rank in
// every input list (0 = absent). An ID repeated within one list keeps the
// rank of its first occurrence.
//
//   - RRF: reciprocal rank fusion, Σ Weight/(k + rank), rank 1-based,
//     k = DefaultRRFK = 60 as in Elasticsearch. Ties: ID ascending.
//   - Cookbook: the Anthropic cookbook's Contextual Retrieval fusion
//     (retrieve_advanced in skills/contextual-embeddings/guide.ipynb),
//     Σ Weight * 1/rank with no constant, 0.8 semantic / 0.2 BM25 over the
//     top 150 of each, reproduced exactly: same float64 operations, same
//     order. Ties: ID descending, because the cookbook sorts
//     (score, doc_id, original_index) with reverse=True; CookbookKeyed
//     compares (doc, index) pairs like the cookbook's tuples. Its IDs are
//     distinct tuples, so the Python set it starts from does not make the
//     order depend on hash seeds: the result is deterministic.
//   - MinMax: convex combination of min-max normalised scores, weights
//     scaled to sum to 1, optional theoretical minimum (List.Min).
//     Ties: ID ascending.
//   - RelativeScore: Weaviate's relativeScoreFusion (per-list min-max,
//     a list whose scores are all equal gives each result 1, times
//     Weight, summed). Ties: ID ascending.
//
// Sums are formed list by list in the order given, and every product or
// quotient is rounded before it is added (no fused multiply-add), so
// results are identical on every architecture.
//
// fusion is a leaf: it imports no other situate package.
package fusion
