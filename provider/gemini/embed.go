package gemini

import (
	"context"
	"math"
	"sync/atomic"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Embedder embeds texts with POST
// /v1beta/models/{model}:batchEmbedContents. It is safe for
// concurrent use.
type Embedder struct {
	c         *Client
	normalize bool
	dim       atomic.Int64 // dimension seen first, checked against later batches
}

var _ driver.Embedder = (*Embedder)(nil)

// NewEmbedder validates opts and returns an Embedder.
func NewEmbedder(opts Options) (*Embedder, error) {
	c, err := newClient(opts, DefaultEmbedModel)
	if err != nil {
		return nil, err
	}
	return &Embedder{c: c, normalize: opts.Normalize}, nil
}

// Name is "gemini:<model>", with "@<dimensions>" when Options.Dimensions
// is set: vectors of different dimensions must never share a cache key.
func (e *Embedder) Name() string { return e.c.Name() }

// Model is the configured model id.
func (e *Embedder) Model() string { return e.c.Model }

func inputType(t driver.InputType) string {
	if t == driver.InputQuery {
		return "RETRIEVAL_QUERY"
	}
	return "RETRIEVAL_DOCUMENT"
}

type part struct {
	Text string `json:"text"`
}

type content struct {
	Parts []part `json:"parts"`
}

type embedContentRequest struct {
	Model                string  `json:"model"`
	Content              content `json:"content"`
	TaskType             string  `json:"taskType"`
	OutputDimensionality int     `json:"outputDimensionality,omitempty"`
}

type batchRequest struct {
	Requests []embedContentRequest `json:"requests"`
}

type batchResponse struct {
	Embeddings []struct {
		Values []float32 `json:"values"`
	} `json:"embeddings"`
}

// Embed returns one vector per text, in order. The Gemini API has no
// switch to refuse over-long input (it truncates), so a text above
// MaxInputTokens (estimated) is refused here with an error wrapping
// situate.ErrPromptTooLarge naming the text.
func (e *Embedder) Embed(ctx context.Context, texts []string, input driver.InputType) ([][]float32, error) {
	c := e.c
	model := "models/" + c.Model
	path := "/v1beta/" + model + ":batchEmbedContents"
	out, err := c.Embed(ctx, "embed", texts, &e.dim, func(ctx context.Context, texts []string, b batch.Ref) ([][]float32, int, error) {
		req := batchRequest{Requests: make([]embedContentRequest, 0, len(texts))}
		for _, t := range texts {
			req.Requests = append(req.Requests, embedContentRequest{Model: model, Content: content{Parts: []part{{Text: t}}},
				TaskType: inputType(input), OutputDimensionality: c.Dims})
		}
		var resp batchResponse
		if err := c.Post(ctx, "embed", path, b, req, &resp); err != nil {
			return nil, 0, err
		}
		vecs := make([][]float32, len(resp.Embeddings))
		for i, v := range resp.Embeddings {
			vecs[i] = v.Values
		}
		return vecs, 0, nil // the Gemini API reports no token usage for embeddings
	})
	if err == nil && e.normalize {
		for _, v := range out {
			normalize(v)
		}
	}
	return out, err
}

func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
}
