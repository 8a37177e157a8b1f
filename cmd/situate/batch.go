package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/sqlite"
)

// Batch mode ("situate index --batch"): the contexts of all changed
// documents are written through Anthropic's Message Batches API (half
// price) instead of one streaming call per chunk.
//
//  1. Collect: the LLM contextualizer plans every changed document exactly
//     as a normal run would (template, windows, cache lookups), but against
//     a model that only records the prompts it is given. Chunks whose
//     context is already cached are not collected.
//  2. Submit: one batch, grouped by document, custom_id =
//     anthropic.BatchCustomID(docID, chunk index). Its id and the prompt
//     hash of every custom_id go to the store's meta (batchMetaKey) before
//     polling, so a restarted run polls that batch instead of paying for a
//     second one.
//  3. Poll until the batch has ended; stream its results.
//  4. Replay: the contextualizer runs again against a model that answers
//     each prompt with its batch result. It checks the answers and caches
//     them under the usual keys; usage is recorded with operation "batch"
//     at the batch discount. The meta entry is then cleared.
//  5. Commit: the caller puts the documents through the engine returned,
//     whose contextualizer answers from the cache and gives a chunk whose
//     batch request failed the offline context flagged "fallback". The next
//     batch run sends such chunks again (their documents are re-processed
//     even when unchanged; the other chunks come from the cache).

// batchMetaKey is the store meta key holding the pending batch.
const batchMetaKey = "llm-batch:anthropic"

// DefaultBatchPoll is how often a pending batch is polled.
const DefaultBatchPoll = 30 * time.Second

// batchState is the pending batch, as stored in the meta table.
type batchState struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	// Items maps custom_id to the hash of the prompt it was sent with.
	Items map[string]string `json:"items"`
}

// batchOptions configure indexBatch.
type batchOptions struct {
	Poll  time.Duration
	Quiet bool
}

// batchReport says what indexBatch did.
type batchReport struct {
	BatchIDs  []string
	Resumed   bool // a batch stored by an earlier run was polled
	Requests  int  // requests submitted by this run
	Succeeded int
	Failed    int
}

// promptHash identifies a prompt's content.
func promptHash(p situate.Prompt) string {
	h := sha256.New()
	for _, s := range []string{p.DocID, p.Prefix, p.Suffix} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	fmt.Fprintf(h, "max=%d", p.MaxTokens)
	return hex.EncodeToString(h.Sum(nil))
}

// batchResult is one request's outcome.
type batchResult struct {
	comp situate.Completion
	err  error
}

// tokenMemo shares exact token counts between the collecting and the
// replaying model, so both plan identically and the API is asked once.
type tokenMemo struct {
	mu     sync.Mutex
	counts map[string]int
	client *anthropic.Client
}

