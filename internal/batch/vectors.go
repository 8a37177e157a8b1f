package batch

import (
	"fmt"
	"math"
	"sync/atomic"
)

// CheckVectors validates one batch's vectors: the count n, a common
// dimension (want, if > 0, named by src), finite values and a non-zero
// norm. It returns the dimension or a description of the first problem.
func CheckVectors(vecs [][]float32, n, want int, src string) (int, string) {
	if len(vecs) == 0 {
		return 0, fmt.Sprintf("got no vectors for %d texts", n)
	}
	if len(vecs) != n {
		return 0, fmt.Sprintf("got %d vectors for %d texts", len(vecs), n)
	}
	dim := want
	if dim <= 0 {
		dim, src = len(vecs[0]), "vector 0"
	}
	if dim == 0 {
		return 0, "vector 0 is empty"
	}
	for i, v := range vecs {
		if len(v) != dim {
			return 0, fmt.Sprintf("vector %d has dimension %d, want %d as %s", i, len(v), dim, src)
		}
		var norm float64
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return 0, fmt.Sprintf("vector %d has %v at position %d", i, x, j)
			}
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			return 0, fmt.Sprintf("vector %d is all zeros", i)
		}
	}
	return dim, ""
}

// CheckEmbeddings validates one batch of n texts' vectors with
// CheckVectors against the configured dimension or, if that is 0, the
// dimension of earlier batches, which seen holds (0 until the first good
// batch, which sets it). It returns a description of the first problem,
// or "".
func CheckEmbeddings(vecs [][]float32, n, configured int, seen *atomic.Int64) string {
	want, src := configured, "Dimensions"
	if want == 0 {
		want, src = int(seen.Load()), "earlier batches"
	}
	dim, problem := CheckVectors(vecs, n, want, src)
	if problem != "" || configured > 0 || seen.CompareAndSwap(0, int64(dim)) {
		return problem
	}
	if d := int(seen.Load()); d != dim {
		return fmt.Sprintf("vectors have dimension %d, earlier batches had %d", dim, d)
	}
	return ""
}
