package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/driver"
)

// DefaultBatchPoll is how often a pending batch is polled.
const DefaultBatchPoll = 30 * time.Second

// BatchClient is a chat model that also runs message batches (Anthropic's
// Message Batches: half price, results within 24 hours). provider/anthropic's
// Batcher implements it.
type BatchClient interface {
	driver.LLM
	driver.TokenCounter
	driver.ContextWindower
	// Submit creates a batch of prompts, each under its custom id, and
	// returns the batch's id.
	Submit(ctx context.Context, customIDs []string, prompts []driver.Prompt) (string, error)
	// Poll reports whether the batch has ended, and its state in words.
	Poll(ctx context.Context, id string) (ended bool, status string, err error)
	// Results streams an ended batch's results: each custom id with its
	// completion, or the request's error.
	Results(ctx context.Context, id string, fn func(customID string, c driver.Completion, err error) error) error
	// Expired reports whether a request's error means it was never run
	// (canceled or expired), so it should be submitted again.
	Expired(err error) bool
	// CustomID is a valid, deterministic custom id for a document's chunk.
	CustomID(docID string, chunk int) string
	// MaxRequests is the most requests one batch may hold.
	MaxRequests() int
	// CacheTTL is the prompt cache TTL batch requests are written with.
	CacheTTL() string
}

// BatchOptions configure a Batch.
type BatchOptions struct {
	// Options are the contextualizer's (template, windows, prices,
	// fallback, MaxCostUSD...). Cache is required: the batch's answers are
	// cached there and the run's contextualizer reads them back. Usage
	// receives the token counts and the batch calls (operation "batch").
	Options
	// Meta remembers the pending batch, so a restarted run polls it
	// instead of paying for a second one.
	Meta driver.MetaStore
	// Poll is how often a pending batch is polled (default
	// DefaultBatchPoll).
	Poll time.Duration
	// Log, when set, receives a line for every stage (submitted, polled,
	// resumed, results); warning marks what a user should see even when
	// progress is not shown (a stored batch that was not resumed).
	Log func(msg string, warning bool)
}

// Batch writes contexts through a provider's message batches; it
// implements situate.BatchContextualizer, so that Engine.Index runs it as a
// mode of the indexing workflow:
//
//  1. Collect: the contextualizer plans every document exactly as a normal
//     run would (template, windows, cache lookups), against a model that
//     only records the prompts. Chunks already cached are not collected.
//  2. Submit: one batch (several above MaxRequests), its id and the prompt
//     hash of every custom id kept in Meta before polling.
//  3. Poll until the batch has ended; stream its results.
//  4. Replay: the contextualizer runs again against a model that answers
//     each prompt with its batch result: answers are checked and cached
//     under the usual keys, usage recorded as operation "batch" at the
//     batch discount. The Meta entry is then cleared.
//  5. The contextualizer returned answers from the cache and gives a chunk
//     whose request failed the fallback, flagged: the next batch run sends
//     it again.
type Batch struct {
	client BatchClient
	opts   BatchOptions
}

// batchMetaKey is the meta key holding the pending batch.
func batchMetaKey(provider string) string { return "llm-batch:" + provider }

// NewBatch returns a Batch over client.
func NewBatch(client BatchClient, opts BatchOptions) (*Batch, error) {
	if opts.Cache == nil {
		return nil, fmt.Errorf("llm batch options: Cache: required: %w", driver.ErrInvalid)
	}
	if opts.Meta == nil {
		return nil, fmt.Errorf("llm batch options: Meta: required: %w", driver.ErrInvalid)
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultBatchPoll
	}
	// The runs below call no provider (they collect prompts and replay
	// answers); message batches are not subject to per-minute limits.
	opts.RequestsPerMinute, opts.InputTokensPerMinute = 0, 0
	if _, err := New(client, opts.Options); err != nil {
		return nil, err
	}
	return &Batch{client: client, opts: opts}, nil
}

func (b *Batch) log(format string, args ...any) {
	if b.opts.Log != nil {
		b.opts.Log(fmt.Sprintf(format, args...), false)
	}
}

func (b *Batch) warn(format string, args ...any) {
	if b.opts.Log != nil {
		b.opts.Log(fmt.Sprintf(format, args...), true)
	}
}

// batchState is the pending batch, as kept in Meta.
type batchState struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	// Items maps custom_id to the hash of the prompt it was sent with.
	Items map[string]string `json:"items"`
}

