package tei

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Embedder embeds texts with POST /embed. It is safe for concurrent use.
type Embedder struct {
	c     *Client
	batch atomic.Int64 // texts per request, lowered by 413s
	dim   atomic.Int64
}

var _ driver.Embedder = (*Embedder)(nil)

// NewEmbedder validates opts and returns an Embedder. Unless Model,
// MaxInputTokens and BatchSize are all set it reads GET /info, and fails
// if the server does not serve an embedding model.
func NewEmbedder(ctx context.Context, opts Options) (*Embedder, error) {
	c, batch, err := newClient(ctx, opts, "embedding")
	if err != nil {
		return nil, err
	}
	e := &Embedder{c: c}
	e.batch.Store(int64(batch))
	return e, nil
}

// Name is "tei:<model id>".
func (e *Embedder) Name() string { return e.c.Name() }

// Model is the served model id.
func (e *Embedder) Model() string { return e.c.Model }

// BatchSize is the current texts-per-request limit.
func (e *Embedder) BatchSize() int { return int(e.batch.Load()) }

type embedRequest struct {
	Inputs     []string `json:"inputs"`
	Truncate   bool     `json:"truncate"`
	Normalize  bool     `json:"normalize"`
	PromptName string   `json:"prompt_name,omitempty"`
}

// run sends n items in batches of at most limit items, in order. A 413
// "batch size N > maximum allowed batch size M" lowers limit to M (for
// later calls too) and resends the batch split accordingly.
func run(ctx context.Context, n int, limit *atomic.Int64, send func(ctx context.Context, s batch.Span, b batch.Ref) error) error {
	var spans []batch.Span
	cut := func(lo, hi int) []batch.Span {
		var out []batch.Span
		size := int(limit.Load())
		for i := lo; i < hi; i += size {
			out = append(out, batch.Span{Lo: i, Hi: min(i+size, hi)})
		}
		return out
	}
	spans = cut(0, n)
	num := 0
	for len(spans) > 0 {
		s := spans[0]
		spans = spans[1:]
		num++
		err := send(ctx, s, batch.Ref{N: num, First: s.Lo, Last: s.Hi - 1})
		var e *Error
		if err != nil && errors.As(err, &e) && s.Hi-s.Lo > 1 {
			if m := batchLimit(e); m > 0 || (e.StatusCode == http.StatusRequestEntityTooLarge && e.Err == nil) {
				if m <= 0 || m >= s.Hi-s.Lo {
					m = (s.Hi - s.Lo) / 2
				}
				if int64(m) < limit.Load() {
					limit.Store(int64(m))
				}
				hi := s.Hi // spans are contiguous: re-cut everything left
				if len(spans) > 0 {
					hi = spans[len(spans)-1].Hi
				}
				spans = cut(s.Lo, hi)
				continue
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// prepare applies the input type's prefix and checks every text.
func (c *Client) prepare(op string, texts []string, prefix string, limit int) ([]string, error) {
	if _, p := batch.CheckTexts(texts, prefix, limit, "text", EstimateTokens); p != nil {
		return nil, c.Errs().Input(op, p)
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = prefix + t
	}
	return out, nil
}

// Embed returns one vector per text, in order, sending truncate:false: a
// text above the input limit is an error wrapping
// situate.ErrPromptTooLarge naming it, never truncated.
func (e *Embedder) Embed(ctx context.Context, texts []string, input driver.InputType) ([][]float32, error) {
	const op = "embed"
	if len(texts) == 0 {
		return nil, nil
	}
	c := e.c
	prefix, prompt := c.opts.DocumentPrefix, c.opts.DocumentPromptName
	if input == driver.InputQuery {
		prefix, prompt = c.opts.QueryPrefix, c.opts.QueryPromptName
	}
	in, err := c.prepare(op, texts, prefix, c.MaxInput)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	err = run(ctx, len(in), &e.batch, func(ctx context.Context, s batch.Span, b batch.Ref) error {
		req := embedRequest{Inputs: in[s.Lo:s.Hi], Normalize: !c.opts.NoNormalize, PromptName: prompt}
		var vecs [][]float32
		start := time.Now()
		hdr, err := c.Call(ctx, op, http.MethodPost, "/embed", b, req, &vecs)
		if err == nil {
			err = e.check(op, b, vecs, s.Hi-s.Lo)
		}
		if rerr := c.Record(ctx, op, computeTokens(hdr), start, err); rerr != nil && err == nil {
			err = rerr
		}
		if err == nil {
			copy(out[s.Lo:s.Hi], vecs)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (e *Embedder) check(op string, b batch.Ref, vecs [][]float32, n int) error {
	if problem := batch.CheckEmbeddings(vecs, n, 0, &e.dim); problem != "" {
		return e.c.Errs().BadResponse(op, b, false, "%s", problem)
	}
	return nil
}
