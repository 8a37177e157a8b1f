package situate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/situate/situate/driver"
)

// Defaults of a JobRunner.
const (
	// DefaultJobLease is how long a claimed job stays claimed without news
	// from its runner (which renews it every JobProgressInterval): a job
	// whose runner died is claimed again once it runs out.
	DefaultJobLease = 2 * time.Minute
	// DefaultMaxAttempts is how often a job is tried before it fails.
	DefaultMaxAttempts = 3
	// JobProgressInterval is how often a running job's progress is written
	// (each write renews its lease).
	JobProgressInterval = time.Second
)

// JobRunner runs the document jobs of a JobStore through an Engine: the
// library's workflow (Prepare, then Commit), with the document's LLM calls
// made by the Engine's contextualizer, so a document's chunks stay with one
// runner (and one inference replica) and its prefix cache is reused. The
// HTTP server's workers and `situate worker` are both JobRunners.
//
// A runner that dies leaves its job claimed until the lease runs out; then
// any runner claims it again. The calls the dead runner finished are in the
// store's context cache, so the retry does not repeat them, and a document
// it already committed is found unchanged.
type JobRunner struct {
	Engine *Engine
	Jobs   driver.JobStore
	// Parse turns a stored upload into the document to index; nil indexes
	// the upload's bytes as text in its Format.
	Parse func(ctx context.Context, src driver.Upload) (Document, error)
	// Lease and MaxAttempts tune the queue (0: defaults).
	Lease       time.Duration
	MaxAttempts int
	// Lock, when set, serializes a document's commit with this process's
	// other writes of it (a delete); it returns the unlock function.
	Lock func(docID string) (unlock func())
	// Observe sees every call event of a job's document (metrics).
	Observe func(CallEvent)
	// Finished is told every job that ends (done or failed) and how long it
	// ran.
	Finished func(j driver.Job, d time.Duration)
	// Wake, when set, wakes an idle Run before its next poll.
	Wake <-chan struct{}
	// Poll is how long an idle Run waits before claiming again (0: 1 s).
	Poll   time.Duration
	Logger *slog.Logger

	// written counts the chunks of the documents this runner added or
	// changed since it last compacted the indexes (compactIfDue).
	written atomic.Int64
}

func (r *JobRunner) lease() time.Duration {
	if r.Lease > 0 {
		return r.Lease
	}
	return DefaultJobLease
}

