package vector

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/situate/situate/internal/lockfile"
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
	// DefaultEpsilon is how many standard errors of the first-pass
	// estimate a row's upper bound allows. Measured on 100k 1024-d
	// vectors (bench/vector-*.txt): recall@10 0.986 on iid Gaussian data
	// (the worst case; 4% of rows rescored), 0.987 on diffuse clusters,
	// 1.0 on clustered and anisotropic data (200 rows rescored). RaBitQ's
	// 1.9 gives 0.999 on Gaussian data at 1.8× the rescoring.
	DefaultEpsilon = 1.5
	// DefaultBoundDepth is how many of a quantized search's top results
	// the bound pass protects (see Options.BoundDepth).
	DefaultBoundDepth = 20
	// DefaultMaxSegments is how many segment files an index may have
	// before a commit merges the smallest of them.
	DefaultMaxSegments = 16
	// DefaultLockWait is how long Open waits for another writer to release
	// an index directory before failing with ErrLocked.
	DefaultLockWait = 5 * time.Second
	// maxDim bounds the dimension a manifest may claim.
	maxDim = 1 << 20
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
	// Rescore is how many rows with the best first-pass estimates are
	// rescored with exact float32 dot products before the bound pass
	// (see Epsilon). 0 means max(DefaultRescoreFactor*k,
	// DefaultMinRescore). The result is exact whenever Rescore >= the
	// number of vectors the filter allows.
	Rescore int
	// Epsilon widens each row's first-pass upper bound: after the Rescore
	// best estimates are scored exactly, every row whose estimate plus
	// Epsilon standard errors reaches the k-th exact score is scored
	// exactly too. Larger is slower and closer to exact. 0 means
	// DefaultEpsilon; negative means no bound pass (only Rescore rows).
	Epsilon float64
	// BoundDepth is how many of the top results the bound pass protects:
	// its floor is the min(k, BoundDepth)-th exact score. Results below
	// that rank come from the Rescore best estimates, scored exactly but
	// possibly missing rows the first pass underrated. A search for k =
	// 150 fusion candidates then costs about what one for 20 does. 0
	// means DefaultBoundDepth.
	BoundDepth int
	// MaxSegments bounds the number of segments (files) before commits
	// merge the smallest ones. 0 means DefaultMaxSegments.
	MaxSegments int
	// Workers is how many goroutines one search scans with. 0 means
	// GOMAXPROCS.
	Workers int
	// LockWait is how long Open waits for the write lock another process
	// holds: 0 means DefaultLockWait, negative means fail at once.
	// OpenReadOnly takes no lock.
	LockWait time.Duration
}

func (o Options) lockWait() time.Duration { return lockfile.Wait(o.LockWait, DefaultLockWait) }

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
	if o.Epsilon == 0 {
		o.Epsilon = DefaultEpsilon
	}
	if math.IsNaN(o.Epsilon) || math.IsInf(o.Epsilon, 0) {
		return o, fmt.Errorf("vector options: Epsilon: must be a finite number, got %v", o.Epsilon)
	}
	if o.BoundDepth == 0 {
		o.BoundDepth = DefaultBoundDepth
	}
	if o.BoundDepth < 0 {
		return o, fmt.Errorf("vector options: BoundDepth: must be >= 0, got %d", o.BoundDepth)
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
