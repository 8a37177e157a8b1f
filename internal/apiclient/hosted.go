package apiclient

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/batch"
)

// Hosted is the client core the embedding and rerank adapters (cohere,
// voyage, gemini, tei) share: their options checked and completed with
// the adapter's defaults, one authenticated JSON request per call with
// errors read by the adapter's Response, usage records and input checks.
// The adapters export it as their Client (tei embeds it in its own). The
// key is kept unexported.
type Hosted struct {
	Provider string
	Model    string
	Base     *url.URL
	// Dims is the requested output dimension (0: the model's).
	Dims int
	// MaxInput bounds one text in estimated tokens; BatchSize and
	// BatchTokens bound one request.
	MaxInput, BatchSize, BatchTokens int
	HTTP                             *http.Client
	Timeout                          time.Duration
	Usage                            driver.UsageRecorder

	key      string
	auth     func(key string) http.Header
	response func(c *Hosted, op string, b batch.Ref, f *Fault) *Error
	tooLarge func(e *Error) bool
}

// HostedDefaults are what an adapter fills in and how it talks.
type HostedDefaults struct {
	Provider, KeyEnv, BaseURL string
	// KeyOptional accepts an empty key (a server of one's own, as TEI's
	// without --api-key): Auth is then given "".
	KeyOptional bool
	// Model is the default model; MaxInput and BatchTokens the model's
	// limits (nil: MaxInput stays as configured, no token limit per
	// request); MaxBatch the most texts per request.
	Model       string
	MaxInput    func(model string) int
	BatchTokens func(model string) int
	MaxBatch    int
	Timeout     time.Duration
	MaxIdle     int
	// Auth returns the headers that carry the key (and any other header
	// the provider wants on every request).
	Auth func(key string) http.Header
	// Response reads a non-2xx answer in the provider's error format.
	Response func(c *Hosted, op string, b batch.Ref, f *Fault) *Error
	// TooLarge reports an answer that refuses a request as carrying too
	// many texts or tokens: Embed and Rerank split that request in two.
	TooLarge func(e *Error) bool
}

// Hosted checks s (Check) and returns the client core with d's defaults
// for what s leaves at zero. An error names the provider and the field
// and wraps situate.ErrInvalid.
func (s Settings) Hosted(d HostedDefaults) (*Hosted, error) {
	s.KeyEnv, s.DefaultBaseURL, s.KeyOptional = d.KeyEnv, d.BaseURL, d.KeyOptional
	u, err := s.Check()
	if err != nil {
		return nil, fmt.Errorf("%s: options: %w: %w", d.Provider, err, driver.ErrInvalid)
	}
	c := &Hosted{Provider: d.Provider, Model: s.Model, Base: u, Dims: s.Dimensions, MaxInput: s.MaxInputTokens,
		BatchSize: s.BatchSize, BatchTokens: s.BatchTokens, HTTP: s.HTTPClient, Timeout: s.Timeout, Usage: s.Usage,
		key: s.APIKey, auth: d.Auth, response: d.Response, tooLarge: d.TooLarge}
	if c.Model == "" {
		c.Model = d.Model
	}
	if c.MaxInput == 0 && d.MaxInput != nil {
		c.MaxInput = d.MaxInput(c.Model)
	}
	if c.BatchSize == 0 || c.BatchSize > d.MaxBatch {
		c.BatchSize = d.MaxBatch
	}
	if c.BatchTokens == 0 {
		c.BatchTokens = math.MaxInt / 2
		if d.BatchTokens != nil {
			c.BatchTokens = d.BatchTokens(c.Model)
		}
	}
	if c.Timeout == 0 {
		c.Timeout = d.Timeout
	}
	if c.HTTP == nil {
		c.HTTP = NewHTTPClient(d.MaxIdle)
	}
	return c, nil
}

// Errs makes the client's errors (its key removed from every message).
func (c *Hosted) Errs() Caller { return Caller{Provider: c.Provider, Model: c.Model, Secret: c.key} }

// Post sends in as JSON to path and decodes the answer into out; an error
// is an *Error about request b.
func (c *Hosted) Post(ctx context.Context, op, path string, b batch.Ref, in, out any) error {
	_, err := c.Call(ctx, op, http.MethodPost, path, b, in, out)
	return err
}

