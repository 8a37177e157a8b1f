package eval

import (
	"math"
	"math/rand/v2"
	"sort"
)

// DefaultResamples is the number of bootstrap resamples Bootstrap draws
// when asked for 0.
const DefaultResamples = 10000

// Interval is a metric's mean over questions with a bootstrap confidence
// interval.
type Interval struct {
	Mean, Lo, Hi float64
	Level        float64 // e.g. 0.95
}

// Bootstrap is the percentile bootstrap over questions: it draws resamples
// samples of len(values) values with replacement (seeded, so reproducible),
// and returns the sample mean with the (1-level)/2 and 1-(1-level)/2
// quantiles of the resampled means, each quantile being the smallest
// resampled mean whose empirical CDF reaches it (the inverse-CDF
// definition). An empty sample gives the zero Interval.
func Bootstrap(values []float64, resamples int, seed uint64, level float64) Interval {
	n := len(values)
	if n == 0 {
		return Interval{Level: level}
	}
	if resamples <= 0 {
		resamples = DefaultResamples
	}
	mean := 0.0
	for _, v := range values {
		mean += v
	}
	mean /= float64(n)
	rng := rand.New(rand.NewPCG(seed, 0xb0075))
	means := make([]float64, resamples)
	for r := range means {
		s := 0.0
		for range n {
			s += values[rng.IntN(n)]
		}
		means[r] = s / float64(n)
	}
	sort.Float64s(means)
	a := (1 - level) / 2
	return Interval{Mean: mean, Lo: quantile(means, a), Hi: quantile(means, 1-a), Level: level}
}

// quantile is the inverse empirical CDF of sorted values at p.
func quantile(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Intervals bootstraps each metric over the evaluated questions of a run
// (the per-query metrics Evaluate returns); questions without the metric
// are left out of its sample.
func Intervals(perQ []QueryResult, keys []string, resamples int, seed uint64, level float64) map[string]Interval {
	out := map[string]Interval{}
	for _, k := range keys {
		var vs []float64
		for _, q := range perQ {
			if v, ok := q.Metrics[k]; ok {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			out[k] = Bootstrap(vs, resamples, seed, level)
		}
	}
	return out
}
