package situate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/fusion"
	"github.com/situate/situate/vector"
)

// Search runs a query and returns hits carrying the original chunk text with
// the context apart. Restrictions in q.Filter are applied inside the indexes
// while scoring, so K allowed hits come back whenever they exist.
//
// Modes: bm25 runs the lexical arm; dense the vector arm; hybrid both, each
// contributing its top Candidates, fused by Options.Fusion. With q.Rerank
// the top RerankCandidates go through the reranker; if it fails the fused
// order is kept (with a warning), never an empty result.
func (e *Engine) Search(ctx context.Context, q Query) ([]Hit, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, fmt.Errorf("search: query: must not be empty: %w", ErrInvalid)
	}
	k := q.K
	if k <= 0 {
		k = DefaultK
	}
	mode := q.Mode
	if mode == "" {
		mode = ModeBM25
		if e.opts.Embedder != nil {
			mode = ModeHybrid
		}
	}
	switch mode {
	case ModeBM25:
	case ModeDense, ModeHybrid:
		if e.opts.Embedder == nil {
			return nil, fmt.Errorf("search: mode %q needs an embedder, and none is configured: %w", mode, ErrInvalid)
		}
	default:
		return nil, fmt.Errorf("search: mode %q: must be bm25, dense or hybrid: %w", mode, ErrInvalid)
	}
	if q.Rerank && e.opts.Reranker == nil {
		return nil, fmt.Errorf("search: rerank: no reranker is configured: %w", ErrInvalid)
	}
	allowed, err := e.allowedDocs(q.Filter)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	want := k
	if q.Rerank {
		want = max(k, e.opts.RerankCandidates)
	}

	type armHit struct {
		rank  int
		score float64
	}
	lexical, dense := map[string]armHit{}, map[string]armHit{}
	var lexList, denseList fusion.List
	n := want
	if mode == ModeHybrid {
		n = max(want, e.opts.Candidates)
	}
	// The dense arm (query embedding + vector scan) runs while the lexical
	// arms score: on a hybrid query they overlap instead of adding up.
	var (
		denseRes []vector.Result
		denseErr error
		denseWG  sync.WaitGroup
	)
	if mode != ModeBM25 {
		denseWG.Add(1)
		go func() {
			defer denseWG.Done()
			denseRes, denseErr = e.denseSearch(ctx, q.Text, n, allowed)
		}()
	}
	if mode != ModeDense {
		var lf *bm25.Filter
		if allowed != nil {
			lf = &bm25.Filter{Groups: allowed}
		}
		res, err := e.lexicalSearch(q.Text, n, lf)
		if err != nil {
			denseWG.Wait()
			return nil, fmt.Errorf("search: %w", err)
		}
		lexList = fusion.List{Weight: e.opts.LexicalWeight, Min: ptr(0.0)}
		for i, r := range res {
			lexical[r.ID] = armHit{i + 1, r.Score}
			lexList.IDs = append(lexList.IDs, r.ID)
			lexList.Scores = append(lexList.Scores, r.Score)
		}
	}
	denseWG.Wait()
	if denseErr != nil {
		return nil, fmt.Errorf("search: %w", denseErr)
	}
	if mode != ModeBM25 {
		denseList = fusion.List{Weight: e.opts.DenseWeight, Min: ptr(-1.0)}
		for i, r := range denseRes {
			dense[r.ID] = armHit{i + 1, r.Score}
			denseList.IDs = append(denseList.IDs, r.ID)
			denseList.Scores = append(denseList.Scores, r.Score)
		}
	}

	var ranked []fusion.Result
	switch mode {
	case ModeBM25:
		ranked = single(lexList)
	case ModeDense:
		ranked = single(denseList)
	default:
		var err error
		if ranked, err = e.fuse(denseList, lexList); err != nil {
			return nil, fmt.Errorf("search: fusion: %w", err)
		}
	}
	ranked = ranked[:min(len(ranked), want)]

	hits := make([]Hit, 0, len(ranked))
	chunksOf := map[string][]StoredChunk{}
	for _, r := range ranked {
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
		h := Hit{DocID: docID, Chunk: index, Text: c.Text, Context: c.Context,
			Heading: c.Heading, Title: rec.Title, Score: r.Score}
		if q.Explain {
			l, d := lexical[r.ID], dense[r.ID]
			h.Explain = &Explanation{BM25Rank: l.rank, BM25Score: l.score, DenseRank: d.rank, DenseScore: d.score, FusedScore: r.Score}
		}
		hits = append(hits, h)
	}
	if q.Rerank {
		hits = e.rerank(ctx, q.Text, hits, q.Explain)
	}
	hits = hits[:min(len(hits), k)]
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits, nil
}

func ptr[T any](v T) *T { return &v }

// single turns one arm's list into results without fusing.
func single(l fusion.List) []fusion.Result {
	out := make([]fusion.Result, len(l.IDs))
	for i, id := range l.IDs {
		out[i] = fusion.Result{ID: id, Score: l.Scores[i], Ranks: []int{i + 1}}
	}
	return out
}

func (e *Engine) fuse(dense, lexical fusion.List) ([]fusion.Result, error) {
	switch e.opts.Fusion {
	case FusionCookbook:
		return fusion.CookbookKeyed(fusion.SplitChunkID(chunkKeySep), dense, lexical)
	case FusionMinMax:
		return fusion.MinMax(dense, lexical)
	case FusionRelative:
		return fusion.RelativeScore(dense, lexical)
	default:
		return fusion.RRF(fusion.DefaultRRFK, dense, lexical)
	}
}

// rerank reorders hits by the reranker's scores of "context\n\nchunk". On
// failure it keeps the fused order and logs a warning.
func (e *Engine) rerank(ctx context.Context, query string, hits []Hit, explain bool) []Hit {
	if len(hits) == 0 {
		return hits
	}
	texts := make([]string, len(hits))
	for i, h := range hits {
		texts[i] = Contextualize(h.Context.Text, h.Text)
	}
	scores, err := e.opts.Reranker.Rerank(ctx, query, texts)
	if err == nil && len(scores) != len(hits) {
		err = fmt.Errorf("%s returned %d scores for %d texts", e.opts.Reranker.Name(), len(scores), len(hits))
	}
	if err != nil {
		e.log.Warn("rerank failed, keeping the fused order", "reranker", e.opts.Reranker.Name(), "err", err)
		return hits
	}
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	out := make([]Hit, len(hits))
	for i, j := range order {
		out[i] = hits[j]
		out[i].Score = scores[j]
		if explain && out[i].Explain != nil {
			out[i].Explain.RerankScore, out[i].Explain.Reranked = scores[j], true
		}
	}
	return out
}
