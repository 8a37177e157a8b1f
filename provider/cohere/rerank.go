package cohere

import (
	"context"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Reranker scores texts against a query with POST /v2/rerank. It is safe for concurrent use.
type Reranker struct {
	c *Client
}

var _ driver.Reranker = (*Reranker)(nil)

// NewReranker validates opts and returns a Reranker. Model defaults to
// DefaultRerankModel; MaxInputTokens bounds query plus one text.
func NewReranker(opts Options) (*Reranker, error) {
	c, err := newClient(opts, DefaultRerankModel)
	if err != nil {
		return nil, err
	}
	if opts.BatchSize == 0 || opts.BatchSize > MaxRerankDocuments {
		c.BatchSize = MaxRerankDocuments
	}
	return &Reranker{c: c}, nil
}

// Name is "cohere:<model>".
func (r *Reranker) Name() string { return ProviderName + ":" + r.c.Model }

type rerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type rerankResponse struct {
	ID      string `json:"id"`
	Results []struct {
		Index          *int     `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
	Meta struct {
		meta
		Tokens *billedUnits `json:"tokens"`
	} `json:"meta"`
}

// Rerank returns one relevance score per text, in the order of texts
// (results come sorted by relevance and are mapped back by index, which is
// checked). More than MaxRerankDocuments texts go in several requests; the
// reranker scores every pair on its own, so their scores compare. Cohere
// cuts a document at max_tokens_per_doc (4096) without telling; this
// client refuses, by estimate, a query plus text above MaxInputTokens
// instead, naming the text.
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
	tokens, err := c.CheckTexts(op, texts, c.MaxInput-qt, "text")
	if err != nil {
		return nil, err
	}
	return c.Rerank(ctx, op, tokens, "results", "relevance_score", func(ctx context.Context, s batch.Span, b batch.Ref) ([]batch.Scored, int, error) {
		var resp rerankResponse
		req := rerankRequest{Model: c.Model, Query: query, Documents: texts[s.Lo:s.Hi], TopN: s.Hi - s.Lo}
		err := c.Post(ctx, op, "/v2/rerank", b, req, &resp)
		res := make([]batch.Scored, len(resp.Results))
		for i, d := range resp.Results {
			res[i] = batch.Scored{Index: d.Index, Score: d.RelevanceScore}
		}
		billed := 0
		if resp.Meta.Tokens != nil {
			billed = resp.Meta.Tokens.InputTokens
		}
		return res, billed, err
	})
}
