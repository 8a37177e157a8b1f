package glove

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/situate/situate/driver"
)

// Weightings of word vectors in a text's mean.
const (
	WeightingMean = "mean" // every known word counts once
	WeightingSIF  = "sif"  // smooth inverse frequency, a/(a+p(w))
)

// Defaults.
const (
	// DefaultWeighting is SIF: on the codebase set (Claude contexts) and
	// XQuAD en it beat the plain mean as a dense arm (EVAL.md).
	DefaultWeighting = WeightingSIF
	// DefaultSIFA is SIF's smoothing constant a (Arora et al. recommend
	// 1e-3 to 1e-4).
	DefaultSIFA = 1e-3
)

// Options configure an Embedder.
type Options struct {
	// Path is the vectors file or a directory holding it; empty means
	// DefaultDir.
	Path string
	// Weighting is WeightingMean or WeightingSIF; empty means
	// DefaultWeighting.
	Weighting string
	// SIFA is SIF's a; 0 means DefaultSIFA.
	SIFA float64
}

// ParseSpec reads the model part of "--embed glove:SPEC": "PATH",
// "sif:PATH", "mean:PATH", or empty (DefaultDir, DefaultWeighting).
func ParseSpec(spec string) Options {
	for _, w := range []string{WeightingMean, WeightingSIF} {
		if rest, ok := strings.CutPrefix(spec, w+":"); ok {
			return Options{Path: rest, Weighting: w}
		}
		if spec == w {
			return Options{Weighting: w}
		}
	}
	return Options{Path: spec}
}

// Embedder embeds texts as the normalised mean of their words' GloVe
// vectors. It is safe for concurrent use.
type Embedder struct {
	t      *table
	name   string
	weight []float32 // per word; nil means 1
	common []float32 // unit common direction removed from every mean
}

var _ driver.Embedder = (*Embedder)(nil)

// New loads the vectors (once per process and file) and returns an
// Embedder.
func New(o Options) (*Embedder, error) {
	if o.Weighting == "" {
		o.Weighting = DefaultWeighting
	}
	if o.Weighting != WeightingMean && o.Weighting != WeightingSIF {
		return nil, fmt.Errorf("glove: Weighting: must be %s or %s, got %q: %w", WeightingMean, WeightingSIF, o.Weighting, driver.ErrInvalid)
	}
	if o.SIFA == 0 {
		o.SIFA = DefaultSIFA
	}
	if o.SIFA < 0 || math.IsNaN(o.SIFA) || math.IsInf(o.SIFA, 0) {
		return nil, fmt.Errorf("glove: SIFA: must be > 0, got %g: %w", o.SIFA, driver.ErrInvalid)
	}
	file, err := resolve(o.Path)
	if err != nil {
		return nil, err
	}
	t, err := loadTable(file)
	if err != nil {
		return nil, err
	}
	e := &Embedder{t: t, name: "glove:" + modelName(file)}
	// p(w) by Zipf's law over frequency ranks: p(r) = 1 / ((r+1) H_n).
	n := t.size()
	h := math.Log(float64(n)) + 0.5772156649
	if o.Weighting != DefaultWeighting {
		e.name += "+" + o.Weighting
	}
	if o.Weighting == WeightingSIF {
		if o.SIFA != DefaultSIFA {
			e.name += fmt.Sprintf("+sif(a=%g)", o.SIFA)
		}
		e.weight = make([]float32, n)
		for r := range n {
			p := 1 / (float64(r+1) * h)
			e.weight[r] = float32(o.SIFA / (o.SIFA + p))
		}
	}
	// The common component: the expected text vector under the unigram
	// model, Σ p(w) weight(w) v(w).
	c := make([]float64, t.dim)
	for r := range n {
		p := 1 / (float64(r+1) * h)
		if e.weight != nil {
			p *= float64(e.weight[r])
		}
		for j, v := range t.row(int32(r)) {
			c[j] += p * float64(v)
		}
	}
	e.common = normalize(c)
	return e, nil
}