// promptHash identifies a prompt's content.
func promptHash(p driver.Prompt) string {
	h := sha256.New()
	for _, s := range []string{p.DocID, p.Prefix, p.Suffix} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	fmt.Fprintf(h, "max=%d", p.MaxTokens)
	return hex.EncodeToString(h.Sum(nil))
}

type batchResult struct {
	comp driver.Completion
	err  error
}

// tokenMemo shares exact token counts between the collecting and the
// replaying model, so both plan identically and the API is asked once.
type tokenMemo struct {
	mu     sync.Mutex
	counts map[[32]byte]int
	client BatchClient
}

func (m *tokenMemo) CountTokens(ctx context.Context, text string) (int, error) {
	k := sha256.Sum256([]byte(text))
	m.mu.Lock()
	n, ok := m.counts[k]
	m.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := m.client.CountTokens(ctx, text)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	m.counts[k] = n
	m.mu.Unlock()
	return n, nil
}

// errCollectOnly is what the collecting model answers every call with; it
// is not retryable, so the contextualizer moves on at once.
var errCollectOnly = errors.New("batch: prompt collected for the batch")

// collectModel records prompts instead of calling the API.
type collectModel struct {
	client BatchClient
	memo   *tokenMemo
	mu     sync.Mutex
	last   *driver.Prompt
}

func (m *collectModel) Name() string { return m.client.Name() }
func (m *collectModel) ContextWindow(ctx context.Context) (int, error) {
	return m.client.ContextWindow(ctx)
}
func (m *collectModel) CountTokens(ctx context.Context, text string) (int, error) {
	return m.memo.CountTokens(ctx, text)
}
func (m *collectModel) Complete(_ context.Context, p driver.Prompt) (driver.Completion, error) {
	m.mu.Lock()
	m.last = &p
	m.mu.Unlock()
	return driver.Completion{}, errCollectOnly
}

// replayModel answers prompts with batch results.
type replayModel struct {
	client  BatchClient
	memo    *tokenMemo
	results map[string]batchResult // by prompt hash
}

func (m *replayModel) Name() string { return m.client.Name() }
func (m *replayModel) ContextWindow(ctx context.Context) (int, error) {
	return m.client.ContextWindow(ctx)
}
func (m *replayModel) CountTokens(ctx context.Context, text string) (int, error) {
	return m.memo.CountTokens(ctx, text)
}
func (m *replayModel) Complete(_ context.Context, p driver.Prompt) (driver.Completion, error) {
	r, ok := m.results[promptHash(p)]
	if !ok {
		return driver.Completion{}, fmt.Errorf("batch: %s: no batch result for this prompt", p.DocID)
	}
	if r.err != nil {
		// Not retryable here (%v, not %w): the chunk gets the fallback and
		// is resubmitted by the next batch run.
		return r.comp, fmt.Errorf("batch request failed: %v", r.err)
	}
	return r.comp, nil
}

// batchUsage records replayed batch calls as operation "batch", priced at
// the batch discount with the batch cache TTL, and drops the replay's
// token-count records (they were recorded when counted).
type batchUsage struct {
	rec      driver.UsageRecorder
	price    Price
	hasPrice bool
	ttl      string
}

func (b batchUsage) RecordUsage(ctx context.Context, u driver.Usage) error {
	if u.Operation == "count" && u.Error == "" {
		return nil
	}
	if u.Operation == "context" {
		u.Operation = "batch"
		u.Batch = true
		if b.ttl == "1h" {
			u.CacheWrite1hTokens = u.CacheWriteTokens
		}
		u.CostUSD = 0
		if b.hasPrice {
			u.CostUSD = b.price.Cost(u, b.ttl) * (1 - b.price.BatchDiscount)
		}
	}
	return b.rec.RecordUsage(ctx, u)
}

// countsOnly passes on token-count records only: the collecting model's
// calls are not calls.
type countsOnly struct{ rec driver.UsageRecorder }

func (c countsOnly) RecordUsage(ctx context.Context, u driver.Usage) error {
	if u.Operation != "count" {
		return nil
	}
	return c.rec.RecordUsage(ctx, u)
}

type nopUsage struct{}

func (nopUsage) RecordUsage(context.Context, driver.Usage) error { return nil }

