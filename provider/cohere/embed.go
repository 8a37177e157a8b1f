package cohere

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/internal/batch"
)

// Embedder embeds texts with POST /v2/embed. It is safe for
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

// Name is "cohere:<model>", with "@<dimensions>" when Options.Dimensions
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
		req := embedRequest{Model: c.Model, Texts: texts[s.Lo:s.Hi], InputType: inputType(input),
			EmbeddingTypes: []string{"float"}, Truncate: "NONE", OutputDimension: c.Dims}
		var resp embedResponse
		start := time.Now()
		err := c.Post(ctx, op, "/v2/embed", b, req, &resp)
		if err == nil {
			err = e.collect(op, b, resp.Embeddings.Float, out[s.Lo:s.Hi])
		}
		if rerr := c.Record(ctx, op, resp.Meta.BilledUnits.InputTokens, start, err); rerr != nil && err == nil {
			err = rerr
		}
		return err
	}, tooLarge)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// collect checks a batch's embeddings (in input order) and places them.
func (e *Embedder) collect(op string, b batch.Ref, vecs [][]float32, dst [][]float32) error {
	if problem := batch.CheckEmbeddings(vecs, len(dst), e.c.Dims, &e.dim); problem != "" {
		return e.c.Errs().BadResponse(op, b, false, "%s", problem)
	}
	copy(dst, vecs)
	return nil
}
