package fusion

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Defaults.
const (
	// DefaultRRFK is the reciprocal rank fusion constant, Elasticsearch's
	// default rank_constant (and Cormack et al.'s k).
	DefaultRRFK = 60.0
	// CookbookSemanticWeight and CookbookBM25Weight are the weights the
	// Anthropic cookbook's retrieve_advanced gives the semantic and the BM25
	// arm.
	CookbookSemanticWeight = 0.8
	CookbookBM25Weight     = 0.2
	// CookbookCandidates is how many results the cookbook takes from each
	// arm before fusing (num_chunks_to_recall).
	CookbookCandidates = 150
)

// List is one arm's ranked result list, best first.
type List struct {
	// Weight multiplies the arm's contribution. Must be finite and >= 0.
	Weight float64
	// IDs are the arm's results, best first. An ID repeated within one list
	// keeps the rank of its first occurrence; later occurrences are ignored
	// (the rank positions they occupy are not reused), as Python's
	// list.index does in the cookbook.
	IDs []string
	// Scores are the arm's scores, higher is better, parallel to IDs.
	// Needed by MinMax and RelativeScore only; ignored by RRF and Cookbook.
	Scores []float64
	// Min, when set, is the lowest score the arm can produce (0 for BM25,
	// -1 for cosine similarity). MinMax then normalises by [Min, observed
	// max] instead of the observed [min, max] ("theoretical min-max", Bruch
	// et al. 2023). RelativeScore ignores it, as Weaviate does.
	Min *float64
}

// Result is one fused result.
type Result struct {
	ID string
	// Score is the fused score the results are ordered by.
	Score float64
	// Ranks holds the ID's 1-based rank in each input list, in the order the
	// lists were given; 0 means the list did not contain the ID.
	Ranks []int
}

// entry accumulates one ID while fusing.
type entry struct {
	id    string
	score float64
	ranks []int
}

// collect walks the lists, calling add(entry, list index, 0-based position,
// score index) for the first occurrence of every ID in every list, and
// returns the entries in first-seen order (list by list, position by
// position).
func collect(lists []List, add func(e *entry, li, pos int)) []*entry {
	n := 0
	for _, l := range lists {
		n += len(l.IDs)
	}
	byID := make(map[string]*entry, n)
	out := make([]*entry, 0, n)
	pool := make([]entry, 0, n)           // cap n: pointers into it stay valid
	ranks := make([]int, 0, n*len(lists)) // one backing array for all Ranks
	for li, l := range lists {
		for pos, id := range l.IDs {
			e, ok := byID[id]
			if !ok {
				ranks = ranks[:len(ranks)+len(lists)]
				pool = append(pool, entry{id: id, ranks: ranks[len(ranks)-len(lists) : len(ranks) : len(ranks)]})
				e = &pool[len(pool)-1]
				byID[id] = e
				out = append(out, e)
			}
			if e.ranks[li] != 0 {
				continue // repeated within this list: first occurrence wins
			}
			e.ranks[li] = pos + 1
			add(e, li, pos)
		}
	}
	return out
}

func results(es []*entry) []Result {
	out := make([]Result, len(es))
	for i, e := range es {
		out[i] = Result{ID: e.id, Score: e.score, Ranks: e.ranks}
	}
	return out
}

// byScoreThenID orders by score descending, then ID ascending.
func byScoreThenID(a, b *entry) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return strings.Compare(a.id, b.id)
}

func checkWeights(op string, lists []List) error {
	for i, l := range lists {
		if math.IsNaN(l.Weight) || math.IsInf(l.Weight, 0) || l.Weight < 0 {
			return fmt.Errorf("fusion %s: lists[%d].Weight: must be finite and >= 0, got %v", op, i, l.Weight)
		}
	}
	return nil
}

func checkScores(op string, lists []List) error {
	for i, l := range lists {
		if len(l.Scores) != len(l.IDs) {
			return fmt.Errorf("fusion %s: lists[%d].Scores: %d scores for %d IDs", op, i, len(l.Scores), len(l.IDs))
		}
		for j, s := range l.Scores {
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return fmt.Errorf("fusion %s: lists[%d].Scores[%d] (ID %q): must be finite, got %v", op, i, j, l.IDs[j], s)
			}
		}
		if l.Min != nil {
			if m := *l.Min; math.IsNaN(m) || math.IsInf(m, 0) {
				return fmt.Errorf("fusion %s: lists[%d].Min: must be finite, got %v", op, i, m)
			}
		}
	}
	return nil
}

