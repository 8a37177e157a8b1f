// Package bm25 is situate's lexical arm: an inverted index scored with
// Okapi BM25 exactly as Lucene 8's BM25Similarity scores it.
//
// # Scoring
//
// A query is analysed and becomes a disjunction (OR) of one clause per
// unique term, boosted by the term's count in the query; a document's score
// is the sum of its matching clauses, with no coordination factor:
//
//	idf    = ln(1 + (docCount - df + 0.5) / (df + 0.5))
//	weight = boost * idf
//	norm   = k1 * ((1 - b) + b * dl / avgdl)
//	score  = weight - weight / (1 + tf / norm)     (= weight * tf / (tf + norm))
//
// as in Lucene 8 (no (k1 + 1) factor since 8.0), in float32 where Lucene
// uses float, with the 256-entry norm cache: dl is the document length
// Lucene keeps in one byte (SmallFloat.intToByte4, decoded by byte4ToInt),
// counting tokens that do not share the previous token's position, and
// avgdl = sumTotalTermFreq / docCount. Clause scores are summed in float64
// and rounded to float32, as Lucene's disjunction scorers do. Results are
// ordered by score, ties by ID ascending. Unlike Lucene, docCount, df and
// sumTotalTermFreq count only live documents: a deleted or replaced
// document leaves the statistics at once, not at the next merge, so a
// search always scores as a freshly built Lucene index of the same
// documents would.
//
// # Fields and languages
//
// Options.Fields lists text fields with weights. Multi-field scoring sums
// per-field BM25, each field with its own statistics, a clause's boost
// being count × field weight (Lucene's BooleanQuery of boosted per-field
// TermQuerys, Elasticsearch's multi_match "most_fields"); it is not BM25F.
// One field of weight 1 is plain Lucene BM25.
//
// Each field is partitioned by analyzer, like Lucene sub-fields "text.en",
// "text.de": a document is analysed by the analyzer of its language (or the
// one fixed analyzer of Options.Analyzer) and indexed into that partition,
// which keeps its own statistics. A query is analysed once per analyzer
// present (or only for Query.Lang), and each document is scored with the
// terms of its own partition, so a mixed-language corpus works.
//
// # Storage
//
// The index is a set of immutable segments plus per-segment deletion
// bitmaps. Replace and Delete commit a new segment and new bitmaps; segments
// of about the same size are merged (MergeFactor). Open keeps the index in a
// directory: segment files and a MANIFEST with checksums, written with
// fsync and an atomic rename, so a crash at any point reopens at the last
// committed state. Segment files are memory-mapped (read whole elsewhere
// than on Unix); a mapping is released when no snapshot uses its segment
// any more, so the disk space of merged-away segments returns after the
// next garbage collection. Searches read an immutable snapshot and never
// block on writers. Only one process may open a directory (flock on LOCK);
// the per-doc maps a writer needs are built on the first write, so a
// search-only process does not pay for them. See persist.go for the file
// protocol and segment.go for the format.
//
// # Search
//
// Search evaluates term at a time with exact MaxScore pruning and block
// skipping; filters are applied while scoring, so K allowed results come
// back whenever K allowed matches exist.
//
// Package bm25 imports only the standard library and situate's analysis
// package; it must not import the root package or any adapter.
package bm25
