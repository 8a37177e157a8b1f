package gemini

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/situate/situate"
)

// Embedder embeds texts with POST
// /v1beta/models/{model}:batchEmbedContents. It is safe for
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

// Name is "gemini:<model>", with "@<dimensions>" when Options.Dimensions
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
	tokens, err := c.checkTexts(op, texts, c.maxInput, "text")
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	model := "models/" + c.model
	path := "/v1beta/" + model + ":batchEmbedContents"
	err = run(ctx, plan(tokens, c.batchSize, c.batchTokens), func(ctx context.Context, s span, b batchRef) error {
		req := batchRequest{Requests: make([]embedContentRequest, 0, s.hi-s.lo)}
		for _, t := range texts[s.lo:s.hi] {
			req.Requests = append(req.Requests, embedContentRequest{Model: model, Content: content{Parts: []part{{Text: t}}},
				TaskType: inputType(input), OutputDimensionality: c.dims})
		}
		var resp batchResponse
		start := time.Now()
		err := c.post(ctx, op, path, b, req, &resp)
		if err == nil {
			vecs := make([][]float32, len(resp.Embeddings))
			for i, v := range resp.Embeddings {
				vecs[i] = v.Values
			}
			err = e.collect(op, b, vecs, out[s.lo:s.hi])
		}
		if rerr := c.record(ctx, op, 0, start, err); rerr != nil && err == nil {
			err = rerr
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if c.normalize {
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