// RRF fuses lists by weighted reciprocal rank:
//
//	score(d) = Σ over lists containing d of  Weight / (k + rank(d))
//
// with rank 1-based (the best result has rank 1), as Elasticsearch's rrf
// retriever computes it; k <= 0 means DefaultRRFK. Ties are broken by ID
// ascending.
func RRF(k float64, lists ...List) ([]Result, error) {
	if math.IsNaN(k) || math.IsInf(k, 0) {
		return nil, fmt.Errorf("fusion rrf: k: must be finite, got %v", k)
	}
	if k <= 0 {
		k = DefaultRRFK
	}
	if err := checkWeights("rrf", lists); err != nil {
		return nil, err
	}
	es := collect(lists, func(e *entry, li, pos int) {
		// The conversion rounds the quotient, so the compiler cannot fuse
		// it with the sum: results are the same on every architecture.
		e.score += float64(lists[li].Weight / (k + float64(pos+1)))
	})
	slices.SortFunc(es, byScoreThenID)
	return results(es), nil
}

// ChunkKey splits an ID into the (doc_id, original_index) pair the cookbook
// identifies chunks by, for CookbookKeyed's tie-breaking.
type ChunkKey func(id string) (doc string, index int)

// SplitChunkID returns a ChunkKey for IDs of the form doc + sep + index
// (split at the last sep). An ID without sep, or whose suffix is not an
// integer, becomes (id, 0).
func SplitChunkID(sep string) ChunkKey {
	return func(id string) (string, int) {
		i := strings.LastIndex(id, sep)
		if i < 0 {
			return id, 0
		}
		n, err := strconv.Atoi(id[i+len(sep):])
		if err != nil {
			return id, 0
		}
		return id[:i], n
	}
}

// Cookbook fuses lists exactly as the Anthropic cookbook's Contextual
// Retrieval guide does (skills/contextual-embeddings/guide.ipynb,
// retrieve_advanced): weighted reciprocal rank WITHOUT a constant,
//
//	score(d) = Σ over lists containing d of  Weight * (1 / (index(d) + 1))
//
// index being the 0-based position of d's first occurrence (so the term is
// Weight/rank with rank 1-based), summed list by list in the order given
// (the cookbook passes the semantic list first with 0.8, then BM25 with
// 0.2: see CookbookSemanticWeight). An ID present in one list only gets
// that list's term alone. Each term is rounded to float64 before it is
// added, as Python evaluates it.
//
// The cookbook sorts the combined IDs with
// sorted(key=(score, doc_id, original_index), reverse=True): score
// descending, ties by the ID descending. Its IDs are (doc_id,
// original_index) tuples, all distinct, so the order never depends on the
// iteration order of the Python set it built them from and is fully
// deterministic. Cookbook compares whole string IDs descending (byte order,
// which is Python's code-point order for UTF-8); use CookbookKeyed to
// compare (doc, index) pairs as the cookbook's tuples do.
//
// The cookbook then keeps the first k and replaces each score by
// 1/(position+1); Cookbook returns every fused ID, and Result.Score keeps
// the weighted sum that ordered them.
func Cookbook(lists ...List) ([]Result, error) {
	return cookbook(nil, lists)
}

// CookbookKeyed is Cookbook with the cookbook's tuple tie-break: ties are
// ordered by doc descending, then by index descending (numerically, so
// "d#10" comes before "d#9").
func CookbookKeyed(key ChunkKey, lists ...List) ([]Result, error) {
	if key == nil {
		return nil, fmt.Errorf("fusion cookbook: key: must not be nil")
	}
	return cookbook(key, lists)
}

