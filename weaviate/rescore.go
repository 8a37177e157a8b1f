package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/situate/situate"
	"github.com/situate/situate/bm25"
)

// Properties of a lexical object beside its terms.
const (
	// lengthProp is the number of terms; Aggregate sums it into BM25's
	// average length.
	lengthProp = "length"
	// positionsProp is the number of token positions the terms take: the
	// length BM25 normalises a chunk by.
	positionsProp = "positions"
)

func lengthProperty() property {
	return property{Name: lengthProp, DataType: []string{"int"}, IndexFilterable: ptr(true), IndexSearchable: ptr(false)}
}

// candidateDepth is how many of Weaviate's best matches SearchTerms rescores
// to return k. Weaviate ranks them by its own BM25, whose average length
// is the mean number of distinct terms per object while a posting's length
// is its number of terms (so long chunks score lower than in Lucene), and
// whose lengths are exact where Lucene's take one byte: its order near the
// k-th place differs from situate's, its top 2k hold situate's top k.
func candidateDepth(k int) int { return min(max(2*k, k+50), deleteLimit) }

// SearchTerms runs the arm's BM25 query once per analyzer (each over the
// collection holding that analyzer's terms), rescores each collection's
// candidates with situate's BM25 (bm25.DocScore) from the collection's
// statistics, and merges the lists by score, ties by chunk key, as
// situate's BM25 merges its partitions: the scores equal the embedded
// index's.
func (x *Index) SearchTerms(ctx context.Context, q situate.TermQuery) ([]situate.BackendHit, error) {
	i := slices.IndexFunc(x.arms, func(a situate.BackendArm) bool { return a.Name == q.Arm })
	if i < 0 {
		return nil, fmt.Errorf("weaviate: search %s: arm not declared to Init: %w", q.Arm, situate.ErrInvalid)
	}
	arm := x.arms[i]
	names := make([]string, 0, len(q.Terms))
	for an := range q.Terms {
		if x.hasClass(x.lexClass(q.Arm, an)) {
			names = append(names, an)
		}
	}
	slices.Sort(names)
	lists := make([][]situate.BackendHit, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, an := range names {
		wg.Go(func() {
			lists[i], errs[i] = x.searchClass(ctx, x.lexClass(q.Arm, an), arm, q.Terms[an], q.Weights[an], q.K, q.Filter)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("weaviate: search %s: %w", q.Arm, err)
	}
	var out []situate.BackendHit
	for _, l := range lists {
		out = append(out, l...)
	}
	sortHits(out)
	return out[:min(len(out), q.K)], nil
}

type termRow struct {
	DocID      string `json:"doc_id"`
	Chunk      int    `json:"chunk"`
	Terms      string `json:"terms"`
	Positions  int    `json:"positions"`
	Additional struct {
		Score json.RawMessage `json:"score"`
	} `json:"_additional"`
}

type aggRow struct {
	Meta struct {
		Count int64 `json:"count"`
	} `json:"meta"`
	Length *struct {
		Count int64   `json:"count"`
		Sum   float64 `json:"sum"`
	} `json:"length"`
}

// searchClass is one collection's part of SearchTerms: in one GraphQL
// request, Weaviate's best candidateDepth(k) matches with their terms, the
// collection's object count and summed length, and each query term's
// document frequency; then the candidates scored as situate's BM25 scores
// them, the best k.
func (x *Index) searchClass(ctx context.Context, class string, arm situate.BackendArm, terms []string, weights map[string]float64, k int, f situate.Filter) ([]situate.BackendHit, error) {
	w, none, err := filterWhere(f, func(p string) bool { return x.hasProp(class, p) })
	if err != nil {
		return nil, err
	}
	if none || k <= 0 || len(terms) == 0 {
		return nil, nil
	}
	// The query's distinct terms, each boosted by its count (as bm25 and
	// Weaviate both do) or its weight.
	var uniq []string
	count := map[string]int{}
	for _, t := range terms {
		if count[t] == 0 {
			uniq = append(uniq, t)
		}
		count[t]++
	}
	tenant := gqlString(x.cfg.Tenant)
	args := fmt.Sprintf("tenant: %s%s, limit: %d, bm25: {query: %s, properties: [%s]}",
		tenant, x.consistencyArg(), candidateDepth(k), gqlString(strings.Join(terms, " ")), gqlString(termsProp))
	if w != nil {
		args += ", where: " + w.gql()
	}
	var agg strings.Builder
	fmt.Fprintf(&agg, "all: %s(tenant: %s){meta{count} %s{count sum}}", class, tenant, lengthProp)
	for i, t := range uniq {
		fmt.Fprintf(&agg, " t%d: %s(tenant: %s, where: %s){meta{count}}", i, class, tenant, textEq(termsProp, t).gql())
	}
	query := fmt.Sprintf(`{Get{%s(%s){%s %s %s %s _additional{score}}} Aggregate{%s}}`,
		class, args, propDocID, propChunk, termsProp, positionsProp, agg.String())
	var data struct {
		Get       map[string][]termRow
		Aggregate map[string][]aggRow
	}
	if err := x.c.graphql(ctx, query, &data); err != nil {
		return nil, err
	}
	rows := data.Get[class]
	all := data.Aggregate["all"]
	out := make([]situate.BackendHit, 0, len(rows))
	if len(all) != 1 || all[0].Length == nil || all[0].Length.Count != all[0].Meta.Count {
		// Objects written before lengths were recorded: Weaviate's own
		// scores, until the documents are indexed again.
		for _, r := range rows {
			s := strings.Trim(string(r.Additional.Score), `"`)
			score, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("weaviate: score %q of %s#%d: %w", s, r.DocID, r.Chunk, err)
			}
			// Never below zero (see get): TestFaultNodeDown took this
			// path while nodes went down and came back (the counts
			// disagreed) and got -0.0033, which failed the search.
			out = append(out, situate.BackendHit{DocID: r.DocID, Chunk: r.Chunk, Score: max(score, 0)})
		}
		sortHits(out)
		return out[:min(len(out), k)], nil
	}
	docCount, sumTTF := all[0].Meta.Count, int64(all[0].Length.Sum)
	stats := make([]bm25.TermStat, len(uniq))
	at := make(map[string]int, len(uniq))
	for i, t := range uniq {
		at[t] = i
		stats[i].Boost = float64(count[t])
		if w, ok := weights[t]; ok {
			stats[i].Boost = w
		}
		if r := data.Aggregate["t"+strconv.Itoa(i)]; len(r) == 1 {
			stats[i].DF = r[0].Meta.Count
		}
	}
	for _, r := range rows {
		for i := range stats {
			stats[i].TF = 0
		}
		fields := strings.Fields(r.Terms)
		for _, t := range fields {
			if i, ok := at[t]; ok {
				stats[i].TF++
			}
		}
		positions := r.Positions
		if positions <= 0 {
			positions = len(fields)
		}
		out = append(out, situate.BackendHit{DocID: r.DocID, Chunk: r.Chunk,
			Score: bm25.DocScore(arm.K1, arm.B, docCount, sumTTF, uint32(positions), stats)})
	}
	sortHits(out)
	return out[:min(len(out), k)], nil
}

var _ situate.TermLookup = (*Index)(nil)

// KnownTerms asks the arm's collection of the analyzer which of terms at
// least one object holds: one count per term, up to 100 in a request.
func (x *Index) KnownTerms(ctx context.Context, arm, analyzer string, terms []string) (map[string]bool, error) {
	class := x.lexClass(arm, analyzer)
	out := map[string]bool{}
	if !x.hasClass(class) {
		return out, nil
	}
	for start := 0; start < len(terms); start += 100 {
		part := terms[start:min(start+100, len(terms))]
		var q strings.Builder
		q.WriteString("{Aggregate{")
		for i, t := range part {
			fmt.Fprintf(&q, " t%d: %s(tenant: %s, where: %s){meta{count}}", i, class, gqlString(x.cfg.Tenant), textEq(termsProp, t).gql())
		}
		q.WriteString("}}")
		var data struct {
			Aggregate map[string][]aggRow
		}
		if err := x.c.graphql(ctx, q.String(), &data); err != nil {
			return nil, fmt.Errorf("weaviate: known terms of %s: %w", class, err)
		}
		for i, t := range part {
			if r := data.Aggregate["t"+strconv.Itoa(i)]; len(r) == 1 && r[0].Meta.Count > 0 {
				out[t] = true
			}
		}
	}
	return out, nil
}
