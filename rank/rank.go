package rank

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// Recipe defaults, chosen on the tune half of the codebase set (EVAL.md).
const (
	// DefaultCodeK1 and DefaultCodeB are the BM25 parameters of the code
	// arm: a low b penalises long chunks less.
	DefaultCodeK1 = 1.6
	DefaultCodeB  = 0.3
	// DefaultCodeWeight weights the code-analyzer arm against the language
	// arm (weight 1) in Combine.
	DefaultCodeWeight = 1.0
	// DefaultDocumentWeight is DocumentBlend's weight.
	DefaultDocumentWeight = 0.7
	// DefaultPairWeight, DefaultPairK1 and DefaultPairB are the
	// DocumentEvidence weight and the BM25 parameters of the word-pair arm
	// (PairText of the language analyzer's terms, indexed with
	// DefaultPairAnalyzer).
	DefaultPairWeight = 0.7
	DefaultPairK1     = 1.6
	DefaultPairB      = 0.3
	// DefaultPairAnalyzer is the bm25 analyzer of the word-pair arm: it
	// keeps every "left_right" pair token whole and unstemmed.
	DefaultPairAnalyzer = "standard"
	// DefaultDefinitionWeight weights the declaration arm (what a chunk of
	// source code declares, "func (r *Reader) Read", under the code
	// analyzer with DefaultCodeK1 and DefaultCodeB) against the language arm
	// in Combine; chosen on the tune half of the code-search set on GOROOT
	// (bench/codesearch, EVAL.md).
	DefaultDefinitionWeight = 1.25
	// DefaultCandidates is how many results each arm contributes before
	// Combine and DocumentBlend (the technique's "top 150").
	DefaultCandidates = 150
)

// Hit is one scored result of a retrieval arm.
type Hit struct {
	// ID identifies the chunk; it is unique within one list.
	ID string
	// Doc is the id of the document the chunk belongs to.
	Doc string
	// Score is non-negative; higher is better.
	Score float64
}

// ErrInvalid is wrapped by every error of this package.
var ErrInvalid = errors.New("rank: invalid input")

// Combine sums, per ID, the weighted scores of several ranked lists of the
// same query: score = Σ weights[i] × score in lists[i], an ID missing from a
// list contributing 0 (as a field the chunk does not match). The result holds
// every ID of any list, ordered by score descending, then ID ascending.
// An ID listed twice in one list, or listed with different documents, is an
// error, as are a negative, NaN or infinite weight or score and a weights
// slice whose length differs from the lists'.
func Combine(lists [][]Hit, weights []float64) ([]Hit, error) {
	return sorted(combine(&scratch{}, lists, weights))
}

// sorted orders the hits of a step that succeeded.
func sorted(hits []Hit, err error) ([]Hit, error) {
	if err != nil {
		return nil, err
	}
	sortHits(hits)
	return hits, nil
}