func cookbook(key ChunkKey, lists []List) ([]Result, error) {
	if err := checkWeights("cookbook", lists); err != nil {
		return nil, err
	}
	// Python accumulates each ID's score over the lists in the order given,
	// starting from the integer 0: collect visits list by list, so the sum
	// for every ID is formed in that same order.
	es := collect(lists, func(e *entry, li, pos int) {
		e.score += float64(lists[li].Weight * (1 / float64(pos+1)))
	})
	if key == nil {
		slices.SortFunc(es, func(a, b *entry) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return strings.Compare(b.id, a.id)
		})
		return results(es), nil
	}
	type keyed struct {
		e     *entry
		doc   string
		index int
	}
	ks := make([]keyed, len(es))
	for i, e := range es {
		d, n := key(e.id)
		ks[i] = keyed{e, d, n}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(b.e.score, a.e.score); c != 0 {
			return c
		}
		if c := strings.Compare(b.doc, a.doc); c != 0 {
			return c
		}
		if c := cmp.Compare(b.index, a.index); c != 0 {
			return c
		}
		return strings.Compare(b.e.id, a.e.id) // distinct IDs with one key
	})
	for i := range ks {
		es[i] = ks[i].e
	}
	return results(es), nil
}

// bounds returns each list's normalisation range: the observed minimum (or
// List.Min when useMin) and the observed maximum.
func bounds(l List, useMin bool) (lo, hi float64) {
	if len(l.Scores) == 0 {
		return 0, 0
	}
	lo, hi = l.Scores[0], l.Scores[0]
	for _, s := range l.Scores[1:] {
		lo = min(lo, s)
		hi = max(hi, s)
	}
	if useMin && l.Min != nil {
		lo = min(*l.Min, lo)
	}
	return lo, hi
}

// MinMax fuses lists by a convex combination of min-max normalised scores:
//
//	norm(s) = (s - min) / (max - min)        per list; 1 when max == min
//	score(d) = Σ over lists containing d of  w * norm(score(d))
//	w        = Weight / Σ Weight              (weights scaled to sum to 1)
//
// min and max are the list's observed scores, or List.Min and the observed
// maximum when Min is set (theoretical min-max). A list missing d adds 0.
// Scaling the weights does not change the order, so without List.Min the
// ranking equals RelativeScore's; the scores lie in [0, 1]. Ties are broken
// by ID ascending. All weights 0 gives every result score 0.
func MinMax(lists ...List) ([]Result, error) {
	if err := checkWeights("minmax", lists); err != nil {
		return nil, err
	}
	if err := checkScores("minmax", lists); err != nil {
		return nil, err
	}
	total := 0.0
	for _, l := range lists {
		total += l.Weight
	}
	return normalised(lists, true, func(w float64) float64 {
		if total == 0 {
			return 0
		}
		return w / total
	}), nil
}

// RelativeScore fuses lists as Weaviate's relativeScoreFusion does
// (FusionRelativeScore in usecases/traverser/hybrid): each list's scores
// are min-max normalised over that list's own results, the highest
// becoming 1 and the lowest 0; when all of a list's scores are equal each
// of its results gets 1. The normalised scores are multiplied by the
// list's Weight (Weaviate passes 1-alpha for BM25 and alpha for vectors)
// and summed; a list missing d adds 0:
//
//	score(d) = Σ over lists containing d of  Weight * (s - min) / (max - min)
//
// Differences from Weaviate: arithmetic is float64 (Weaviate uses
// float32), and ties are broken by ID ascending (Weaviate treats scores
// within 1e-7 as equal and then compares the original score of the last
// list that had the ID, then the UUID descending).
func RelativeScore(lists ...List) ([]Result, error) {
	if err := checkWeights("relative score", lists); err != nil {
		return nil, err
	}
	if err := checkScores("relative score", lists); err != nil {
		return nil, err
	}
	return normalised(lists, false, func(w float64) float64 { return w }), nil
}

func normalised(lists []List, useMin bool, weight func(float64) float64) []Result {
	lo := make([]float64, len(lists))
	hi := make([]float64, len(lists))
	for i, l := range lists {
		lo[i], hi[i] = bounds(l, useMin)
	}
	es := collect(lists, func(e *entry, li, pos int) {
		w := weight(lists[li].Weight)
		n := 1.0
		if hi[li] != lo[li] {
			n = (lists[li].Scores[pos] - lo[li]) / (hi[li] - lo[li])
		}
		e.score += float64(w * n)
	})
	slices.SortFunc(es, byScoreThenID)
	return results(es)
}
