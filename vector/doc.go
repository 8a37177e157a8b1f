// Package vector is situate's dense arm: an exact vector index over
// contiguous float32 vectors, with a binary-quantized first pass for large
// corpora.
//
// # Search
//
// Scores are inner products computed with SIMD (github.com/viterin/vek,
// AVX2/FMA assembly, pure Go fallback elsewhere), split across
// Options.Workers goroutines. Under MetricCosine vectors and queries are
// normalised to unit length on the way in, so the inner product is the
// cosine. Results are ordered by score descending, ties by ID ascending.
//
// Up to Options.QuantizeAbove live vectors (DefaultQuantizeAbove = 20000)
// every vector is scored: results are exact. Above it, a first pass
// estimates every score from the vector's sign bits (one bit per
// dimension, stored beside the vectors) and the query quantised to 4 bits,
// with RaBitQ's estimator and its error bound (Gao & Long, SIGMOD 2024):
// popcounts of the code against the query's four bit planes, with AVX-512
// VPOPCNTQ where the CPU has it. The Options.Rescore best estimates
// (default max(10k, 200)) are scored exactly; then every other row whose
// estimate plus Options.Epsilon standard errors reaches the
// min(k, Options.BoundDepth)-th exact score is scored exactly too. Data
// whose neighbours stand out costs the 200 rows; iid Gaussian data, where
// they barely do, about 4% of the corpus at recall@10 0.986
// (bench/vector-*.txt). The result equals the exact one whenever Rescore
// covers every vector the filter allows. Filters (Filter.Groups,
// Filter.Accept) are applied while scanning, before scoring, so k allowed
// results come back when k exist.
//
// # Storage
//
// Open keeps an index in a directory: immutable segment files
// (seg-NNN.vec: a header, the float32 vectors, their sign codes, two
// first-pass coefficients per row and an ID table), memory-mapped
// read-only so vectors are used in place (memory is the raw float32 size
// plus 1/32 for codes, 8 bytes a row and the IDs: 1.02-1.08× raw), and a MANIFEST
// naming the live segments and their tombstoned rows. New only keeps it
// in memory.
//
// Replace(group, items) atomically swaps every vector of a group (situate
// uses one group per document, so a new document version replaces the
// old); it writes the items as a new segment and tombstones the group's
// old rows. Each commit writes the manifest to a temporary file, fsyncs
// it, renames it over MANIFEST and fsyncs the directory; a segment is
// fsynced before any manifest names it and never changes afterwards. A
// process killed at any point reopens in its last committed state; files
// a crash left unreferenced are removed by Open. When a commit leaves more
// than Options.MaxSegments segments the smallest ones are merged; Compact
// rewrites all live vectors into one segment. Searches run on a snapshot:
// a commit or merge never changes what a running search sees, and a
// segment file is unmapped and removed only when the last snapshot using
// it is released.
//
// Dimensions are fixed at creation and checked on every insert and query;
// NaN, ±Inf and (under cosine) zero vectors are rejected with an error
// naming the ID.
//
// vector is a leaf: it imports no other situate package.
package vector
