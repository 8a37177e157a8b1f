package tei

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/situate/situate"
)

// Embedder embeds texts with POST /embed. It is safe for concurrent use.
type Embedder struct {
	c     *Client
	batch atomic.Int64 // texts per request, lowered by 413s
	dim   atomic.Int64
}

var _ situate.Embedder = (*Embedder)(nil)

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
func (e *Embedder) Name() string { return ProviderName + ":" + e.c.model }

// Model is the served model id.
func (e *Embedder) Model() string { return e.c.model }

// BatchSize is the current texts-per-request limit.
func (e *Embedder) BatchSize() int { return int(e.batch.Load()) }

type embedRequest struct {
	Inputs     []string `json:"inputs"`
	Truncate   bool     `json:"truncate"`
	Normalize  bool     `json:"normalize"`
	PromptName string   `json:"prompt_name,omitempty"`
}

// span is a batch: items[lo:hi].
type span struct{ lo, hi int }

// batchRef names the request an error belongs to.
type batchRef struct {
	n, first, last int // n is 1-based; 0 means none
}

func (b batchRef) err(c *Client, op, typ, msg string) *Error {
	return &Error{Op: op, Model: c.model, Batch: b.n, First: b.first, Last: b.last, Index: -1, Type: typ, Message: msg}
}

// badResponse is a 2xx answer that cannot be used. A truncated or
// malformed body is retryable; a well-formed wrong answer is not.
func (c *Client) badResponse(op string, b batchRef, retry bool, format string, args ...any) *Error {
	e := b.err(c, op, TypeBadResponse, fmt.Sprintf(format, args...))
	e.retryable = retry
	return e
}

// run sends n items in batches of at most limit items, in order. A 413
// "batch size N > maximum allowed batch size M" lowers limit to M (for
// later calls too) and resends the batch split accordingly.
func run(ctx context.Context, n int, limit *atomic.Int64, send func(ctx context.Context, s span, b batchRef) error) error {
	var spans []span
	cut := func(lo, hi int) []span {
		var out []span
		size := int(limit.Load())
		for i := lo; i < hi; i += size {
			out = append(out, span{i, min(i+size, hi)})
		}
		return out
	}
	spans = cut(0, n)
	num := 0
	for len(spans) > 0 {
		s := spans[0]
		spans = spans[1:]
		num++
		err := send(ctx, s, batchRef{num, s.lo, s.hi - 1})
		var e *Error
		if err != nil && errors.As(err, &e) && s.hi-s.lo > 1 {
			if m := batchLimit(e); m > 0 || (e.StatusCode == http.StatusRequestEntityTooLarge && e.Err == nil) {
				if m <= 0 || m >= s.hi-s.lo {
					m = (s.hi - s.lo) / 2
				}
				if int64(m) < limit.Load() {
					limit.Store(int64(m))
				}
				hi := s.hi // spans are contiguous: re-cut everything left
				if len(spans) > 0 {
					hi = spans[len(spans)-1].hi
				}
				spans = cut(s.lo, hi)
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
	out := make([]string, len(texts))
	for i, t := range texts {
		if t == "" {
			e := (batchRef{}).err(c, op, TypeInvalid, fmt.Sprintf("text %d is empty", i))
			e.Index, e.Err = i, situate.ErrInvalid
			return nil, e
		}
		out[i] = prefix + t
		if n := EstimateTokens(out[i]); n > limit {
			e := (batchRef{}).err(c, op, TypeTooLong, fmt.Sprintf("text %d: about %d tokens (estimated from %d bytes) > MaxInputTokens %d; shorten it before embedding",
				i, n, len(out[i]), limit))
			e.Index, e.Err = i, situate.ErrPromptTooLarge
			return nil, e
		}
	}
	return out, nil
}

// Embed returns one vector per text, in order, sending truncate:false: a
// text above the input limit is an error wrapping
// situate.ErrPromptTooLarge naming it, never truncated.
func (e *Embedder) Embed(ctx context.Context, texts []string, input situate.InputType) ([][]float32, error) {
	const op = "embed"
	if len(texts) == 0 {
		return nil, nil
	}
	c := e.c
	prefix, prompt := c.opts.DocumentPrefix, c.opts.DocumentPromptName
	if input == situate.InputQuery {
		prefix, prompt = c.opts.QueryPrefix, c.opts.QueryPromptName
	}
	in, err := c.prepare(op, texts, prefix, c.maxInput)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	err = run(ctx, len(in), &e.batch, func(ctx context.Context, s span, b batchRef) error {
		req := embedRequest{Inputs: in[s.lo:s.hi], Normalize: !c.opts.NoNormalize, PromptName: prompt}
		var vecs [][]float32
		var hdr http.Header
		start := time.Now()
		err := c.do(ctx, op, http.MethodPost, "/embed", b, req, &vecs, &hdr)
		if err == nil {
			err = e.check(op, b, vecs, s.hi-s.lo)
		}
		if rerr := c.record(ctx, op, computeTokens(hdr), start, err); rerr != nil && err == nil {
			err = rerr
		}
		if err == nil {
			copy(out[s.lo:s.hi], vecs)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (e *Embedder) check(op string, b batchRef, vecs [][]float32, n int) error {
	want, src := int(e.dim.Load()), "earlier batches"
	dim, problem := checkVectors(vecs, n, want, src)
	if problem == "" && want == 0 && !e.dim.CompareAndSwap(0, int64(dim)) && int(e.dim.Load()) != dim {
		problem = fmt.Sprintf("vectors have dimension %d, earlier batches had %d", dim, e.dim.Load())
	}
	if problem != "" {
		return e.c.badResponse(op, b, false, "%s", problem)
	}
	return nil
}