// ContextualizeBatch writes the contexts of docs through one batch (see
// Batch) and returns the contextualizer that answers them.
func (b *Batch) ContextualizeBatch(ctx context.Context, docs []driver.DocumentChunks) (driver.Contextualizer, error) {
	client := b.client
	base := b.opts.Options
	usage := base.Usage
	if usage == nil {
		usage = nopUsage{}
	}
	memo := &tokenMemo{counts: map[[32]byte]int{}, client: client}
	price, hasPrice := base.Prices.Lookup(client.Name())
	dcs := make([]DocChunks, len(docs))
	for i, d := range docs {
		dcs[i] = DocChunks{Doc: d.Doc, Chunks: d.Chunks}
	}

	// 1. Collect the prompts of chunks not cached yet.
	type item struct {
		customID string
		prompt   driver.Prompt
	}
	var items []item
	if len(dcs) > 0 {
		cm := &collectModel{client: client, memo: memo}
		o := base
		o.Concurrency = 1 // calls in sequence: each is followed by its chunk's emit
		o.MaxCostUSD = 0
		o.Fallback = nil
		o.BreakerFailures = 0 // every collecting call "fails" on purpose
		o.Usage = countsOnly{usage}
		col, err := New(cm, o)
		if err != nil {
			return nil, err
		}
		err = col.Run(ctx, dcs, func(di, ci int, x driver.Context) error {
			if !slices.Contains(x.Flags, FlagError) {
				return nil // cached, or too large for any call
			}
			cm.mu.Lock()
			p := cm.last
			cm.last = nil
			cm.mu.Unlock()
			ch := dcs[di].Chunks[ci]
			if p == nil || p.DocID != dcs[di].Doc.ID || !strings.Contains(p.Suffix, ch.Text) {
				return fmt.Errorf("batch: collect %s chunk %d: prompt does not match the chunk", dcs[di].Doc.ID, ci)
			}
			items = append(items, item{customID: client.CustomID(p.DocID, ci), prompt: *p})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("batch: plan prompts: %w", err)
		}
	}

	provider, _ := splitName(client.Name())
	metaKey := batchMetaKey(provider)
	results := map[string]batchResult{}
	fetch := func(st batchState, resubmit bool) error {
		if err := b.wait(ctx, st.ID); err != nil {
			return err
		}
		return b.fetchResults(ctx, st, results, resubmit)
	}
	// 2. Resume a batch an earlier run submitted.
	if raw, ok, err := b.opts.Meta.Meta(ctx, metaKey); err != nil {
		return nil, err
	} else if ok && raw != "" {
		var st batchState
		if err := json.Unmarshal([]byte(raw), &st); err != nil || st.ID == "" {
			b.warn("batch: store meta %q is not a batch record (%v): ignored and replaced", metaKey, err)
		} else if st.Model != client.Name() {
			b.warn("batch %s: submitted by an earlier run for %s, not %s: not resumed (its results stay in the Console for 29 days)", st.ID, st.Model, client.Name())
		} else {
			b.log("batch %s: resuming (submitted by an earlier run, %d requests)", st.ID, len(st.Items))
			// Canceled or expired requests of an old batch are sent again.
			if err := fetch(st, true); errors.Is(err, driver.ErrNotFound) {
				b.warn("batch %s: no longer known to the API (%v): its requests are submitted again", st.ID, err)
			} else if err != nil {
				return nil, err
			}
		}
	}
	// 3. Submit what the stored batch does not cover.
	var ids []string
	var prompts []driver.Prompt
	st := batchState{Model: client.Name(), Items: map[string]string{}}
	for _, it := range items {
		h := promptHash(it.prompt)
		if _, ok := results[h]; ok {
			continue
		}
		ids = append(ids, it.customID)
		prompts = append(prompts, it.prompt)
		st.Items[it.customID] = h
	}
	if limit := base.MaxCostUSD; limit > 0 && len(ids) > 0 {
		if !hasPrice {
			return nil, fmt.Errorf("batch: MaxCostUSD: no price for %s: %w", client.Name(), driver.ErrInvalid)
		}
		// Projected as if nothing were cached, at the batch discount.
		est := Estimate(dcs, client.Name(), nil, EstimateOptions{Options: base})
		if proj := est.CostBatchUSD * float64(len(ids)) / float64(max(1, est.Calls)); proj > limit {
			return nil, fmt.Errorf("batch: %d requests projected at $%.4f exceed --max-cost $%.4f: %w", len(ids), proj, limit, ErrBudget)
		}
	}
	step := max(1, client.MaxRequests())
	for start := 0; start < len(ids); start += step {
		end := min(len(ids), start+step)
		id, err := client.Submit(ctx, ids[start:end], prompts[start:end])
		if err != nil {
			return nil, fmt.Errorf("batch: submit %d requests: %w", end-start, err)
		}
		pst := batchState{ID: id, Model: st.Model, Items: map[string]string{}}
		for _, cid := range ids[start:end] {
			pst.Items[cid] = st.Items[cid]
		}
		data, _ := json.Marshal(pst)
		if err := b.opts.Meta.SetMeta(ctx, metaKey, string(data)); err != nil {
			return nil, fmt.Errorf("batch: remember batch %s: %w", id, err)
		}
		b.log("batch %s: submitted %d requests for %d documents", id, end-start, len(dcs))
		if err := fetch(pst, false); err != nil {
			return nil, err
		}
	}
	failed := 0
	for _, r := range results {
		if r.err != nil {
			failed++
		}
	}

	// 4. Replay: check and cache the answers, record usage.
	rm := &replayModel{client: client, memo: memo, results: results}
	if len(dcs) > 0 && len(results) > 0 {
		o := base
		o.MaxCostUSD = 0
		o.MaxRetries = 0
		o.BreakerFailures = 0   // failed batch results fall back one by one
		o.DegenerateRetries = 0 // a batch result cannot be asked again now
		o.Usage = batchUsage{rec: usage, price: price, hasPrice: hasPrice, ttl: client.CacheTTL()}
		rp, err := New(rm, o)
		if err != nil {
			return nil, err
		}
		if err := rp.Run(ctx, dcs, func(int, int, driver.Context) error { return nil }); err != nil {
			return nil, fmt.Errorf("batch: store results: %w", err)
		}
	}
	if err := b.opts.Meta.SetMeta(ctx, metaKey, ""); err != nil {
		return nil, err
	}
	if len(results) > 0 {
		b.log("batch: %d results succeeded, %d failed (failed chunks get the offline context, flagged)", len(results)-failed, failed)
	}

	// 5. The contextualizer that commits: cache hits, the fallback for
	// failures.
	o := base
	o.MaxCostUSD = 0
	o.MaxRetries = 0
	o.BreakerFailures = 0   // failed batch results fall back one by one
	o.DegenerateRetries = 0 // a batch result cannot be asked again now
	o.Usage = nil
	return New(rm, o)
}

// wait polls until the batch has ended, retrying retryable errors.
func (b *Batch) wait(ctx context.Context, id string) error {
	failures := 0
	for {
		ended, status, err := b.client.Poll(ctx, id)
		if err != nil {
			var r interface{ Retryable() bool }
			if errors.As(err, &r) && r.Retryable() && failures < DefaultMaxRetries {
				failures++
				if err := sleep(ctx, b.opts.Poll); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("batch: poll %s: %w", id, err)
		}
		failures = 0
		if ended {
			return nil
		}
		b.log("batch %s: %s", id, status)
		if err := sleep(ctx, b.opts.Poll); err != nil {
			return err
		}
	}
}

// fetchResults streams an ended batch's results into results (by prompt
// hash), retrying a cut-off download. With resubmit, canceled and expired
// requests are left out so that they are submitted again.
func (b *Batch) fetchResults(ctx context.Context, st batchState, results map[string]batchResult, resubmit bool) error {
	var err error
	for attempt := 0; attempt <= DefaultMaxRetries; attempt++ {
		err = b.client.Results(ctx, st.ID, func(customID string, comp driver.Completion, rerr error) error {
			h, ok := st.Items[customID]
			if !ok {
				return nil // not ours, or not expected any more
			}
			if resubmit && rerr != nil && b.client.Expired(rerr) {
				return nil // left out: submitted again
			}
			results[h] = batchResult{comp: comp, err: rerr}
			return nil
		})
		if err == nil {
			return nil
		}
		var r interface{ Retryable() bool }
		if !errors.As(err, &r) || !r.Retryable() || ctx.Err() != nil {
			break
		}
		if serr := sleep(ctx, time.Duration(attempt+1)*200*time.Millisecond); serr != nil {
			return serr
		}
	}
	return fmt.Errorf("batch: results of %s: %w", st.ID, err)
}

var _ driver.BatchContextualizer = (*Batch)(nil)
