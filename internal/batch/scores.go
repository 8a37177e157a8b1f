package batch

import (
	"fmt"
	"math"
)

// Scored is one reranker result as the wire has it: nil means missing.
type Scored struct {
	Index *int
	Score *float64
}

// PlaceScores puts a batch's results (ordered by relevance) into dst by
// their index, checking that there is one per text, each with an index in
// range, used once, and a finite score. list and field name the results
// in the messages as the provider's JSON does ("results", "relevance_score"
// give "results[2].relevance_score is NaN"). It returns a description of
// the first problem, or "".
func PlaceScores(results []Scored, dst []float64, list, field string) string {
	n := len(dst)
	if len(results) != n {
		return fmt.Sprintf("got %d scores for %d texts", len(results), n)
	}
	seen := make([]bool, n)
	for i, r := range results {
		if r.Index == nil || r.Score == nil {
			return fmt.Sprintf("%s[%d] lacks index or %s", list, i, field)
		}
		idx := *r.Index
		if idx < 0 || idx >= n || seen[idx] {
			return fmt.Sprintf("%s[%d].index %d is out of range or repeated (batch of %d)", list, i, idx, n)
		}
		if s := *r.Score; math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Sprintf("%s[%d].%s is %v", list, i, field, s)
		}
		seen[idx] = true
	}
	for _, r := range results {
		dst[*r.Index] = *r.Score
	}
	return ""
}
