package situate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/rank"
)

// Search runs a query and returns hits carrying the original chunk text with
// the context apart. Restrictions in q.Filter are applied inside the index
// while scoring, so K allowed hits come back whenever they exist.
func (e *Engine) Search(ctx context.Context, q Query) ([]Hit, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, fmt.Errorf("search: query: must not be empty: %w", ErrInvalid)
	}
	k := q.K
	if k <= 0 {
		k = DefaultK
	}
	switch q.Mode {
	case "", ModeBM25:
	case ModeDense, ModeHybrid:
		return nil, fmt.Errorf("search: mode %q needs an embedder, and none is configured: %w", q.Mode, ErrInvalid)
	default:
		return nil, fmt.Errorf("search: mode %q: must be bm25, dense or hybrid: %w", q.Mode, ErrInvalid)
	}
	results, err := e.lexicalSearch(q.Text, k, e.lexicalFilter(q.Filter))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits := make([]Hit, 0, len(results))
	chunksOf := map[string][]StoredChunk{}
	for i, r := range results {
		docID, index, err := parseChunkKey(r.ID)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		chunks, ok := chunksOf[docID]
		if !ok {
			if chunks, err = e.store.Chunks(ctx, docID); err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
			chunksOf[docID] = chunks
		}
		if index < 0 || index >= len(chunks) {
			// The index saw a newer or older version than the store; skip
			// rather than show text that does not belong to the hit.
			e.log.Warn("index and store disagree", "doc", docID, "chunk", index)
			continue
		}
		c := chunks[index]
		rec, _ := e.Document(docID)
		h := Hit{Rank: len(hits) + 1, DocID: docID, Chunk: index, Text: c.Text, Context: c.Context,
			Heading: c.Heading, Title: rec.Title, Score: r.Score}
		if q.Explain {
			h.Explain = &Explanation{BM25Rank: i + 1, BM25Score: r.Score, FusedScore: r.Score}
		}
		hits = append(hits, h)
	}
	return hits, nil
}

func (e *Engine) lexicalFilter(f Filter) *bm25.Filter {
	if f.Docs == nil && f.Principals == nil && len(f.Metadata) == 0 {
		return nil
	}
	lf := &bm25.Filter{}
	if f.Docs != nil {
		lf.Groups = make(map[string]bool, len(f.Docs))
		for _, d := range f.Docs {
			lf.Groups[d] = true
		}
	}
	if f.Principals != nil || len(f.Metadata) > 0 {
		principals := f.Principals
		meta := f.Metadata
		lf.Accept = func(_, _ string, attrs map[string]string) bool {
			if principals != nil {
				if acl := attrs[attrAccess]; acl != "" {
					allowed := strings.Split(acl, accessSeparator)
					if !slices.ContainsFunc(principals, func(p string) bool { return slices.Contains(allowed, p) }) {
						return false
					}
				}
			}
			for k, v := range meta {
				if attrs[attrMetaPrefix+k] != v {
					return false
				}
			}
			return true
		}
	}
	return lf
}

// lexicalSearch runs the BM25 arms and returns the top k. With only the
// language arm and no document blend this is plain Lucene BM25; otherwise
// each arm contributes its top Candidates, their scores are summed
// (rank.Combine) and every chunk is lifted by a share of its document's best
// score (rank.DocumentBlend), the recipe measured in EVAL.md.
func (e *Engine) lexicalSearch(text string, k int, filter *bm25.Filter) ([]bm25.Result, error) {
	if e.code == nil && e.opts.DocumentWeight == 0 {
		return e.lex.Search(bm25.Query{Text: text, K: k, Filter: filter})
	}
	n := max(k, e.opts.Candidates)
	arms := []*bm25.Index{e.lex}
	weights := []float64{1}
	if e.code != nil {
		arms = append(arms, e.code)
		weights = append(weights, e.opts.CodeArmWeight)
	}
	lists := make([][]rank.Hit, len(arms))
	for i, arm := range arms {
		res, err := arm.Search(bm25.Query{Text: text, K: n, Filter: filter})
		if err != nil {
			return nil, err
		}
		lists[i] = make([]rank.Hit, len(res))
		for j, r := range res {
			lists[i][j] = rank.Hit{ID: r.ID, Doc: r.Group, Score: r.Score}
		}
	}
	hits, err := rank.Combine(lists, weights)
	if err != nil {
		return nil, err
	}
	if e.opts.DocumentWeight > 0 {
		if hits, err = rank.DocumentBlend(hits, e.opts.DocumentWeight); err != nil {
			return nil, err
		}
	}
	hits = hits[:min(k, len(hits))]
	out := make([]bm25.Result, len(hits))
	for i, h := range hits {
		out[i] = bm25.Result{ID: h.ID, Group: h.Doc, Score: h.Score}
	}
	return out, nil
}
