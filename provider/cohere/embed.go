package cohere

import (
	"context"
	"sync/atomic"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Embedder embeds texts with POST /v2/embed. It is safe for
// concurrent use.
type Embedder struct {
	c   *Client
	dim atomic.Int64 // dimension seen first, checked against later batches
}

var _ driver.Embedder = (*Embedder)(nil)

// NewEmbedder validates opts and returns an Embedder.
func NewEmbedder(opts Options) (*Embedder, error) {
	c, err := newClient(opts, DefaultEmbedModel)
	if err != nil {
		return nil, err
	}
	return &Embedder{c: c}, nil
}

// Name is "cohere:<model>", with "@<dimensions>" when Options.Dimensions
// is set: vectors of different dimensions must never share a cache key.
func (e *Embedder) Name() string { return e.c.Name() }

// Model is the configured model id.
func (e *Embedder) Model() string { return e.c.Model }

func inputType(t driver.InputType) string {
	if t == driver.InputQuery {
		return "search_query"
	}
	return "search_document"
}

type embedRequest struct {
	Model           string   `json:"model"`
	Texts           []string `json:"texts"`
	InputType       string   `json:"input_type"`
	EmbeddingTypes  []string `json:"embedding_types"`
	Truncate        string   `json:"truncate"`
	OutputDimension int      `json:"output_dimension,omitempty"`
}

type billedUnits struct {
	InputTokens  int `json:"input_tokens"`
	SearchUnits  int `json:"search_units"`
	OutputTokens int `json:"output_tokens"`
}

type meta struct {
	BilledUnits billedUnits `json:"billed_units"`
	Warnings    []string    `json:"warnings"`
}

type embedResponse struct {
	ID         string `json:"id"`
	Embeddings struct {
		Float [][]float32 `json:"float"`
	} `json:"embeddings"`
	Meta meta `json:"meta"`
}

// Embed returns one vector per text, in order. It sends truncate "NONE":
// texts above the input limit are an error wrapping
// situate.ErrPromptTooLarge naming the text, from this client's estimate
// or from Cohere, never truncated.
func (e *Embedder) Embed(ctx context.Context, texts []string, input driver.InputType) ([][]float32, error) {
	c := e.c
	return c.Embed(ctx, "embed", texts, &e.dim, func(ctx context.Context, texts []string, b batch.Ref) ([][]float32, int, error) {
		req := embedRequest{Model: c.Model, Texts: texts, InputType: inputType(input),
			EmbeddingTypes: []string{"float"}, Truncate: "NONE", OutputDimension: c.Dims}
		var resp embedResponse
		err := c.Post(ctx, "embed", "/v2/embed", b, req, &resp)
		return resp.Embeddings.Float, resp.Meta.BilledUnits.InputTokens, err
	})
}
