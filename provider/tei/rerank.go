package tei

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Reranker scores texts against a query with POST /rerank (a
// cross-encoder served by TEI). It is safe for concurrent use.
type Reranker struct {
	c     *Client
	batch atomic.Int64
}

var _ driver.Reranker = (*Reranker)(nil)

// NewReranker validates opts and returns a Reranker. Unless Model,
// MaxInputTokens and BatchSize are all set it reads GET /info, and fails
// if the server does not serve a reranker. MaxInputTokens bounds query
// plus one text.
func NewReranker(ctx context.Context, opts Options) (*Reranker, error) {
	c, batch, err := newClient(ctx, opts, "reranker")
	if err != nil {
		return nil, err
	}
	r := &Reranker{c: c}
	r.batch.Store(int64(batch))
	return r, nil
}

// Name is "tei:<model id>".
func (r *Reranker) Name() string { return r.c.Name() }

type rerankRequest struct {
	Query     string   `json:"query"`
	Texts     []string `json:"texts"`
	Truncate  bool     `json:"truncate"`
	RawScores bool     `json:"raw_scores"`
}

type rank struct {
	Index *int     `json:"index"`
	Score *float64 `json:"score"`
}

// Rerank returns one score per text, in the order of texts (TEI answers
// sorted by score; results are mapped back by index, which is checked).
func (r *Reranker) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	const op = "rerank"
	if len(texts) == 0 {
		return nil, nil
	}
	c := r.c
	qt, p := batch.CheckQuery(query, c.MaxInput, EstimateTokens)
	if p != nil {
		return nil, c.Errs().Input(op, p)
	}
	if _, err := c.prepare(op, texts, "", c.MaxInput-qt); err != nil {
		return nil, err
	}
	scores := make([]float64, len(texts))
	err := run(ctx, len(texts), &r.batch, func(ctx context.Context, s batch.Span, b batch.Ref) error {
		var ranks []rank
		start := time.Now()
		hdr, err := c.Call(ctx, op, http.MethodPost, "/rerank", b,
			rerankRequest{Query: query, Texts: texts[s.Lo:s.Hi], RawScores: c.opts.RawScores}, &ranks)
		if err == nil {
			err = r.collect(op, b, ranks, scores[s.Lo:s.Hi])
		}
		if rerr := c.Record(ctx, op, computeTokens(hdr), start, err); rerr != nil && err == nil {
			err = rerr
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return scores, nil
}

// collect maps the results (ordered by score) back to input order.
func (r *Reranker) collect(op string, b batch.Ref, ranks []rank, dst []float64) error {
	res := make([]batch.Scored, len(ranks))
	for i, rk := range ranks {
		res[i] = batch.Scored{Index: rk.Index, Score: rk.Score}
	}
	if problem := batch.PlaceScores(res, dst, "result", "score"); problem != "" {
		return r.c.Errs().BadResponse(op, b, false, "%s", problem)
	}
	return nil
}
