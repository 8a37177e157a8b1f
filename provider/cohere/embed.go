package cohere

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/situate/situate"
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
	n := ProviderName + ":" + c.model
	if c.dims > 0 {
		n += "@" + strconv.Itoa(c.dims)
	}
	return n
}

// Model is the configured model id.
func (e *Embedder) Model() string { return e.c.model }

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

// span is a batch: texts[lo:hi].
type span struct{ lo, hi int }

// plan cuts n items into batches of at most maxItems items and maxTokens
// estimated tokens (an item above maxTokens goes alone).
func plan(tokens []int, maxItems, maxTokens int) []span {
	var out []span
	lo, sum := 0, 0
	for i, t := range tokens {
		if i > lo && (i-lo >= maxItems || sum+t > maxTokens) {
			out = append(out, span{lo, i})
			lo, sum = i, 0
		}
		sum += t
	}
	if lo < len(tokens) {
		out = append(out, span{lo, len(tokens)})
	}
	return out
}

// checkTexts rejects empty texts and texts above the input limit, and
// returns the estimated tokens of each.
func (c *Client) checkTexts(op string, texts []string, limit int, what string) ([]int, error) {
	tokens := make([]int, len(texts))
	for i, t := range texts {
		if t == "" {
			e := (batchRef{}).err(c, op, TypeInvalid, fmt.Sprintf("%s %d is empty", what, i))
			e.Index, e.Err = i, situate.ErrInvalid
			return nil, e
		}
		tokens[i] = EstimateTokens(t)
		if tokens[i] > limit {
			e := (batchRef{}).err(c, op, TypeTooLong, fmt.Sprintf("%s %d: about %d tokens (estimated from %d bytes) > MaxInputTokens %d; shorten it before embedding",
				what, i, tokens[i], len(t), limit))
			e.Index, e.Err = i, situate.ErrPromptTooLarge
			return nil, e
		}
	}
	return tokens, nil
}

// run sends the batches of a plan in order; a batch the server rejects as
// too large is split in two and retried.
func run(ctx context.Context, spans []span, send func(ctx context.Context, s span, b batchRef) error) error {
	n := 0
	for len(spans) > 0 {
		s := spans[0]
		spans = spans[1:]
		n++
		err := send(ctx, s, batchRef{n, s.lo, s.hi - 1})
		var e *Error
		if err != nil && errors.As(err, &e) && batchTooLarge(e) && s.hi-s.lo > 1 {
			mid := (s.lo + s.hi) / 2
			spans = append([]span{{s.lo, mid}, {mid, s.hi}}, spans...)
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkDim checks a batch's dimension against the configured one or the
// first one this embedder saw.
func checkDim(dimSeen *atomic.Int64, configured, got int) string {
	if configured > 0 {
		if got != configured {
			return fmt.Sprintf("vectors have dimension %d, want Dimensions %d", got, configured)
		}
		return ""
	}
	if dimSeen.CompareAndSwap(0, int64(got)) {
		return ""
	}
	if d := int(dimSeen.Load()); d != got {
		return fmt.Sprintf("vectors have dimension %d, earlier batches had %d", got, d)
	}
	return ""
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
	tokens, err := c.checkTexts(op, texts, c.maxInput, "text")
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	err = run(ctx, plan(tokens, c.batchSize, c.batchTokens), func(ctx context.Context, s span, b batchRef) error {
		req := embedRequest{Model: c.model, Texts: texts[s.lo:s.hi], InputType: inputType(input),
			EmbeddingTypes: []string{"float"}, Truncate: "NONE", OutputDimension: c.dims}
		var resp embedResponse
		start := time.Now()
		err := c.post(ctx, op, "/v2/embed", b, req, &resp)
		if err == nil {
			err = e.collect(op, b, resp.Embeddings.Float, out[s.lo:s.hi])
		}
		if rerr := c.record(ctx, op, resp.Meta.BilledUnits.InputTokens, start, err); rerr != nil && err == nil {
			err = rerr
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// collect checks a batch's embeddings (in input order) and places them.
func (e *Embedder) collect(op string, b batchRef, vecs [][]float32, dst [][]float32) error {
	c := e.c
	want, src := c.dims, "Dimensions"
	if want == 0 {
		want, src = int(e.dim.Load()), "earlier batches"
	}
	dim, problem := checkVectors(vecs, len(dst), want, src)
	if problem == "" {
		problem = checkDim(&e.dim, c.dims, dim)
	}
	if problem != "" {
		return c.badResponse(op, b, false, "%s", problem)
	}
	copy(dst, vecs)
	return nil
}