func modelName(file string) string {
	if filepath.Base(file) == WinkFile {
		return "wink-sg-100d"
	}
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// Name is "glove:wink-sg-100d" for the wink vectors ("glove:FILE" for
// another file) with the default weighting, "+mean" appended for the plain
// mean and "+sif(a=A)" for a non-default SIF constant.
func (e *Embedder) Name() string { return e.name }

// Dim is the vector dimension.
func (e *Embedder) Dim() int { return e.t.dim }

// Embed returns one unit vector per text; queries and documents are
// embedded alike.
func (e *Embedder) Embed(ctx context.Context, texts []string, _ driver.InputType) ([][]float32, error) {
	out := make([][]float32, len(texts))
	sum := make([]float64, e.t.dim)
	for i, text := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("glove embed: %w", err)
			}
		}
		out[i] = e.embed(text, sum)
	}
	return out, nil
}

func (e *Embedder) embed(text string, sum []float64) []float32 {
	clear(sum)
	total := 0.0
	Words(text, func(w string) bool {
		_, ok := e.t.index[w]
		return ok
	}, func(w string) {
		r := e.t.index[w]
		wt := 1.0
		if e.weight != nil {
			wt = float64(e.weight[r])
		}
		for j, v := range e.t.row(r) {
			sum[j] += wt * float64(v)
		}
		total += wt
	})
	if total > 0 {
		dot := 0.0
		for j, v := range sum {
			dot += v * float64(e.common[j])
		}
		for j := range sum {
			sum[j] -= dot * float64(e.common[j])
		}
		if v := normalize(sum); v != nil {
			return v
		}
	}
	return hashVector(text, e.t.dim)
}

// normalize returns v scaled to unit length as float32, or nil when its
// norm is (numerically) zero.
func normalize(v []float64) []float32 {
	n := 0.0
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	if n < 1e-9 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// hashVector is the deterministic unit vector of a text with no known word:
// splitmix64 seeded by the text's FNV-1a hash, uniform in [-1, 1) per
// component, normalised.
func hashVector(text string, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	s := h.Sum64()
	v := make([]float64, dim)
	for {
		for i := range v {
			s += 0x9e3779b97f4a7c15
			z := s
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
			z = (z ^ (z >> 27)) * 0x94d049bb133111eb
			z ^= z >> 31
			v[i] = float64(z>>11)/(1<<52) - 1
		}
		if out := normalize(v); out != nil {
			return out
		}
	}
}

// Words calls emit with every word of text, lowercased: maximal runs of
// letters and digits. A run known reports false for is split at camelCase,
// acronym and letter/digit boundaries, and each part is emitted if known
// (parts known rejects are dropped). known may be nil (keep everything,
// whole runs).
func Words(text string, known func(string) bool, emit func(string)) {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			j += size
		}
		run := text[i:j]
		i = j
		whole := strings.ToLower(run)
		if known == nil {
			emit(whole)
			continue
		}
		if known(whole) {
			emit(whole)
			continue
		}
		for _, p := range splitIdentifier(run) {
			if p = strings.ToLower(p); p != whole && known(p) {
				emit(p)
			}
		}
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// splitIdentifier splits a run of letters and digits at lower→upper
// ("parseHeader"), acronym→word ("HTTPServer" → HTTP, Server) and
// letter↔digit boundaries.
func splitIdentifier(s string) []string {
	rs := []rune(s)
	var parts []string
	start := 0
	for k := 1; k < len(rs); k++ {
		prev, cur := rs[k-1], rs[k]
		split := false
		switch {
		case unicode.IsDigit(prev) != unicode.IsDigit(cur):
			split = true
		case unicode.IsLower(prev) && unicode.IsUpper(cur):
			split = true
		case unicode.IsUpper(prev) && unicode.IsUpper(cur) && k+1 < len(rs) && unicode.IsLower(rs[k+1]):
			split = true
		}
		if split {
			parts = append(parts, string(rs[start:k]))
			start = k
		}
	}
	return append(parts, string(rs[start:]))
}
