package voyage

import (
	"context"
	"fmt"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// RerankBatchTokens is the most tokens one rerank request may carry,
// counted as Voyage does: query tokens times documents plus all document
// tokens.
const RerankBatchTokens = 600000

// ModelQueryTokens is the longest query a rerank model accepts.
func ModelQueryTokens(model string) int {
	switch model {
	case "rerank-2":
		return 4000
	case "rerank-2-lite", "rerank-1":
		return 2000
	case "rerank-lite-1":
		return 1000
	}
	return 8000
}

// Reranker scores texts against a query with POST /v1/rerank (a
// cross-encoder). It is safe for concurrent use.
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
	if opts.BatchTokens == 0 {
		c.BatchTokens = RerankBatchTokens
	}
	return &Reranker{c: c}, nil
}

// Name is "voyage:<model>".
func (r *Reranker) Name() string { return ProviderName + ":" + r.c.Model }

type rerankRequest struct {
	Query      string   `json:"query"`
	Documents  []string `json:"documents"`
	Model      string   `json:"model"`
	Truncation bool     `json:"truncation"`
}

type rerankResponse struct {
	Data []struct {
		Index          *int     `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"data"`
	Model string    `json:"model"`
	Usage wireUsage `json:"usage"`
}

// Rerank returns one relevance score per text, in the order of texts. More
// than MaxBatchTexts texts (or RerankBatchTokens) are sent in several
// requests; a cross-encoder scores every pair on its own, so scores of
// different requests compare.
func (r *Reranker) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	const op = "rerank"
	if len(texts) == 0 {
		return nil, nil
	}
	c := r.c
	if query == "" {
		e := c.Errs().New(op, batch.Ref{}, TypeInvalid, "query is empty")
		e.Err = driver.ErrInvalid
		return nil, e
	}
	qt := EstimateTokens(query)
	if ql := ModelQueryTokens(c.Model); qt > ql {
		e := c.Errs().New(op, batch.Ref{}, TypeTooLong, fmt.Sprintf("query: about %d tokens (estimated) > %d", qt, ql))
		e.Err = driver.ErrPromptTooLarge
		return nil, e
	}
	tokens, err := c.CheckTexts(op, texts, c.MaxInput-qt, "text")
	if err != nil {
		return nil, err
	}
	for i := range tokens {
		tokens[i] += qt // Voyage counts the query once per document
	}
	return c.Rerank(ctx, op, tokens, "data", "relevance_score", func(ctx context.Context, s batch.Span, b batch.Ref) ([]batch.Scored, int, error) {
		var resp rerankResponse
		err := c.Post(ctx, op, "/v1/rerank", b, rerankRequest{Query: query, Documents: texts[s.Lo:s.Hi], Model: c.Model}, &resp)
		res := make([]batch.Scored, len(resp.Data))
		for i, d := range resp.Data {
			res[i] = batch.Scored{Index: d.Index, Score: d.RelevanceScore}
		}
		return res, resp.Usage.TotalTokens, err
	})
}
