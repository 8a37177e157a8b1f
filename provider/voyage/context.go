package voyage

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Limits of POST /v1/contextualizedembeddings.
const (
	// MaxContextInputs is the most documents per request.
	MaxContextInputs = 1000
	// ContextBatchTokens is the most tokens per request, all documents
	// together.
	ContextBatchTokens = 120000
)

// ContextEmbedder embeds chunks in the context of their whole document
// with POST /v1/contextualizedembeddings (voyage-context-3): every chunk's
// vector also encodes the other chunks of its document. It is an
// alternative to prepending LLM-written contexts. It is safe for concurrent
// use.
type ContextEmbedder struct {
	c   *Client
	dim atomic.Int64
}

var _ driver.Embedder = (*ContextEmbedder)(nil)

// NewContextEmbedder validates opts and returns a ContextEmbedder; Model
// defaults to DefaultContextModel and MaxInputTokens bounds one whole
// document.
func NewContextEmbedder(opts Options) (*ContextEmbedder, error) {
	c, err := newClient(opts, DefaultContextModel)
	if err != nil {
		return nil, err
	}
	if c.BatchTokens > ContextBatchTokens {
		c.BatchTokens = ContextBatchTokens
	}
	return &ContextEmbedder{c: c}, nil
}

// Name is "voyage:<model>" (with "@<dimensions>" if set).
func (e *ContextEmbedder) Name() string { return e.c.Name() }

type contextRequest struct {
	Inputs          [][]string `json:"inputs"`
	Model           string     `json:"model"`
	InputType       string     `json:"input_type"`
	OutputDimension int        `json:"output_dimension,omitempty"`
	OutputDtype     string     `json:"output_dtype"`
}

type contextResponse struct {
	Data []struct {
		Data  []embedding `json:"data"`
		Index *int        `json:"index"`
	} `json:"data"`
	Model string    `json:"model"`
	Usage wireUsage `json:"usage"`
}

// Embed embeds every text as a document of its own (one chunk, no
// context), which is how queries are sent to a contextualized model. For
// document chunks use EmbedDocumentChunks.
func (e *ContextEmbedder) Embed(ctx context.Context, texts []string, input driver.InputType) ([][]float32, error) {
	docs := make([][]string, len(texts))
	for i, t := range texts {
		docs[i] = []string{t}
	}
	vecs, err := e.embed(ctx, docs, input)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i := range vecs {
		out[i] = vecs[i][0]
	}
	return out, nil
}

// EmbedDocumentChunks embeds the chunks of several documents, chunks[d]
// being document d's chunks in order, each in the context of its document.
// It returns one vector per chunk, in the same shape. A document whose
// chunks together exceed MaxInputTokens is an error wrapping
// situate.ErrPromptTooLarge naming it. Batches never split a document.
func (e *ContextEmbedder) EmbedDocumentChunks(ctx context.Context, chunks [][]string) ([][][]float32, error) {
	return e.embed(ctx, chunks, driver.InputDocument)
}

func (e *ContextEmbedder) embed(ctx context.Context, docs [][]string, input driver.InputType) ([][][]float32, error) {
	const op = "contextualized_embed"
	if len(docs) == 0 {
		return nil, nil
	}
	c := e.c
	tokens := make([]int, len(docs))
	for d, chunks := range docs {
		if len(chunks) == 0 {
			err := c.Errs().New(op, batch.Ref{}, TypeInvalid, fmt.Sprintf("document %d has no chunks", d))
			err.Index, err.Err = d, driver.ErrInvalid
			return nil, err
		}
		if len(chunks) > MaxContextChunks {
			err := c.Errs().New(op, batch.Ref{}, TypeTooLong, fmt.Sprintf("document %d has %d chunks > %d per request", d, len(chunks), MaxContextChunks))
			err.Index, err.Err = d, driver.ErrPromptTooLarge
			return nil, err
		}
		ct, err := c.CheckTexts(op, chunks, c.MaxInput, fmt.Sprintf("document %d chunk", d))
		if err != nil {
			err.(*Error).Index = d
			return nil, err
		}
		for _, t := range ct {
			tokens[d] += t
		}
		if tokens[d] > c.MaxInput {
			err := c.Errs().New(op, batch.Ref{}, TypeTooLong, fmt.Sprintf("document %d: about %d tokens (estimated) > MaxInputTokens %d; split the document", d, tokens[d], c.MaxInput))
			err.Index, err.Err = d, driver.ErrPromptTooLarge
			return nil, err
		}
	}
	// Plan by documents, bounding documents, chunks and tokens.
	var spans []batch.Span
	lo, sumTok, sumChunks := 0, 0, 0
	maxDocs := min(c.BatchSize, MaxContextInputs)
	for d := range docs {
		if d > lo && (d-lo >= maxDocs || sumTok+tokens[d] > c.BatchTokens || sumChunks+len(docs[d]) > MaxContextChunks) {
			spans = append(spans, batch.Span{Lo: lo, Hi: d})
			lo, sumTok, sumChunks = d, 0, 0
		}
		sumTok += tokens[d]
		sumChunks += len(docs[d])
	}
	spans = append(spans, batch.Span{Lo: lo, Hi: len(docs)})

	out := make([][][]float32, len(docs))
	err := batch.Run(ctx, spans, func(ctx context.Context, s batch.Span, b batch.Ref) error {
		req := contextRequest{Inputs: docs[s.Lo:s.Hi], Model: c.Model, InputType: inputType(input),
			OutputDimension: c.Dims, OutputDtype: "float"}
		var resp contextResponse
		start := time.Now()
		err := c.Post(ctx, op, "/v1/contextualizedembeddings", b, req, &resp)
		if err == nil {
			err = e.collectDocs(op, b, resp, docs[s.Lo:s.Hi], out[s.Lo:s.Hi])
		}
		if rerr := c.Record(ctx, "embed", resp.Usage.TotalTokens, start, err); rerr != nil && err == nil {
			err = rerr
		}
		return err
	}, c.TooLarge)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (e *ContextEmbedder) collectDocs(op string, b batch.Ref, resp contextResponse, docs [][]string, dst [][][]float32) error {
	c := e.c
	if len(resp.Data) != len(docs) {
		return c.Errs().BadResponse(op, b, false, "got %d documents for %d", len(resp.Data), len(docs))
	}
	got := make([][][]float32, len(docs))
	for i, d := range resp.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= len(docs) || got[idx] != nil {
			return c.Errs().BadResponse(op, b, false, "data[%d].index %d is out of range or repeated", i, idx)
		}
		vecs := make([][]float32, len(docs[idx]))
		if err := collect(c, &e.dim, op, b, d.Data, vecs); err != nil {
			err.(*Error).Message = fmt.Sprintf("document %d: %s", b.First+idx, err.(*Error).Message)
			return err
		}
		got[idx] = vecs
	}
	copy(dst, got)
	return nil
}