func (r *JobRunner) log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// Run claims and runs jobs until ctx ends. A job it was running when ctx
// ended goes back to the queue (its finished calls are cached).
func (r *JobRunner) Run(ctx context.Context) {
	poll := r.Poll
	if poll <= 0 {
		poll = time.Second
	}
	for ctx.Err() == nil {
		j, ok, err := r.Jobs.ClaimJob(ctx, r.lease())
		if err != nil {
			if ctx.Err() == nil {
				r.log().Error("claim job", "err", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		if !ok {
			r.compactIfDue()
			select {
			case <-ctx.Done():
			case <-r.Wake:
			case <-time.After(poll):
			}
			continue
		}
		if failed := r.RunJob(ctx, j); failed {
			sleep(ctx, time.Second)
		}
	}
}

// compactIfDue compacts the Engine's indexes, while the queue is empty,
// once the jobs since the last compaction wrote a tenth or more of the
// chunks: the rule of Engine.Index, for a store loaded through the queue
// (a server's uploads) rather than by an index run. A failure is logged and
// not retried until the next tenth, so a full disk does not rewrite the
// indexes on every poll.
func (r *JobRunner) compactIfDue() {
	n := r.written.Load()
	if n == 0 {
		return
	}
	start := time.Now()
	compacted, err := r.Engine.compactAfterRun(int(n))
	switch {
	case err != nil:
		r.written.Add(-n)
		r.log().Error("compact the indexes", "err", err)
	case compacted:
		r.written.Add(-n)
		r.log().Info("compacted the indexes", "chunks_written", n, "duration_ms", time.Since(start).Milliseconds())
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// document turns a stored source into the document to index.
func (r *JobRunner) document(ctx context.Context, src driver.Upload) (Document, error) {
	return UploadDocument(ctx, r.Parse, src)
}

// UploadDocument is the document a queued upload becomes, as a JobRunner
// with this Parse reads it (nil: the upload's data is the text): a front
// end that accepts an upload reads it the same way to apply its attributes
// at once (PutAttributes).
func UploadDocument(ctx context.Context, parse func(ctx context.Context, src driver.Upload) (Document, error), src driver.Upload) (Document, error) {
	var doc Document
	if parse != nil {
		var err error
		if doc, err = parse(ctx, src); err != nil {
			return doc, err
		}
	} else {
		doc = Document{Text: string(src.Data), Format: src.Format}
		if doc.Format == "" {
			doc.Format = FormatText
		}
	}
	doc.ID = src.DocID
	if src.Title != "" {
		doc.Title = src.Title
	}
	if src.Lang != "" {
		doc.Lang = src.Lang
	}
	doc.Metadata, doc.Access = src.Metadata, src.Access
	return doc, nil
}

// RunJob indexes a claimed job's document and records how it ended. It
// reports whether the attempt failed (the job is then queued again, or
// failed for good after MaxAttempts).
func (r *JobRunner) RunJob(ctx context.Context, j driver.Job) (failed bool) {
	log := r.log().With("job", j.ID) // never the document id: logs carry no document data
	start := time.Now()
	var (
		calls, tokens, chunksDone atomic.Int64
		mu                        = make(chan struct{}, 1)
	)
	update := func(final bool) {
		mu <- struct{}{}
		defer func() { <-mu }()
		j.Calls, j.Tokens = int(calls.Load()), int(tokens.Load())
		if n := int(chunksDone.Load()); n > j.ChunksDone {
			// Retried calls may report a chunk twice.
			j.ChunksDone = n
			if j.Chunks > 0 {
				j.ChunksDone = min(n, j.Chunks)
			}
		}
		uctx := ctx
		if final {
			// The final state is written even while the runner stops.
			var cancel context.CancelFunc
			uctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
		}
		if err := r.Jobs.UpdateJob(uctx, j, r.lease()); err != nil && (final || ctx.Err() == nil) {
			log.Error("update job", "err", err)
		}
	}
	finish := func(state, change string, err error) {
		j.State, j.Change, j.FinishedAt = state, change, time.Now()
		if err != nil {
			j.Error = err.Error()
		} else {
			j.Error = ""
		}
		if state == JobDone {
			j.ChunksDone = j.Chunks
		}
		update(true)
		if r.Finished != nil {
			r.Finished(j, time.Since(start))
		}
		log.Info("job finished", "state", state, "change", change, "chunks", j.Chunks, "calls", calls.Load(),
			"duration_ms", time.Since(start).Milliseconds())
	}
	retry := func(err error) bool {
		if ctx.Err() != nil {
			// Cut short by shutdown: the attempt does not count.
			j.State, j.Attempts = JobQueued, max(0, j.Attempts-1)
			update(true)
			return false
		}
		maxAttempts := r.MaxAttempts
		if maxAttempts <= 0 {
			maxAttempts = DefaultMaxAttempts
		}
		if j.Attempts >= maxAttempts {
			finish(JobFailed, "", err)
			return true
		}
		log.Warn("job attempt failed, will retry", "attempt", j.Attempts, "err", err)
		j.State, j.Error = JobQueued, err.Error()
		update(true)
		return true
	}

	src, err := r.Jobs.Upload(ctx, j.DocID)
	if errors.Is(err, ErrNotFound) {
		finish(JobDone, "deleted", nil)
		return false
	}
	if err != nil {
		return retry(err)
	}
	doc, err := r.document(ctx, src)
	if err != nil {
		finish(JobFailed, "", fmt.Errorf("parse %s: %w", j.DocID, err))
		return true
	}
	if chunks, err := r.Engine.Split(doc); err == nil {
		j.Chunks = len(chunks)
	}
	update(false)

	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jctx = driver.WithCallObserver(jctx, func(ev CallEvent) {
		if r.Observe != nil {
			r.Observe(ev)
		}
		switch ev.Kind {
		case driver.CallStart:
			calls.Add(1)
		case driver.CallDone, driver.CallFallback:
			chunksDone.Add(1)
		}
		u := ev.Usage
		tokens.Add(int64(u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens))
	})
	// Progress is written every JobProgressInterval; each write renews
	// the lease.
	tickDone := make(chan struct{})
	go func() {
		tick := time.NewTicker(JobProgressInterval)
		defer tick.Stop()
		for {
			select {
			case <-tickDone:
				return
			case <-tick.C:
				update(false)
			}
		}
	}()
	p, err := r.Engine.prepareJob(jctx, doc)
	close(tickDone)
	if err != nil {
		return retry(err)
	}
	if p == nil {
		finish(JobDone, Unchanged.String(), nil)
		return false
	}
	if r.Lock != nil {
		unlock := r.Lock(j.DocID)
		defer unlock()
	}
	cur, err := r.Jobs.Upload(ctx, j.DocID)
	switch {
	case errors.Is(err, ErrNotFound):
		finish(JobDone, "deleted", nil)
		return false
	case err != nil:
		return retry(err)
	case !cur.UpdatedAt.Equal(src.UpdatedAt):
		// A newer upsert replaced the source; its own job indexes it.
		finish(JobDone, "superseded", nil)
		return false
	}
	changes, err := r.Engine.Commit(ctx, []*Prepared{p})
	if err != nil {
		return retry(err)
	}
	if changes[0] == Added || changes[0] == Updated {
		r.written.Add(int64(len(p.chunks)))
	}
	finish(JobDone, changes[0].String(), nil)
	return false
}
