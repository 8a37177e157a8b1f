package bm25

import "math"

// Scoring reproduces org.apache.lucene.search.similarities.BM25Similarity of
// Lucene 8 (read from the 8.7 jar's bytecode), including where it rounds to
// float32. Every float32 conversion below is deliberate: an explicit
// conversion also stops the compiler from fusing a multiply and an add, which
// would round differently from Java.

// idf is BM25Similarity.idf: log(1 + (docCount - docFreq + 0.5)/(docFreq + 0.5))
// computed in double and rounded to float.
func idf(docFreq, docCount int64) float32 {
	return float32(math.Log(1 + (float64(docCount-docFreq)+0.5)/(float64(docFreq)+0.5)))
}

// avgFieldLength is BM25Similarity.avgFieldLength: sumTotalTermFreq/docCount
// in double, rounded to float.
func avgFieldLength(sumTotalTermFreq, docCount int64) float32 {
	if docCount == 0 {
		return 1
	}
	return float32(float64(sumTotalTermFreq) / float64(docCount))
}

// normCache is the 256-entry cache BM25Similarity.scorer builds:
// 1 / (k1 * ((1 - b) + b * LENGTH_TABLE[i] / avgdl)), all in float.
func normCache(k1, b, avgdl float32) *[256]float32 {
	var c [256]float32
	oneMinusB := float32(1 - b)
	for i := range c {
		bl := float32(b * lengthTable[i])
		q := float32(bl / avgdl)
		s := float32(oneMinusB + q)
		n := float32(k1 * s)
		c[i] = float32(1 / n)
	}
	return &c
}

// termScore is BM25Scorer.score: weight - weight / (1 + freq * normInverse),
// where weight = boost * idf. It equals weight * freq / (freq + norm) up to
// rounding, and Lucene writes it this way to keep it monotonic in freq and
// norm, which the pruning in search relies on.
func termScore(weight, freq, normInverse float32) float32 {
	x := float32(freq * normInverse)
	d := float32(1 + x)
	q := float32(weight / d)
	return float32(weight - q)
}
