package voyage

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/internal/batch"
)

// Embedder embeds texts with POST /v1/embeddings. It is safe for
// concurrent use.
type Embedder struct {
	c   *Client
	dim atomic.Int64 // dimension seen first, checked against later batches
}

var _ situate.Embedder = (*Embedder)(nil)

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
	err = batch.Run(ctx, batch.Plan(tokens, c.BatchSize, c.BatchTokens), func(ctx context.Context, s batch.Span, b batch.Ref) error {
		req := embedRequest{Input: texts[s.Lo:s.Hi], Model: c.Model, InputType: inputType(input),
			OutputDimension: c.Dims, OutputDtype: "float"}
		var resp embedResponse
		start := time.Now()
		err := c.Post(ctx, op, "/v1/embeddings", b, req, &resp)
		if err == nil {
			err = e.collect(op, b, resp.Data, out[s.Lo:s.Hi])
		}
		if rerr := c.Record(ctx, op, resp.Usage.TotalTokens, start, err); rerr != nil && err == nil {
			err = rerr
		}
		return err
	}, tooLarge)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// collect places a batch's embeddings by their index and checks them.
func (e *Embedder) collect(op string, b batch.Ref, data []embedding, dst [][]float32) error {
	return collect(e.c, &e.dim, op, b, data, dst)
}

func collect(c *Client, dimSeen *atomic.Int64, op string, b batch.Ref, data []embedding, dst [][]float32) error {
	n := len(dst)
	if len(data) != n {
		return c.Errs().BadResponse(op, b, false, "got %d vectors for %d texts", len(data), n)
	}
	vecs := make([][]float32, n)
	for i, d := range data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= n || vecs[idx] != nil {
			return c.Errs().BadResponse(op, b, false, "data[%d].index %d is out of range or repeated (batch of %d)", i, idx, n)
		}
		if d.Embedding == nil {
			d.Embedding = []float32{}
		}
		vecs[idx] = d.Embedding
	}
	if problem := batch.CheckEmbeddings(vecs, n, c.Dims, dimSeen); problem != "" {
		return c.Errs().BadResponse(op, b, false, "%s", problem)
	}
	copy(dst, vecs)
	return nil
}
