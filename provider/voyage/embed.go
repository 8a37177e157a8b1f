package voyage

import (
	"context"
	"sync/atomic"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Embedder embeds texts with POST /v1/embeddings. It is safe for
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

// Name is "voyage:<model>", with "@<dimensions>" when Options.Dimensions
// is set: vectors of different dimensions must never share a cache key.
func (e *Embedder) Name() string { return e.c.Name() }

// Model is the configured model id.
func (e *Embedder) Model() string { return e.c.Model }

func inputType(t driver.InputType) string {
	if t == driver.InputQuery {
		return "query"
	}
	return "document"
}

type embedRequest struct {
	Input           []string `json:"input"`
	Model           string   `json:"model"`
	InputType       string   `json:"input_type"`
	Truncation      bool     `json:"truncation"`
	OutputDimension int      `json:"output_dimension,omitempty"`
	OutputDtype     string   `json:"output_dtype"`
}

type embedding struct {
	Embedding []float32 `json:"embedding"`
	Index     *int      `json:"index"`
}

type wireUsage struct {
	TotalTokens int `json:"total_tokens"`
}

type embedResponse struct {
	Data  []embedding `json:"data"`
	Model string      `json:"model"`
	Usage wireUsage   `json:"usage"`
}

// Embed returns one vector per text, in order. Texts above the input
// limit are an error wrapping situate.ErrPromptTooLarge naming the text;
// the request asks for truncation:false so the server never truncates
// either.
func (e *Embedder) Embed(ctx context.Context, texts []string, input driver.InputType) ([][]float32, error) {
	c := e.c
	return c.Embed(ctx, "embed", texts, &e.dim, func(ctx context.Context, texts []string, b batch.Ref) ([][]float32, int, error) {
		req := embedRequest{Input: texts, Model: c.Model, InputType: inputType(input), OutputDimension: c.Dims, OutputDtype: "float"}
		var resp embedResponse
		if err := c.Post(ctx, "embed", "/v1/embeddings", b, req, &resp); err != nil {
			return nil, 0, err
		}
		vecs, err := byIndex(c, "embed", b, resp.Data, len(texts))
		return vecs, resp.Usage.TotalTokens, err
	})
}

// byIndex orders a request's embeddings by their index.
func byIndex(c *Client, op string, b batch.Ref, data []embedding, n int) ([][]float32, error) {
	if len(data) != n {
		return nil, c.Errs().BadResponse(op, b, false, "got %d vectors for %d texts", len(data), n)
	}
	vecs := make([][]float32, n)
	for i, d := range data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= n || vecs[idx] != nil {
			return nil, c.Errs().BadResponse(op, b, false, "data[%d].index %d is out of range or repeated (batch of %d)", i, idx, n)
		}
		if d.Embedding == nil {
			d.Embedding = []float32{}
		}
		vecs[idx] = d.Embedding
	}
	return vecs, nil
}

// collect places a request's embeddings by their index into dst and
// checks them.
func collect(c *Client, dimSeen *atomic.Int64, op string, b batch.Ref, data []embedding, dst [][]float32) error {
	vecs, err := byIndex(c, op, b, data, len(dst))
	if err != nil {
		return err
	}
	if problem := batch.CheckEmbeddings(vecs, len(dst), c.Dims, dimSeen); problem != "" {
		return c.Errs().BadResponse(op, b, false, "%s", problem)
	}
	copy(dst, vecs)
	return nil
}
