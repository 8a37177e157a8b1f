package openai

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// RerankOptions configures a Reranker.
type RerankOptions struct {
	APIKey string
	// BaseURL is the API root including /v1: llama-server started with
	// --rerank (http://host:8080/v1), Jina (https://api.jina.ai/v1), or any
	// server with the same POST /rerank.
	BaseURL string
	// Model is sent as "model" when set.
	Model string
	// Flavor as in Options; empty is generic.
	Flavor       string
	ExtraHeaders http.Header
	HTTPClient   *http.Client
	Timeout      time.Duration
}

// Reranker calls POST /rerank ({model, query, documents, top_n} ->
// results[{index, relevance_score}]), the llama.cpp and Jina format. It
// implements situate.Reranker and is safe for concurrent use.
type Reranker struct {
	*core
}

var _ driver.Reranker = (*Reranker)(nil)

// NewReranker validates opts and returns a Reranker.
func NewReranker(opts RerankOptions) (*Reranker, error) {
	flavor := opts.Flavor
	model := opts.Model
	if flavor == "" {
		flavor = FlavorGeneric
	}
	if model == "" && flavor != FlavorLlamaCpp {
		return nil, fmt.Errorf("openai: rerank options: Model: empty (the server needs a model name): %w", driver.ErrInvalid)
	}
	c, err := newCore("rerank", flavor, opts.APIKey, opts.BaseURL, model, opts.HTTPClient, opts.Timeout, opts.ExtraHeaders)
	if err != nil {
		return nil, err
	}
	return &Reranker{core: c}, nil
}

// Name is "<flavor>:<model>".
func (r *Reranker) Name() string {
	m := r.model
	if m == "" {
		m = "local"
	}
	return r.flavor + ":" + m
}

// Rerank returns one relevance score per text, in the order given. Every
// text must get exactly one score.
func (r *Reranker) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	const op = "rerank"
	if query == "" {
		return nil, fmt.Errorf("openai: rerank %s: query is empty: %w", r.Name(), driver.ErrInvalid)
	}
	if len(texts) == 0 {
		return nil, nil
	}
	body := map[string]any{"query": query, "documents": texts, "top_n": len(texts)}
	if r.model != "" {
		body["model"] = r.model
	}
	var resp struct {
		Results []struct {
			Index          *int     `json:"index"`
			RelevanceScore *float64 `json:"relevance_score"`
		} `json:"results"`
	}
	ref := batch.Ref{N: 1, First: 0, Last: len(texts) - 1}
	if err := r.doJSON(ctx, op, http.MethodPost, r.base.JoinPath("/rerank").String(), body, &resp); err != nil {
		if oe, ok := err.(*Error); ok {
			oe.Batch, oe.First, oe.Last = ref.N, ref.First, ref.Last
		}
		return nil, err
	}
	if len(resp.Results) != len(texts) {
		return nil, r.badResponse(op, ref, "%d results for %d texts", len(resp.Results), len(texts))
	}
	scores := make([]float64, len(texts))
	seen := make([]bool, len(texts))
	for i, res := range resp.Results {
		if res.Index == nil || res.RelevanceScore == nil {
			return nil, r.badResponse(op, ref, "results[%d]: index or relevance_score missing", i)
		}
		idx := *res.Index
		if idx < 0 || idx >= len(texts) || seen[idx] {
			return nil, r.badResponse(op, ref, "results[%d]: index %d is out of range or repeated", i, idx)
		}
		if s := *res.RelevanceScore; math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, r.badResponse(op, ref, "results[%d]: relevance_score is not finite", i)
		}
		scores[idx], seen[idx] = *res.RelevanceScore, true
	}
	return scores, nil
}