// scratch holds the maps and slices of the steps below. Fuse takes one
// from scratchPool, so that a server's searches do not allocate them anew
// (they were two fifths of what a search allocated); the exported steps use
// a new one.
type scratch struct {
	pos  map[string]int
	best map[string]float64
	seen map[string]bool
	last []int
	hits []Hit
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// reset empties sc's maps, and its slices, which must not keep strings
// alive in the pool.
func (sc *scratch) reset() {
	clear(sc.pos)
	clear(sc.best)
	clear(sc.seen)
	clear(sc.hits[:cap(sc.hits)])
	sc.hits, sc.last = sc.hits[:0], sc.last[:0]
}

// cloneHits copies hits into a new slice, never nil.
func cloneHits(hits []Hit) []Hit { return append(make([]Hit, 0, len(hits)), hits...) }

// bestMap returns sc.best, empty.
func (sc *scratch) bestMap(n int) map[string]float64 {
	if sc.best == nil {
		sc.best = make(map[string]float64, n)
	}
	clear(sc.best)
	return sc.best
}

// combine is Combine in no particular order, into sc.hits; the other
// unexported steps below are likewise unordered, and change the scores of
// the hits given in place, for Fuse, which orders only the end.
func combine(sc *scratch, lists [][]Hit, weights []float64) ([]Hit, error) {
	if len(weights) != len(lists) {
		return nil, fmt.Errorf("rank combine: %d weights for %d lists: %w", len(weights), len(lists), ErrInvalid)
	}
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if sc.pos == nil {
		sc.pos = make(map[string]int, n)
	}
	pos := sc.pos
	clear(pos)
	out := slices.Grow(sc.hits[:0], n)
	// last[p] is the list that last added to out[p]: an ID twice in one
	// list is an error.
	last := slices.Grow(sc.last[:0], n)
	defer func() { sc.hits, sc.last = out, last }()
	for i, l := range lists {
		w := weights[i]
		if err := checkNumber(w); err != nil {
			return nil, fmt.Errorf("rank combine: weights[%d]: %w", i, err)
		}
		for j, h := range l {
			if err := checkNumber(h.Score); err != nil {
				return nil, fmt.Errorf("rank combine: lists[%d][%d] %q: Score: %w", i, j, h.ID, err)
			}
			p, ok := pos[h.ID]
			if !ok {
				pos[h.ID] = len(out)
				out = append(out, Hit{ID: h.ID, Doc: h.Doc, Score: w * h.Score})
				last = append(last, i)
				continue
			}
			if last[p] == i {
				return nil, fmt.Errorf("rank combine: lists[%d][%d]: duplicate ID %q: %w", i, j, h.ID, ErrInvalid)
			}
			last[p] = i
			if out[p].Doc != h.Doc {
				return nil, fmt.Errorf("rank combine: lists[%d][%d]: ID %q in document %q and %q: %w", i, j, h.ID, out[p].Doc, h.Doc, ErrInvalid)
			}
			out[p].Score += w * h.Score
		}
	}
	return out, nil
}

// DocumentBlend adds to every hit's score weight × the best score among the
// hits of its document, and returns the hits in the new order (score
// descending, then ID ascending). A chunk whose document matches the query
// strongly elsewhere thus moves up, and a lone chunk of an otherwise
// unrelated document moves down relative to it; the order of chunks within
// one document is unchanged, and weight 0 only re-sorts. Only the hits given
// are seen, so pass each arm's whole candidate list, not the final top k.
// A negative, NaN or infinite weight or score is an error.
func DocumentBlend(hits []Hit, weight float64) ([]Hit, error) {
	return sorted(documentBlend(&scratch{}, cloneHits(hits), weight))
}

func documentBlend(sc *scratch, hits []Hit, weight float64) ([]Hit, error) {
	if err := checkNumber(weight); err != nil {
		return nil, fmt.Errorf("rank document blend: weight: %w", err)
	}
	best := sc.bestMap(len(hits))
	for i, h := range hits {
		if err := checkNumber(h.Score); err != nil {
			return nil, fmt.Errorf("rank document blend: hits[%d] %q: Score: %w", i, h.ID, err)
		}
		if s, ok := best[h.Doc]; !ok || h.Score > s {
			best[h.Doc] = h.Score
		}
	}
	for i := range hits {
		hits[i].Score += weight * best[hits[i].Doc]
	}
	return hits, nil
}

// DocumentEvidence adds to every hit's score weight × the best score of
// any hit of the same document in evidence, a ranked list from another arm
// of the same query (the word-pair arm in the recipe), and returns the hits
// in the new order (score descending, then ID ascending). A hit whose
// document has no hit in evidence gains nothing; evidence hits whose
// document has no hit in hits are ignored. Like DocumentBlend it never
// changes the order of the chunks of one document: the evidence says which
// documents match, the chunk arms which of their chunks. Only the evidence
// given is seen, so pass the arm's whole candidate list.
// A negative, NaN or infinite weight or score is an error, as is an ID
// listed twice in hits.
func DocumentEvidence(hits, evidence []Hit, weight float64) ([]Hit, error) {
	return sorted(documentEvidence(&scratch{}, cloneHits(hits), evidence, weight, true))
}

// documentEvidence checks that the IDs of hits are unique if checkIDs (Fuse
// passes it combine's hits, unique by construction).
func documentEvidence(sc *scratch, hits, evidence []Hit, weight float64, checkIDs bool) ([]Hit, error) {
	if err := checkNumber(weight); err != nil {
		return nil, fmt.Errorf("rank document evidence: weight: %w", err)
	}
	best := sc.bestMap(len(evidence))
	for i, h := range evidence {
		if err := checkNumber(h.Score); err != nil {
			return nil, fmt.Errorf("rank document evidence: evidence[%d] %q: Score: %w", i, h.ID, err)
		}
		if s, ok := best[h.Doc]; !ok || h.Score > s {
			best[h.Doc] = h.Score
		}
	}
	if checkIDs && sc.seen == nil {
		sc.seen = make(map[string]bool, len(hits))
	}
	for i := range hits {
		h := &hits[i]
		if err := checkNumber(h.Score); err != nil {
			return nil, fmt.Errorf("rank document evidence: hits[%d] %q: Score: %w", i, h.ID, err)
		}
		if checkIDs {
			if sc.seen[h.ID] {
				return nil, fmt.Errorf("rank document evidence: hits[%d]: duplicate ID %q: %w", i, h.ID, ErrInvalid)
			}
			sc.seen[h.ID] = true
		}
		h.Score += weight * best[h.Doc]
	}
	return hits, nil
}

// sortHits orders hits by score descending, ties by ID ascending, in place.
// (slices.SortFunc rather than sort.Slice: 41 against 46-50 µs for 450
// hits with tied scores.)
func sortHits(hits []Hit) {
	slices.SortFunc(hits, func(a, b Hit) int { return compareHits(&a, &b) })
}

// compareHits is the order of this package's results: score descending,
// then ID ascending.
func compareHits(a, b *Hit) int {
	if a.Score != b.Score {
		if a.Score > b.Score {
			return -1
		}
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}

func checkNumber(x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return fmt.Errorf("must be a finite number >= 0, got %v: %w", x, ErrInvalid)
	}
	return nil
}
