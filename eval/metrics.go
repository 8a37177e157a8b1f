package eval

import (
	"math"
	"sort"
)

// Judgments maps item ids (chunk refs "doc#i" or document ids) to graded
// relevance; an item is relevant when its grade is > 0.
type Judgments map[string]int

// NumRelevant returns the number of items with grade > 0.
func (j Judgments) NumRelevant() int {
	n := 0
	for _, g := range j {
		if g > 0 {
			n++
		}
	}
	return n
}

// cut returns the first k entries of ranked; k <= 0 means all of them.
func cut(ranked []string, k int) []string {
	if k > 0 && k < len(ranked) {
		return ranked[:k]
	}
	return ranked
}

// gains returns, for each rank of ranked[:k], the grade credited there: the
// item's grade at its first occurrence, 0 at repeats and for unjudged items.
func gains(rel Judgments, ranked []string, k int) []int {
	top := cut(ranked, k)
	g := make([]int, len(top))
	var seen map[string]bool
	for i, id := range top {
		grade := rel[id]
		if grade <= 0 {
			continue
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		g[i] = grade
	}
	return g
}

// Recall returns the share of relevant items found in the top k (k <= 0: the
// whole list); 0 when nothing is relevant.
func Recall(rel Judgments, ranked []string, k int) float64 {
	n := rel.NumRelevant()
	if n == 0 {
		return 0
	}
	found := 0
	for _, g := range gains(rel, ranked, k) {
		if g > 0 {
			found++
		}
	}
	return float64(found) / float64(n)
}

// Precision returns the relevant items in the top k divided by k, as
// trec_eval's P_k (fewer than k results still divide by k). k <= 0 divides by
// the length of the list.
func Precision(rel Judgments, ranked []string, k int) float64 {
	d := k
	if k <= 0 {
		d = len(ranked)
	}
	if d == 0 {
		return 0
	}
	found := 0
	for _, g := range gains(rel, ranked, k) {
		if g > 0 {
			found++
		}
	}
	return float64(found) / float64(d)
}

// Hit returns 1 when a relevant item is in the top k, else 0.
func Hit(rel Judgments, ranked []string, k int) float64 {
	if ReciprocalRank(rel, ranked, k) > 0 {
		return 1
	}
	return 0
}

// ReciprocalRank returns 1/rank of the first relevant item within the top k,
// 0 when there is none (MRR@k averages it).
func ReciprocalRank(rel Judgments, ranked []string, k int) float64 {
	for i, id := range cut(ranked, k) {
		if rel[id] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// AveragePrecision returns trec_eval's average precision over the whole
// ranked list: the sum of the precision at the rank of each relevant item
// retrieved, divided by the number of relevant items (relevant items never
// retrieved contribute 0). 0 when nothing is relevant.
func AveragePrecision(rel Judgments, ranked []string) float64 {
	n := rel.NumRelevant()
	if n == 0 {
		return 0
	}
	sum, found := 0.0, 0
	for i, g := range gains(rel, ranked, 0) {
		if g > 0 {
			found++
			sum += float64(found) / float64(i+1)
		}
	}
	return sum / float64(n)
}

// NDCG returns the normalised discounted cumulative gain at k as trec_eval's
// ndcg_cut computes it: gain = grade (linear), discount log2(rank+1), ideal =
// the judged grades sorted in decreasing order, cut at k. k <= 0 means no
// cut. 0 when nothing is relevant. With grades of 1 it is binary nDCG.
func NDCG(rel Judgments, ranked []string, k int) float64 {
	var ideal []int
	for _, g := range rel {
		if g > 0 {
			ideal = append(ideal, g)
		}
	}
	if len(ideal) == 0 {
		return 0
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	idcg := dcg(ideal, k)
	return dcg(gains(rel, ranked, k), k) / idcg
}

func dcg(g []int, k int) float64 {
	s := 0.0
	for i, v := range g {
		if k > 0 && i >= k {
			break
		}
		if v > 0 {
			s += float64(v) / math.Log2(float64(i+2))
		}
	}
	return s
}

// Binary returns a copy of rel with every relevant grade set to 1, for
// binary nDCG over graded judgments.
func (j Judgments) Binary() Judgments {
	b := make(Judgments, len(j))
	for id, g := range j {
		if g > 0 {
			b[id] = 1
		} else {
			b[id] = g
		}
	}
	return b
}

// PassAt returns the Anthropic cookbook's per-query Pass@k score (0..1): the
// share of golden contents equal to the content of at least one of the first
// k retrieved contents, both compared after Strip. A retrieved chunk repeated
// in the list still occupies a slot; a golden content listed twice counts
// twice. golden must already be stripped (Query.GoldenText is); retrieved is
// stripped here. Returns 0 when golden is empty.
func PassAt(golden, retrieved []string, k int) float64 {
	if len(golden) == 0 {
		return 0
	}
	top := cut(retrieved, k)
	set := make(map[string]bool, len(top))
	for _, r := range top {
		set[Strip(r)] = true
	}
	found := 0
	for _, g := range golden {
		if set[g] {
			found++
		}
	}
	return float64(found) / float64(len(golden))
}

// Scored is one scored result, for ordering with RankTREC.
type Scored struct {
	ID    string
	Score float64
}

// RankTREC orders results as trec_eval does before scoring a run: by score
// descending, ties broken by id in descending byte order. It returns the ids.
func RankTREC(results []Scored) []string {
	s := append([]Scored(nil), results...)
	sort.Slice(s, func(i, j int) bool {
		if s[i].Score != s[j].Score {
			return s[i].Score > s[j].Score
		}
		return s[i].ID > s[j].ID
	})
	ids := make([]string, len(s))
	for i, r := range s {
		ids[i] = r.ID
	}
	return ids
}
