package gemini

import (
	"context"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/situate/situate"
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

var _ situate.Embedder = (*Embedder)(nil)

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
func (e *Embedder) Name() string { return name(e.c) }

func name(c *Client) string {
	n := ProviderName + ":" + c.Model
	if c.Dims > 0 {
		n += "@" + strconv.Itoa(c.Dims)
	}
	return n
}

// Model is the configured model id.
func (e *Embedder) Model() string { return e.c.Model }

func inputType(t situate.InputType) string {
	if t == situate.InputQuery {
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
func (e *Embedder) Embed(ctx context.Context, texts []string, input situate.InputType) ([][]float32, error) {
	const op = "embed"
	if len(texts) == 0 {
		return nil, nil
	}
	c := e.c
	tokens, err := c.CheckTexts(op, texts, c.MaxInput, "text")
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	model := "models/" + c.Model
	path := "/v1beta/" + model + ":batchEmbedContents"
	err = batch.Run(ctx, batch.Plan(tokens, c.BatchSize, c.BatchTokens), func(ctx context.Context, s batch.Span, b batch.Ref) error {
		req := batchRequest{Requests: make([]embedContentRequest, 0, s.Hi-s.Lo)}
		for _, t := range texts[s.Lo:s.Hi] {
			req.Requests = append(req.Requests, embedContentRequest{Model: model, Content: content{Parts: []part{{Text: t}}},
				TaskType: inputType(input), OutputDimensionality: c.Dims})
		}
		var resp batchResponse
		start := time.Now()
		err := c.Post(ctx, op, path, b, req, &resp)
		if err == nil {
			vecs := make([][]float32, len(resp.Embeddings))
			for i, v := range resp.Embeddings {
				vecs[i] = v.Values
			}
			err = e.collect(op, b, vecs, out[s.Lo:s.Hi])
		}
		if rerr := c.Record(ctx, op, 0, start, err); rerr != nil && err == nil {
			err = rerr
		}
		return err
	}, tooLarge)
	if err != nil {
		return nil, err
	}
	if e.normalize {
		for _, v := range out {
			normalize(v)
		}
	}
	return out, nil
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

// collect checks a batch's embeddings (in input order) and places them.
func (e *Embedder) collect(op string, b batch.Ref, vecs [][]float32, dst [][]float32) error {
	if problem := batch.CheckEmbeddings(vecs, len(dst), e.c.Dims, &e.dim); problem != "" {
		return e.c.Errs().BadResponse(op, b, false, "%s", problem)
	}
	copy(dst, vecs)
	return nil
}
