package batch

import (
	"encoding/json"
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

// DecodeVectors decodes vectors sent as JSON number arrays (kept raw so
// that NaN, Infinity or a number beyond float32 is refused, not turned
// into a silent zero or infinity), checking that none is empty and that
// all have one dimension: *dim if it is > 0, else the first vector's,
// which then sets *dim. It returns the vectors or a description of the
// first problem ("text 2: component 7 is NaN, not a finite number").
func DecodeVectors(raws [][]json.RawMessage, dim *int) ([][]float32, string) {
	out := make([][]float32, len(raws))
	for i, raw := range raws {
		if len(raw) == 0 {
			return nil, fmt.Sprintf("text %d: empty vector", i)
		}
		if *dim == 0 {
			*dim = len(raw)
		}
		if len(raw) != *dim {
			return nil, fmt.Sprintf("text %d: vector has %d dimensions, want %d", i, len(raw), *dim)
		}
		v := make([]float32, len(raw))
		for j, r := range raw {
			var f float64
			if err := json.Unmarshal(r, &f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxFloat32 {
				return nil, fmt.Sprintf("text %d: component %d is %s, not a finite number", i, j, r)
			}
			v[j] = float32(f)
		}
		out[i] = v
	}
	return out, ""
}