// Call sends an authenticated request (in as JSON; nil sends no body) and
// decodes the answer into out. It returns the answer's header whenever a
// 2xx answer was read; an error is an *Error about request b.
func (c *Hosted) Call(ctx context.Context, op, method, path string, b batch.Ref, in, out any) (http.Header, error) {
	h, err := Do(ctx, c.HTTP, c.Timeout, Request{Method: method, URL: c.Base.JoinPath(path).String(),
		Header: c.auth(c.key), In: in}, out)
	return h, c.Errs().CallError(op, b, err, func(op string, b batch.Ref, f *Fault) *Error { return c.response(c, op, b, f) })
}

// TooLarge reports an error that refuses a request as too large
// (HostedDefaults.TooLarge): batch.Run splits that request in two.
func (c *Hosted) TooLarge(err error) bool {
	var e *Error
	return c.tooLarge != nil && errors.As(err, &e) && c.tooLarge(e)
}

// Record sends a usage record of one request to the configured recorder.
func (c *Hosted) Record(ctx context.Context, op string, tokens int, start time.Time, err error) error {
	return Record(ctx, c.Usage, driver.Usage{Time: start, Provider: c.Provider, Model: c.Model,
		Operation: op, InputTokens: tokens}, err)
}

// CheckTexts refuses empty texts and texts above limit (estimated tokens)
// with an *Error naming the text, and returns each text's estimate.
func (c *Hosted) CheckTexts(op string, texts []string, limit int, what string) ([]int, error) {
	tokens, p := batch.CheckTexts(texts, "", limit, what, EstimateTokens)
	if p != nil {
		return nil, c.Errs().Input(op, p)
	}
	return tokens, nil
}

// Name is "<provider>:<model>", with "@<dimensions>" when Dims is set:
// vectors of different dimensions must never share a cache key.
func (c *Hosted) Name() string {
	n := c.Provider + ":" + c.Model
	if c.Dims > 0 {
		n += "@" + strconv.Itoa(c.Dims)
	}
	return n
}

// Embed runs one embedding call the way the hosted adapters do: texts
// checked against MaxInput (an empty or too long text is an *Error naming
// it), planned into requests by BatchSize and BatchTokens, each sent by
// send, which returns the request's vectors in input order and the tokens
// billed. A request refused as too large (TooLarge) is split in two. Every
// request's vectors are checked (count, one dimension across the call and
// with *dim, finite values) and its usage recorded.
func (c *Hosted) Embed(ctx context.Context, op string, texts []string, dim *atomic.Int64,
	send func(ctx context.Context, texts []string, b batch.Ref) (vecs [][]float32, tokens int, err error)) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	tokens, err := c.CheckTexts(op, texts, c.MaxInput, "text")
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	err = batch.Run(ctx, batch.Plan(tokens, c.BatchSize, c.BatchTokens), func(ctx context.Context, s batch.Span, b batch.Ref) error {
		start := time.Now()
		vecs, billed, err := send(ctx, texts[s.Lo:s.Hi], b)
		if err == nil {
			if problem := batch.CheckEmbeddings(vecs, s.Hi-s.Lo, c.Dims, dim); problem != "" {
				err = c.Errs().BadResponse(op, b, false, "%s", problem)
			}
		}
		if rerr := c.Record(ctx, op, billed, start, err); rerr != nil && err == nil {
			err = rerr
		}
		if err == nil {
			copy(out[s.Lo:s.Hi], vecs)
		}
		return err
	}, c.TooLarge)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Rerank runs one rerank call the way the hosted adapters do, over texts
// already checked, whose estimated tokens (with the query's share) are
// given: planned into requests by BatchSize and BatchTokens (split in two
// when TooLarge says one was refused as too large), each sent by send,
// which returns the request's results (indexes into the span's texts, in
// any order) and the tokens billed. Scores are placed back in input order
// (every index once, finite scores: a breach is an *Error naming list and
// field of the answer) and every request's usage recorded.
func (c *Hosted) Rerank(ctx context.Context, op string, tokens []int, list, field string,
	send func(ctx context.Context, s batch.Span, b batch.Ref) (res []batch.Scored, billed int, err error)) ([]float64, error) {
	scores := make([]float64, len(tokens))
	err := batch.Run(ctx, batch.Plan(tokens, c.BatchSize, c.BatchTokens), func(ctx context.Context, s batch.Span, b batch.Ref) error {
		start := time.Now()
		res, billed, err := send(ctx, s, b)
		if err == nil {
			if problem := batch.PlaceScores(res, scores[s.Lo:s.Hi], list, field); problem != "" {
				err = c.Errs().BadResponse(op, b, false, "%s", problem)
			}
		}
		if rerr := c.Record(ctx, op, billed, start, err); rerr != nil && err == nil {
			err = rerr
		}
		return err
	}, c.TooLarge)
	if err != nil {
		return nil, err
	}
	return scores, nil
}
