package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/driver"
)

// Properties of a lexical object beside its terms.
const (
	// lengthProp is the number of terms; Aggregate sums it into BM25's
	// average length.
	lengthProp = "length"
	// positionsProp is the number of token positions the terms take: the
	// length BM25 normalises a chunk by.
	positionsProp = "positions"
	// distinctProp is the number of distinct terms; Aggregate sums it into
	// the average length Weaviate's BM25 uses (see termDF).
	distinctProp = "distinct"
)

func lengthProperty(name string) property {
	return property{Name: name, DataType: []string{"int"}, IndexFilterable: ptr(true), IndexSearchable: ptr(false)}
}

func distinctTerms(terms []string) int {
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		seen[t] = true
	}
	return len(seen)
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
func (x *Index) SearchTerms(ctx context.Context, q driver.TermQuery) ([]driver.BackendHit, error) {
	i := slices.IndexFunc(x.arms, func(a driver.BackendArm) bool { return a.Name == q.Arm })
	if i < 0 {
		return nil, fmt.Errorf("weaviate: search %s: arm not declared to Init: %w", q.Arm, driver.ErrInvalid)
	}
	arm := x.arms[i]
	names := make([]string, 0, len(q.Terms))
	for an := range q.Terms {
		if x.hasClass(x.lexClass(q.Arm, an)) {
			names = append(names, an)
		}
	}
	slices.Sort(names)
	lists := make([][]driver.BackendHit, len(names))
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
	var out []driver.BackendHit
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

type aggSum struct {
	Count int64   `json:"count"`
	Sum   float64 `json:"sum"`
}

type aggRow struct {
	Meta struct {
		Count int64 `json:"count"`
	} `json:"meta"`
	Length   *aggSum `json:"length"`
	Distinct *aggSum `json:"distinct"`
}

// searchClass is one collection's part of SearchTerms: in one GraphQL
// request, Weaviate's best candidateDepth(k) matches with their terms, the
// collection's object count and summed lengths, and each query term's best
// match alone (its document frequency, termDF); then the candidates scored
// as situate's BM25 scores them, the best k.
func (x *Index) searchClass(ctx context.Context, class string, arm driver.BackendArm, terms []string, weights map[string]float64, k int, f driver.Filter) ([]driver.BackendHit, error) {
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
	// Each term's best match alone, from which termDF reads the term's
	// document frequency (a filtered count costs Weaviate far more).
	var probes strings.Builder
	for i, t := range uniq {
		fmt.Fprintf(&probes, " t%d: %s(tenant: %s%s, limit: 1, bm25: {query: %s, properties: [%s]}){%s _additional{score}}",
			i, class, tenant, x.consistencyArg(), gqlString(t), gqlString(termsProp), termsProp)
	}
	query := fmt.Sprintf(`{Get{%s(%s){%s %s %s %s _additional{score}}%s} Aggregate{all: %s(tenant: %s){meta{count} %s{count sum} %s{count sum}}}}`,
		class, args, propDocID, propChunk, termsProp, positionsProp, probes.String(), class, tenant, lengthProp, distinctProp)
	var data struct {
		Get       map[string][]termRow
		Aggregate map[string][]aggRow
	}
	if err := x.c.graphql(ctx, query, &data); err != nil {
		return nil, err
	}
	rows := data.Get[class]
	all := data.Aggregate["all"]
	out := make([]driver.BackendHit, 0, len(rows))
	if len(all) != 1 || all[0].Length == nil || all[0].Length.Count != all[0].Meta.Count || all[0].Distinct == nil || all[0].Distinct.Count != all[0].Meta.Count {
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
			out = append(out, driver.BackendHit{DocID: r.DocID, Chunk: r.Chunk, Score: max(score, 0)})
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
		if r := data.Get["t"+strconv.Itoa(i)]; len(r) == 1 {
			if stats[i].DF, err = termDF(arm, t, r[0], docCount, all[0].Distinct.Sum); err != nil {
				return nil, err
			}
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
		out = append(out, driver.BackendHit{DocID: r.DocID, Chunk: r.Chunk,
			Score: bm25.DocScore(arm.K1, arm.B, docCount, sumTTF, uint32(positions), stats)})
	}
	sortHits(out)
	return out[:min(len(out), k)], nil
}

var _ driver.TermLookup = (*Index)(nil)

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

// termDF is the document frequency of term in a collection of docCount
// objects whose distinct terms sum to sumDistinct, read from best, the
// term's best match under Weaviate's BM25 (the exact WAND). That score is
// idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)) with idf = ln(1 + (N - n +
// 0.5) / (n + 0.5)), dl the match's number of terms and avgdl the mean
// number of distinct terms per object (Weaviate's property length
// tracker), rounded to float32; tf and dl come from the match's terms, so
// idf and then n follow. A filtered count would be exact but costs Weaviate
// a read of every matching object: 0.45 s for three terms over 20,000
// chunks (BenchmarkSearchTerms). From a float32 score (relative error
// 6e-8) n comes out within n*idf*6e-8 of the truth, so exact while n*idf
// stays below about 8 million: every term of a collection of up to about
// 20 million objects (n*idf peaks at N/e); beyond, a very common term's n
// may be off by a few, which moves its idf by less than float32 rounding.
func termDF(arm driver.BackendArm, term string, best termRow, docCount int64, sumDistinct float64) (int64, error) {
	s := strings.Trim(string(best.Additional.Score), `"`)
	score, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return 0, fmt.Errorf("weaviate: score %q of term %q: %w", s, term, err)
	}
	fields := strings.Fields(best.Terms)
	tf := 0
	for _, f := range fields {
		if f == term {
			tf++
		}
	}
	if tf == 0 || score <= 0 || docCount <= 0 {
		return 0, nil
	}
	// Weaviate keeps k1 and b as float32 and the mean as a float32.
	k1, b := float64(float32(arm.K1)), float64(float32(arm.B))
	avgdl := float64(float32(sumDistinct) / float32(docCount))
	if avgdl <= 0 {
		avgdl = 40 // Weaviate's fallback for an empty tracker
	}
	f := float64(tf)
	g := f / (f + k1*(1-b+b*float64(len(fields))/avgdl))
	r := math.Expm1(score / g) // (N - n + 0.5) / (n + 0.5)
	n := math.Round((float64(docCount) + 0.5 - 0.5*r) / (1 + r))
	return int64(min(max(n, 1), float64(docCount))), nil
}
