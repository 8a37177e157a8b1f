package vector

import (
	"fmt"
	"runtime"
)

// Metrics.
const (
	// MetricCosine normalises every vector and every query to unit length
	// on the way in; scores are cosine similarities in [-1, 1].
	MetricCosine = "cosine"
	// MetricDot scores by the raw inner product.
	MetricDot = "dot"
)

// Defaults.
const (
	// DefaultQuantizeAbove is the live vector count above which Search
	// runs the binary (sign bit) first pass before exact rescoring.
	DefaultQuantizeAbove = 20000
	// DefaultRescoreFactor and DefaultMinRescore give the default number
	// of first-pass candidates rescored exactly: max(factor*k, min).
	DefaultRescoreFactor = 10
	DefaultMinRescore    = 200
	// DefaultMaxSegments is how many segment files an index may have
	// before a commit merges the smallest of them.
	DefaultMaxSegments = 16
)

// Options configure an Index. The zero value of every field but Dim means
// its default.
type Options struct {
	// Dim is the vector dimension, fixed when the index is created. Open
	// of an existing index accepts 0 (take it from the index) or the
	// stored value.
	Dim int
	// Metric is MetricCosine (default) or MetricDot.
	Metric string
	// QuantizeAbove: Search uses the binary first pass when the index
	// holds more than this many live vectors. 0 means
	// DefaultQuantizeAbove; negative means never (always exact).
	QuantizeAbove int
	// Rescore is how many first-pass candidates are rescored with exact
	// float32 dot products. 0 means max(DefaultRescoreFactor*k,
	// DefaultMinRescore). The result is exact whenever Rescore >= the
	// number of vectors the filter allows. The default suits data with
	// clear neighbours (recall@10 1.0 on clustered benchmark data); where
	// neighbours barely stand out (iid Gaussian data) 200 candidates give
	// recall@10 0.34 and about 10% of the corpus is needed for 0.95 (see
	// bench/vector-*.txt).
	Rescore int
	// MaxSegments bounds the number of segments (files) before commits
	// merge the smallest ones. 0 means DefaultMaxSegments.
	MaxSegments int
	// Workers is how many goroutines one search scans with. 0 means
	// GOMAXPROCS.
	Workers int
}

// withDefaults validates o and fills in defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Dim <= 0 {
		return o, fmt.Errorf("vector options: Dim: must be > 0, got %d", o.Dim)
	}
	switch o.Metric {
	case "":
		o.Metric = MetricCosine
	case MetricCosine, MetricDot:
	default:
		return o, fmt.Errorf("vector options: Metric: must be %q or %q, got %q", MetricCosine, MetricDot, o.Metric)
	}
	if o.QuantizeAbove == 0 {
		o.QuantizeAbove = DefaultQuantizeAbove
	}
	if o.Rescore < 0 {
		return o, fmt.Errorf("vector options: Rescore: must be >= 0, got %d", o.Rescore)
	}
	if o.MaxSegments == 0 {
		o.MaxSegments = DefaultMaxSegments
	}
	if o.MaxSegments < 2 {
		return o, fmt.Errorf("vector options: MaxSegments: must be >= 2, got %d", o.MaxSegments)
	}
	if o.Workers < 0 {
		return o, fmt.Errorf("vector options: Workers: must be >= 0, got %d", o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o, nil
}

// rescoreCount is the number of first-pass candidates rescored for k.
func (o Options) rescoreCount(k int) int {
	if o.Rescore > 0 {
		return max(o.Rescore, k)
	}
	return max(DefaultRescoreFactor*k, DefaultMinRescore)
}
