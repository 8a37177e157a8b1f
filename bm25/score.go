package bm25

import (
	"math"

	"github.com/situate/situate/analysis"
)

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

// TermStat is one query term as DocScore sees it.
type TermStat struct {
	// Boost is the term's weight in the query: its count there (a
	// compound part: Options.CompoundWeight) times the field's weight.
	Boost float64
	// DF is the number of the partition's documents holding the term.
	DF int64
	// TF is the term's frequency in the document scored.
	TF int
}

// DocScore is the score Search gives one document of a partition holding
// docCount documents of sumTTF tokens in all, whose field has positions
// token positions (its length norm): the sum over terms of Lucene's BM25
// term score, with Search's float32 rounding and one-byte length norm, so
// equal to the bit to what Search returns for the document. A backend that
// keeps situate's terms outside this package (an index on Weaviate) scores
// its candidates with it, and ranks them as the embedded index does.
func DocScore(k1, b float64, docCount, sumTTF int64, positions uint32, terms []TermStat) float64 {
	if docCount <= 0 {
		return 0
	}
	cache := normCache(float32(k1), float32(b), avgFieldLength(sumTTF, docCount))
	norm := cache[intToByte4(positions)]
	var sum float64
	for _, t := range terms {
		if t.TF <= 0 || t.DF <= 0 {
			continue
		}
		w := float32(float32(weight32(t.Boost)) * idf(t.DF, docCount))
		if w > 0 {
			sum += float64(termScore(w, float32(t.TF), norm))
		}
	}
	return float64(float32(sum))
}

// ExpandCompounds is the query expansion Search applies under
// Options.CompoundWeight to the terms of an analyzer that is an
// analysis.Compounder: terms the partition does not know (known reports
// whether its live documents hold a term) are replaced by their known
// parts, and known compounds of neighbouring query words are added, each
// added term counting weight; the original terms keep their counts. An
// index kept elsewhere (an index backend) expands its queries with it
// against its own vocabulary.
func ExpandCompounds(c analysis.Compounder, text string, terms []string, counts []float32, weight float32, known func(string) bool) ([]string, []float32) {
	return expandCompounds(c, text, terms, counts, weight, known)
}