func (m *tokenMemo) CountTokens(ctx context.Context, text string) (int, error) {
	sum := sha256.Sum256([]byte(text))
	k := string(sum[:])
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
var errCollectOnly = errors.New("batch mode: prompt collected for the batch")

// collectModel records prompts instead of calling the API.
type collectModel struct {
	client *anthropic.Client
	memo   *tokenMemo
	mu     sync.Mutex
	last   *situate.Prompt
}

func (m *collectModel) Name() string { return m.client.Name() }
func (m *collectModel) ContextWindow(ctx context.Context) (int, error) {
	return m.client.ContextWindow(ctx)
}
func (m *collectModel) CountTokens(ctx context.Context, text string) (int, error) {
	return m.memo.CountTokens(ctx, text)
}
func (m *collectModel) Complete(_ context.Context, p situate.Prompt) (situate.Completion, error) {
	m.mu.Lock()
	m.last = &p
	m.mu.Unlock()
	return situate.Completion{}, errCollectOnly
}

// replayModel answers prompts with batch results.
type replayModel struct {
	client  *anthropic.Client
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
func (m *replayModel) Complete(_ context.Context, p situate.Prompt) (situate.Completion, error) {
	r, ok := m.results[promptHash(p)]
	if !ok {
		return situate.Completion{}, fmt.Errorf("batch mode: %s: no batch result for this prompt", p.DocID)
	}
	if r.err != nil {
		// Not retryable here (%v, not %w): the chunk gets the fallback and
		// is resubmitted by the next batch run.
		return r.comp, fmt.Errorf("batch request failed: %v", r.err)
	}
	return r.comp, nil
}

// batchUsage records replayed batch calls as operation "batch", priced at
// the batch discount with the 1-hour cache writes batches use, and drops
// the replay's token-count records (they were recorded when counted).
type batchUsage struct {
	rec      situate.UsageRecorder
	price    llm.Price
	hasPrice bool
}

func (b batchUsage) RecordUsage(ctx context.Context, u situate.Usage) error {
	if u.Operation == "count" && u.Error == "" {
		return nil
	}
	if u.Operation == "context" {
		u.Operation = "batch"
		u.Batch = true
		u.CacheWrite1hTokens = u.CacheWriteTokens
		u.CostUSD = 0
		if b.hasPrice {
			u.CostUSD = b.price.Cost(u, anthropic.BatchCacheTTL) * (1 - b.price.BatchDiscount)
		}
	}
	return b.rec.RecordUsage(ctx, u)
}

// countsOnly passes on token-count records only: the collecting model's
// calls are not calls.
type countsOnly struct{ rec situate.UsageRecorder }

func (c countsOnly) RecordUsage(ctx context.Context, u situate.Usage) error {
	if u.Operation != "count" {
		return nil
	}
	return c.rec.RecordUsage(ctx, u)
}

// anthropicClient returns the Anthropic client named by --llm.
func anthropicClient(c *config, e *env) (*anthropic.Client, error) {
	if p, _, _ := strings.Cut(c.str("llm"), ":"); p != "anthropic" {
		return nil, usagef("--batch needs --llm anthropic:MODEL (Message Batches are Anthropic's), got %q", c.str("llm"))
	}
	models, err := newLLM(c, e)
	if err != nil {
		return nil, err
	}
	client, ok := models[0].(*anthropic.Client)
	if !ok {
		return nil, fmt.Errorf("--batch: %s is not an Anthropic client", models[0].Name())
	}
	return client, nil
}

// indexBatch writes the contexts of the changed documents among docs
// through a Message Batch (see the comment at the top of this file) and
// returns an engine, replacing eng (which it closes), whose contextualizer
// answers from the cache; the caller then puts docs through it as usual.
func indexBatch(ctx context.Context, e *env, c *config, eng *situate.Engine, store *sqlite.Store, docs []situate.Document, bo batchOptions) (*situate.Engine, batchReport, error) {
	var rep batchReport
	if bo.Poll <= 0 {
		bo.Poll = DefaultBatchPoll
	}
	client, err := anthropicClient(c, e)
	if err != nil {
		return nil, rep, err
	}
	baseOpts, err := llmOptions(c)
	if err != nil {
		return nil, rep, err
	}
	// The runs below call no provider (they collect prompts and replay
	// answers); Message Batches are not subject to the per-minute limits.
	baseOpts.RequestsPerMinute, baseOpts.InputTokensPerMinute = 0, 0
	memo := &tokenMemo{counts: map[string]int{}, client: client}
	price, hasPrice := baseOpts.Prices.Lookup(client.Name())

	// The changed documents, chunked as Prepare does, and the unchanged
	// ones holding a fallback context (a request that failed in an earlier
	// batch): those are retried.
	current := eng.ProcessingFingerprint()
	retry, err := fallbackDocs(ctx, eng, store, docs)
	if err != nil {
		return nil, rep, err
	}
	var dcs []llm.DocChunks
	for _, d := range docs {
		if rec, err := eng.Document(d.ID); err == nil && rec.Hash == d.Hash()+"/"+current && !slices.ContainsFunc(retry, func(r situate.DocumentRecord) bool { return r.ID == d.ID }) {
			continue
		}
		d.Lang = situate.ResolveLanguage(d)
		chunks, err := eng.Split(d)
		if err != nil {
			return nil, rep, err
		}
		dcs = append(dcs, llm.DocChunks{Doc: d, Chunks: chunks})
	}

	// 1. Collect the prompts of chunks not cached yet.
	type item struct {
		customID string
		prompt   situate.Prompt
	}
	var items []item
	if len(dcs) > 0 {
		cm := &collectModel{client: client, memo: memo}
		o := baseOpts
		o.Concurrency = 1 // calls in sequence: each is followed by its chunk's emit
		o.MaxCostUSD = 0
		o.Fallback = nil
		o.BreakerFailures = 0 // every collecting call "fails" on purpose
		o.Cache, o.Usage = store, countsOnly{store}
		col, err := llm.New(cm, o)
		if err != nil {
			return nil, rep, usageError{err}
		}
		err = col.Run(ctx, dcs, func(di, ci int, x situate.Context) error {
			if !hasFlag(x.Flags, llm.FlagError) {
				return nil // cached, or too large for any call
			}
			cm.mu.Lock()
			p := cm.last
			cm.last = nil
			cm.mu.Unlock()
			ch := dcs[di].Chunks[ci]
			if p == nil || p.DocID != dcs[di].Doc.ID || !strings.Contains(p.Suffix, ch.Text) {
				return fmt.Errorf("batch mode: collect %s chunk %d: prompt does not match the chunk", dcs[di].Doc.ID, ci)
			}
			items = append(items, item{customID: anthropic.BatchCustomID(p.DocID, ci), prompt: *p})
			return nil
		})
		if err != nil {
			return nil, rep, fmt.Errorf("batch mode: plan prompts: %w", err)
		}
	}

	results := map[string]batchResult{}
	fetch := func(st batchState, resubmit bool) error {
		if err := waitBatch(ctx, e, client, st.ID, bo); err != nil {
			return err
		}
		return fetchResults(ctx, client, st, results, resubmit)
	}
	// 2. Resume a batch an earlier run submitted.
	if raw, ok, err := store.Meta(ctx, batchMetaKey); err != nil {
		return nil, rep, err
	} else if ok && raw != "" {
		var st batchState
		if err := json.Unmarshal([]byte(raw), &st); err != nil || st.ID == "" {
			fmt.Fprintf(e.stderr, "batch: store meta %q is not a batch record (%v): ignored and replaced\n", batchMetaKey, err)
		} else if st.Model != client.Name() {
			fmt.Fprintf(e.stderr, "batch %s: submitted by an earlier run for %s, not %s: not resumed (its results stay in the Console for 29 days)\n", st.ID, st.Model, client.Name())
		} else {
			rep.Resumed = true
			rep.BatchIDs = append(rep.BatchIDs, st.ID)
			if !bo.Quiet {
				fmt.Fprintf(e.stderr, "batch %s: resuming (submitted by an earlier run, %d requests)\n", st.ID, len(st.Items))
			}
			// Canceled or expired requests of an old batch are sent again.
			if err := fetch(st, true); errors.Is(err, situate.ErrNotFound) {
				fmt.Fprintf(e.stderr, "batch %s: no longer known to the API (%v): its requests are submitted again\n", st.ID, err)
			} else if err != nil {
				return nil, rep, err
			}
		}
	}
	// 3. Submit what the stored batch does not cover.
	var reqs []anthropic.BatchRequest
	st := batchState{Model: client.Name(), Items: map[string]string{}}
	for _, it := range items {
		h := promptHash(it.prompt)
		if _, ok := results[h]; ok {
			continue
		}
		reqs = append(reqs, anthropic.BatchRequest{CustomID: it.customID, Prompt: it.prompt})
		st.Items[it.customID] = h
	}
	if limit := baseOpts.MaxCostUSD; limit > 0 && len(reqs) > 0 {
		if !hasPrice {
			return nil, rep, usagef("--max-cost: no price for %s", client.Name())
		}
		// Projected as if nothing were cached, at the batch discount.
		est := llm.Estimate(dcs, client.Name(), nil, llm.EstimateOptions{Options: baseOpts})
		if proj := est.CostBatchUSD * float64(len(reqs)) / float64(max(1, est.Calls)); proj > limit {
			return nil, rep, fmt.Errorf("batch mode: %d requests projected at $%.4f exceed --max-cost $%.4f: %w", len(reqs), proj, limit, llm.ErrBudget)
		}
	}
	for start := 0; start < len(reqs); start += anthropic.MaxBatchRequests {
		part := reqs[start:min(len(reqs), start+anthropic.MaxBatchRequests)]
		id, err := client.SubmitBatch(ctx, part)
		if err != nil {
			return nil, rep, fmt.Errorf("batch mode: submit %d requests: %w", len(part), err)
		}
		pst := batchState{ID: id, Model: st.Model, Items: map[string]string{}}
		for _, r := range part {
			pst.Items[r.CustomID] = st.Items[r.CustomID]
		}
		data, _ := json.Marshal(pst)
		if err := store.SetMeta(ctx, batchMetaKey, string(data)); err != nil {
			return nil, rep, fmt.Errorf("batch mode: remember batch %s: %w", id, err)
		}
		rep.BatchIDs = append(rep.BatchIDs, id)
		rep.Requests += len(part)
		if !bo.Quiet {
			fmt.Fprintf(e.stderr, "batch %s: submitted %d requests for %d documents\n", id, len(part), len(dcs))
		}
		if err := fetch(pst, false); err != nil {
			return nil, rep, err
		}
	}
	for _, r := range results {
		if r.err != nil {
			rep.Failed++
		} else {
			rep.Succeeded++
		}
	}

	// 4. Replay: check and cache the answers, record usage.
	rm := &replayModel{client: client, memo: memo, results: results}
	if len(dcs) > 0 && len(results) > 0 {
		o := baseOpts
		o.MaxCostUSD = 0
		o.Cache, o.Usage = store, batchUsage{rec: store, price: price, hasPrice: hasPrice}
		o.MaxRetries = 0
		rp, err := llm.New(rm, o)
		if err != nil {
			return nil, rep, usageError{err}
		}
		if err := rp.Run(ctx, dcs, func(int, int, situate.Context) error { return nil }); err != nil {
			return nil, rep, fmt.Errorf("batch mode: store results: %w", err)
		}
	}
	if err := store.SetMeta(ctx, batchMetaKey, ""); err != nil {
		return nil, rep, err
	}

	// Documents retried for their fallback contexts are marked stale so
	// that the engine re-processes them.
	if err := markStale(ctx, store, retry); err != nil {
		return nil, rep, err
	}
	if len(retry) > 0 && !bo.Quiet {
		fmt.Fprintf(e.stderr, "batch: %d unchanged documents with fallback contexts retried\n", len(retry))
	}

	// 5. The engine that commits: cache hits, the fallback for failures.
	o := baseOpts
	o.MaxCostUSD = 0
	o.MaxRetries = 0
	o.BreakerFailures = 0   // failed batch results fall back one by one
	o.DegenerateRetries = 0 // a batch result cannot be asked again now
	o.Cache = store
	commit, err := llm.New(rm, o)
	if err != nil {
		return nil, rep, usageError{err}
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	eo, err := engineOptions(c, e, store, log)
	if err != nil {
		return nil, rep, err
	}
	if eo.Contextualizer == nil || eo.Contextualizer.Name() != commit.Name() {
		return nil, rep, usagef("--batch: the contextualizer must be the LLM (--llm %s)", c.str("llm"))
	}
	eo.Contextualizer = commit
	if err := eng.Close(); err != nil {
		return nil, rep, err
	}
	neng, err := situate.Open(ctx, c.storeDir(e), store, eo)
	if err != nil {
		return nil, rep, err
	}
	if !bo.Quiet && len(rep.BatchIDs) > 0 {
		fmt.Fprintf(e.stderr, "batch: %d results succeeded, %d failed (failed chunks get the offline context, flagged)\n", rep.Succeeded, rep.Failed)
	}
	return neng, rep, nil
}

func hasFlag(flags []string, f string) bool {
	for _, g := range flags {
		if g == f {
			return true
		}
	}
	return false
}

// waitBatch polls until the batch has ended, retrying retryable errors.
func waitBatch(ctx context.Context, e *env, client *anthropic.Client, id string, bo batchOptions) error {
	failures := 0
	for {
		st, err := client.PollBatch(ctx, id)
		if err != nil {
			var r interface{ Retryable() bool }
			if errors.As(err, &r) && r.Retryable() && failures < llm.DefaultMaxRetries {
				failures++
				if err := sleepCtx(ctx, bo.Poll); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("batch mode: poll %s: %w", id, err)
		}
		failures = 0
		if st.Ended() {
			return nil
		}
		if !bo.Quiet {
			rc := st.RequestCounts
			fmt.Fprintf(e.stderr, "batch %s: %s, %d processing, %d succeeded, %d errored\n", id, st.ProcessingStatus, rc.Processing, rc.Succeeded, rc.Errored)
		}
		if err := sleepCtx(ctx, bo.Poll); err != nil {
			return err
		}
	}
}

// fetchResults streams an ended batch's results into results (by prompt
// hash), retrying a cut-off download. With resubmit, canceled and expired
// requests are left out so that they are submitted again.
func fetchResults(ctx context.Context, client *anthropic.Client, st batchState, results map[string]batchResult, resubmit bool) error {
	var err error
	for attempt := 0; attempt <= llm.DefaultMaxRetries; attempt++ {
		err = client.BatchResults(ctx, st.ID, func(customID string, comp situate.Completion, rerr error) error {
			h, ok := st.Items[customID]
			if !ok {
				return nil // not ours, or not expected any more
			}
			var ae *anthropic.Error
			if resubmit && errors.As(rerr, &ae) && (ae.Type == "canceled" || ae.Type == "expired") {
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
		if serr := sleepCtx(ctx, time.Duration(attempt+1)*200*time.Millisecond); serr != nil {
			return serr
		}
	}
	return fmt.Errorf("batch mode: results of %s: %w", st.ID, err)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
