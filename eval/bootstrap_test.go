package eval

import (
	"math"
	"sort"
	"testing"
)

// exactDistribution enumerates all n^n resamples of values (each equally
// likely) and returns the distribution of their means as sorted atoms with
// their cumulative probabilities.
func exactDistribution(values []float64) (atoms, cdf []float64) {
	n := len(values)
	prob := map[float64]float64{}
	idx := make([]int, n)
	total := int(math.Pow(float64(n), float64(n)))
	for c := 0; c < total; c++ {
		x := c
		s := 0.0
		for range idx {
			s += values[x%n]
			x /= n
		}
		m := math.Round(s/float64(n)*1e9) / 1e9
		prob[m] += 1 / float64(total)
	}
	for a := range prob {
		atoms = append(atoms, a)
	}
	sort.Float64s(atoms)
	acc := 0.0
	for _, a := range atoms {
		acc += prob[a]
		cdf = append(cdf, acc)
	}
	return atoms, cdf
}

// exactQuantile is the smallest atom whose CDF reaches p, and how far p is
// from the nearest CDF step (a sampled quantile is only reliable away from
// one).
func exactQuantile(atoms, cdf []float64, p float64) (q, margin float64) {
	margin = 1
	for _, c := range cdf {
		margin = min(margin, math.Abs(c-p))
	}
	for i, c := range cdf {
		if c >= p-1e-12 {
			return atoms[i], margin
		}
	}
	return atoms[len(atoms)-1], margin
}

// TestBootstrapExact checks the bootstrap interval against the exact
// bootstrap distribution computed by enumerating every resample of 3 and 4
// questions (hit@k-like 0/1 values and MRR-like fractions).
func TestBootstrapExact(t *testing.T) {
	cases := [][]float64{
		{0, 0, 1, 1},
		{1, 0.5, 0},
		{1, 1, 0.25, 0.2},
		{0, 1, 1},
	}
	checked := 0
	for _, vs := range cases {
		atoms, cdf := exactDistribution(vs)
		for _, level := range []float64{0.5, 0.8, 0.9, 0.95} {
			got := Bootstrap(vs, 200000, 1, level)
			a := (1 - level) / 2
			lo, m1 := exactQuantile(atoms, cdf, a)
			hi, m2 := exactQuantile(atoms, cdf, 1-a)
			mean := 0.0
			for _, v := range vs {
				mean += v
			}
			mean /= float64(len(vs))
			if math.Abs(got.Mean-mean) > 1e-12 {
				t.Errorf("%v: mean %g, want %g", vs, got.Mean, mean)
			}
			// 200000 resamples put the empirical CDF within ~0.001 of
			// the exact one; skip quantiles that sit closer to a step.
			if m1 > 0.005 && math.Abs(got.Lo-lo) > 1e-9 {
				t.Errorf("%v level %g: lo %g, exact %g", vs, level, got.Lo, lo)
			}
			if m2 > 0.005 && math.Abs(got.Hi-hi) > 1e-9 {
				t.Errorf("%v level %g: hi %g, exact %g", vs, level, got.Hi, hi)
			}
			if m1 > 0.005 && m2 > 0.005 {
				checked++
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d intervals were far enough from a CDF step to check", checked)
	}
	if a, b := Bootstrap([]float64{1, 0, 1}, 1000, 9, 0.95), Bootstrap([]float64{1, 0, 1}, 1000, 9, 0.95); a != b {
		t.Errorf("same seed, different intervals: %+v %+v", a, b)
	}
	if got := Bootstrap(nil, 10, 1, 0.95); got.Mean != 0 || got.Lo != 0 || got.Hi != 0 {
		t.Errorf("empty sample: %+v", got)
	}
}

func TestIntervals(t *testing.T) {
	perQ := []QueryResult{
		{Metrics: map[string]float64{KeyHit5: 1, KeyMRR10: 0.5}},
		{Metrics: map[string]float64{KeyHit5: 0, KeyMRR10: 0}},
		{Metrics: map[string]float64{KeyHit5: 1}},
	}
	iv := Intervals(perQ, []string{KeyHit5, KeyMRR10, KeyHit1}, 2000, 3, 0.95)
	if h := iv[KeyHit5]; math.Abs(h.Mean-2.0/3) > 1e-12 || h.Lo > h.Mean || h.Hi < h.Mean || h.Lo != 0 || h.Hi != 1 {
		t.Errorf("hit@5 %+v", h)
	}
	if m := iv[KeyMRR10]; m.Mean != 0.25 {
		t.Errorf("mrr@10 %+v (two questions have it)", m)
	}
	if _, ok := iv[KeyHit1]; ok {
		t.Error("a metric no question has got an interval")
	}
}
