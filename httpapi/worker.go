package httpapi

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/situate/situate"
)

// work runs a tenant's jobs until the server closes.
func (s *Server) work(t *tenantState) {
	defer s.workers.Done()
	ctx := s.workCtx
	for ctx.Err() == nil {
		j, ok, err := t.Jobs.ClaimJob(ctx, s.opts.JobLease)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("claim job", "tenant", t.name, "err", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		if !ok {
			select {
			case <-ctx.Done():
			case <-t.wake:
			case <-time.After(time.Second):
			}
			continue
		}
		if failed := s.runJob(ctx, t, j); failed {
			sleep(ctx, time.Second)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// document turns a stored source into the document to index.
func (s *Server) document(ctx context.Context, src situate.Upload) (situate.Document, error) {
	var doc situate.Document
	if s.opts.Parse != nil {
		var err error
		if doc, err = s.opts.Parse(ctx, src); err != nil {
			return doc, err
		}
	} else {
		doc = situate.Document{Text: string(src.Data), Format: src.Format}
		if doc.Format == "" {
			doc.Format = situate.FormatText
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

// runJob indexes a job's document: the library's workflow (Prepare, then
// Commit under the document's lock), with its LLM calls counted. A job
// interrupted by shutdown goes back to the queue; its finished calls are in
// the context cache, so the rerun does not repeat them. It reports whether
// the job failed.
func (s *Server) runJob(ctx context.Context, t *tenantState, j situate.Job) (failed bool) {
	log := s.log.With("tenant", t.name, "job", j.ID)
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
			// The final state is written even while the server stops.
			var cancel context.CancelFunc
			uctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
		}
		if err := t.Jobs.UpdateJob(uctx, j, s.opts.JobLease); err != nil && !final && ctx.Err() == nil {
			log.Error("update job", "err", err)
		} else if err != nil && final {
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
		if state == situate.JobDone {
			j.ChunksDone = j.Chunks
		}
		update(true)
		s.metrics.jobs.WithLabelValues(t.name, state).Inc()
		log.Info("job finished", "state", state, "change", change, "chunks", j.Chunks, "calls", calls.Load(),
			"duration_ms", time.Since(start).Milliseconds())
	}

	src, err := t.Jobs.Upload(ctx, j.DocID)
	if errors.Is(err, situate.ErrNotFound) {
		finish(situate.JobDone, "deleted", nil)
		return false
	}
	if err != nil {
		return s.retry(ctx, t, &j, err, finish, update)
	}
	doc, err := s.document(ctx, src)
	if err != nil {
		finish(situate.JobFailed, "", fmt.Errorf("parse %s: %w", j.DocID, err))
		return true
	}
	if chunks, err := t.Engine.Split(doc); err == nil {
		j.Chunks = len(chunks)
	}
	update(false)

	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jctx = situate.WithCallObserver(jctx, func(ev situate.CallEvent) {
		s.metrics.observeCall(t.name, ev)
		switch ev.Kind {
		case situate.CallStart:
			calls.Add(1)
		case situate.CallDone:
			chunksDone.Add(1)
		case situate.CallFallback:
			chunksDone.Add(1)
		}
		u := ev.Usage
		tokens.Add(int64(u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens))
	})
	// Progress is written every second; each write renews the lease.
	tickDone := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Second)
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
	p, err := t.Engine.Prepare(jctx, doc)
	close(tickDone)
	if err != nil {
		return s.retry(ctx, t, &j, err, finish, update)
	}
	if p == nil {
		finish(situate.JobDone, situate.Unchanged.String(), nil)
		return false
	}
	unlock := t.lockDoc(j.DocID)
	defer unlock()
	cur, err := t.Jobs.Upload(ctx, j.DocID)
	switch {
	case errors.Is(err, situate.ErrNotFound):
		finish(situate.JobDone, "deleted", nil)
		return false
	case err != nil:
		return s.retry(ctx, t, &j, err, finish, update)
	case !cur.UpdatedAt.Equal(src.UpdatedAt):
		// A newer upsert replaced the source; its own job indexes it.
		finish(situate.JobDone, "superseded", nil)
		return false
	}
	changes, err := t.Engine.Commit(ctx, []*situate.Prepared{p})
	if err != nil {
		return s.retry(ctx, t, &j, err, finish, update)
	}
	finish(situate.JobDone, changes[0].String(), nil)
	return false
}

// retry puts a job whose attempt failed back in the queue, or fails it for
// good after MaxAttempts. An attempt cut short by shutdown does not count.
func (s *Server) retry(ctx context.Context, t *tenantState, j *situate.Job, err error, finish func(string, string, error), update func(bool)) bool {
	if ctx.Err() != nil {
		j.State, j.Attempts = situate.JobQueued, max(0, j.Attempts-1)
		update(true)
		return false
	}
	if j.Attempts >= s.opts.MaxAttempts {
		finish(situate.JobFailed, "", err)
		return true
	}
	s.log.Warn("job attempt failed, will retry", "tenant", t.name, "job", j.ID, "attempt", j.Attempts, "err", err)
	j.State, j.Error = situate.JobQueued, err.Error()
	update(true)
	return true
}
