package situate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/fusion"
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
	if err := e.CheckQuery(q); err != nil {
		return nil, err
	}
	if e.storeOnly() {
		return nil, fmt.Errorf("search: the engine was opened store-only (a worker): %w", ErrInvalid)
	}
	if err := e.Refresh(ctx); err != nil {
		// The commit it has is still a commit: search it.
		e.log.Warn("searching the commit opened before; a later one could not be opened", "err", err)
	}
	e.view.mu.RLock()
	defer e.view.mu.RUnlock()
	k := q.K
	if k <= 0 {
		k = DefaultK
	}
	mode := e.mode(q)
	var allowed map[string]bool
	var err error
	if e.opts.Backend != nil {
		// The backend applies the filter itself: only check it here.
		_, err = q.Filter.Compile()
	} else {
		allowed, err = e.allowedDocs(q.Filter)
	}
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	want := k
	if q.Rerank {
		want = max(k, e.opts.RerankCandidates)
	}

	n := want
	if mode == ModeHybrid {
		n = max(want, e.opts.Candidates)
	}
	// Hits the store no longer holds are skipped; when that leaves fewer
	// than wanted and the arms had more, they are asked again for more.
	var hits []Hit
	for attempt := 0; ; attempt++ {
		var c candidates
		if nr, ok := e.opts.Backend.(driver.NativeRanker); ok && nr.Native() {
			c, err = e.nativeCandidates(ctx, nr, q.Text, mode, n, q.Filter)
		} else {
			c, err = e.candidates(ctx, q.Text, mode, n, allowed, q.Filter, q.Explain)
		}
		if err != nil {
			return nil, err
		}
		var skipped int
		if hits, skipped, err = e.hits(ctx, c, want, q.Explain); err != nil {
			return nil, err
		}
		if len(hits) == want || skipped == 0 || len(c.ranked) < n || attempt == 3 {
			break
		}
		n *= 2
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

// QueryError is a query Search refuses: Field names what is wrong
// ("query", "mode", "rerank"), Problem says what, for a person. It wraps
// ErrInvalid.
type QueryError struct {
	Field, Problem string
}

func (e *QueryError) Error() string { return "search: " + e.Field + ": " + e.Problem }
func (e *QueryError) Unwrap() error { return ErrInvalid }

// CheckQuery is what Search checks of a query before it searches, for a
// front end that answers a bad request before it queues it: an empty
// query, an unknown mode, a mode or a rerank the Engine has nothing for.
func (e *Engine) CheckQuery(q Query) error {
	if strings.TrimSpace(q.Text) == "" {
		return &QueryError{"query", "must not be empty"}
	}
	switch mode := e.mode(q); mode {
	case ModeBM25:
	case ModeDense, ModeHybrid:
		if e.opts.Embedder == nil {
			return &QueryError{"mode", fmt.Sprintf("%q needs an embedder, and none is configured (use bm25)", mode)}
		}
	default:
		if len(mode) > 40 {
			mode = mode[:40] + "…"
		}
		return &QueryError{"mode", fmt.Sprintf("%q: must be bm25, dense or hybrid", mode)}
	}
	if q.Rerank && e.opts.Reranker == nil {
		return &QueryError{"rerank", "no reranker is configured"}
	}
	return nil
}

// mode is the mode q searches in: its own, else hybrid with an embedder
// and bm25 without.
func (e *Engine) mode(q Query) string {
	switch {
	case q.Mode != "":
		return q.Mode
	case e.opts.Embedder != nil:
		return ModeHybrid
	}
	return ModeBM25
}

// hits turns the first want candidates the store holds into hits with the
// stored text; skipped counts those it does not hold.
func (e *Engine) hits(ctx context.Context, c candidates, want int, explain bool) (hits []Hit, skipped int, err error) {
	hits = make([]Hit, 0, min(len(c.ranked), want))
	chunksOf := map[string][]StoredChunk{}
	cr, _ := e.store.(driver.ChunkReader)
	var got map[ChunkRef]StoredChunk
	fetched := 0 // c.ranked[:fetched] were read through cr
	// An index may hold a document, or a version of it, that the store no
	// longer does: a reader searching beside a writer, or an index a crash
	// left behind (the next writer's Open repairs it). Such hits are
	// skipped, never shown with text that is not theirs nor failing the
	// query, and the next ranked hits take their place.
	// A hit whose document the store no longer holds (or holds with fewer
	// chunks) was deleted or replaced after the search took its snapshot
	// of the indexes: expected under concurrent writes, so only a debug
	// record. One the store still holds as indexed is a real
	// disagreement, and a warning.
	disagree := func(msg string, args ...any) {
		docID, _ := args[1].(string)
		index := -1
		if len(args) >= 4 {
			index, _ = args[3].(int)
		}
		level := slog.LevelWarn
		if rec, err := e.store.Document(ctx, docID); e.readOnly || errors.Is(err, ErrNotFound) || err == nil && index >= rec.Chunks {
			level = slog.LevelDebug
		}
		e.log.Log(ctx, level, msg, args...)
	}
	for i, r := range c.ranked {
		if len(hits) == want {
			break
		}
		docID, index, err := parseChunkKey(r.ID)
		if err != nil {
			return nil, 0, fmt.Errorf("search: %w", err)
		}
		if cr != nil {
			// Only the hits' chunks are read: the next ones wanted, in
			// one read, when this one was not among those read before.
			if i >= fetched {
				end := min(len(c.ranked), i+want-len(hits))
				refs := make([]ChunkRef, 0, end-i)
				for _, x := range c.ranked[i:end] {
					d, n, err := parseChunkKey(x.ID)
					if err != nil {
						return nil, 0, fmt.Errorf("search: %w", err)
					}
					refs = append(refs, ChunkRef{DocID: d, Index: n})
				}
				if got, err = e.chunksAt(ctx, cr, refs); err != nil {
					return nil, 0, fmt.Errorf("search: %w", err)
				}
				fetched = end
			}
			ch, ok := got[ChunkRef{DocID: docID, Index: index}]
			if !ok {
				disagree("index holds a chunk the store does not, skipping it", "doc", docID, "chunk", index)
				skipped++
				continue
			}
			hits = append(hits, e.hit(ctx, c, r, docID, index, ch, explain))
			continue
		}
		chunks, ok := chunksOf[docID]
		if !ok {
			chunks, err = e.store.Chunks(ctx, docID)
			switch {
			case errors.Is(err, ErrNotFound):
				disagree("index holds a document the store does not, skipping it", "doc", docID)
			case err != nil:
				return nil, 0, fmt.Errorf("search: %w", err)
			}
			chunksOf[docID] = chunks
		}
		if index < 0 || index >= len(chunks) {
			if chunks != nil {
				disagree("index and store disagree, skipping the hit", "doc", docID, "chunk", index)
			}
			skipped++
			continue
		}
		hits = append(hits, e.hit(ctx, c, r, docID, index, chunks[index], explain))
	}
	return hits, skipped, nil
}

// hit is one result with its stored chunk.
func (e *Engine) hit(ctx context.Context, c candidates, r fusion.Result, docID string, index int, ch StoredChunk, explain bool) Hit {
	h := Hit{DocID: docID, Chunk: index, Text: ch.Text, Context: ch.Context,
		Heading: ch.Heading, Title: e.title(ctx, docID), Score: r.Score}
	if explain {
		arms := c.explain[r.ID]
		if arms == nil {
			arms = []ArmRank{} // a natively ranking backend says nothing per arm: "arms": []
		}
		h.Explain = &Explanation{Arms: arms, FusedScore: r.Score}
	}
	return h
}

// title is a document's title, from the records the Engine holds or, for a
// document committed since a reader opened, from the store.
func (e *Engine) title(ctx context.Context, id string) string {
	e.mu.RLock()
	rec, ok := e.docs[id]
	e.mu.RUnlock()
	if ok {
		return rec.Title
	}
	rec, _ = e.store.Document(ctx, id)
	return rec.Title
}

// rerank reorders hits by the reranker's scores of "context\n\nchunk". On
// failure it keeps the fused order and logs a warning.
func (e *Engine) rerank(ctx context.Context, query string, hits []Hit, explain bool) []Hit {
	if len(hits) == 0 {
		return hits
	}
	texts := make([]string, len(hits))
	for i, h := range hits {
		texts[i] = driver.Contextualize(h.Context.Text, h.Text)
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
