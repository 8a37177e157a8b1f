package situate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/situate/situate/driver"
)

// DefaultQueueParallel is how many documents Queue stores at once.
const DefaultQueueParallel = 4

// QueueOptions configure one Engine.Queue run.
type QueueOptions struct {
	// Prune removes stored documents (and their sources) that the source
	// did not report, as IndexOptions.Prune does.
	Prune bool
	// Progress, when set, receives every event of the run, one at a time.
	Progress func(IndexEvent)
	// Parallel is how many documents are stored at once (0:
	// DefaultQueueParallel).
	Parallel int
}

// Queue reads the documents src reports, as Index does, but indexes none of
// them: each new or changed document is stored as an upload with a job
// (JobStore.EnqueueUpload), for JobRunners — `situate worker` processes on
// any number of machines — to chunk, contextualize and commit. Nothing is
// contextualized here, so the caller needs no model.
//
// A document whose content the store already holds (committed by any
// runner, with any settings) is unchanged and not queued; one whose
// identical source waits in the queue gets a job only when none is queued
// or running for it (a failed one is tried again). Added and Updated in the
// result count the documents queued (new to the store, or changed).
// Documents that come with their own chunks (Feed.AddChunks) cannot be
// queued: a runner chunks the text itself; they fail alone.
//
// The Engine is usually store-only (OpenStoreOnly over a shared
// store): it keeps no index and is only the source's view of the store.
func (e *Engine) Queue(ctx context.Context, src Source, jobs driver.JobStore, opts QueueOptions) (IndexResult, error) {
	if jobs == nil {
		return IndexResult{}, fmt.Errorf("queue: no job store: %w", ErrInvalid)
	}
	if e.readOnly {
		return IndexResult{}, fmt.Errorf("queue: %w", ErrReadOnly)
	}
	par := opts.Parallel
	if par <= 0 {
		par = DefaultQueueParallel
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := newIndexRun(e, IndexOptions{Prune: opts.Prune, Progress: opts.Progress})
	r.ctx, r.cancel = runCtx, cancel
	r.readSource(src)
	var wg sync.WaitGroup
	for range par {
		wg.Go(func() {
			for {
				q, ok := r.next()
				if !ok {
					return
				}
				change, err := e.queueOne(r.ctx, jobs, q)
				// No file stamp: the document is not indexed yet, and
				// the stored record (if any) is the previous content.
				r.done(queued{doc: q.doc}, nil, change, err)
			}
		})
	}
	wg.Wait()
	return r.finish(ctx, runCtx, "queue", func() error { return e.queuePrune(r, jobs) })
}

// queueOne queues one document unless the store holds its content or a
// job for its identical source is pending.
func (e *Engine) queueOne(ctx context.Context, jobs driver.JobStore, q queued) (Change, error) {
	doc := q.doc
	if q.prechunked {
		return Unchanged, fmt.Errorf("queue %s: a document with its own chunks cannot be queued (a worker chunks the text itself): %w", doc.ID, ErrInvalid)
	}
	if doc.ID == "" {
		return Unchanged, fmt.Errorf("queue: document ID: must not be empty: %w", ErrInvalid)
	}
	if doc.Format == "" {
		// As a runner reads the upload (UploadDocument), so the store's
		// content of it compares equal.
		doc.Format = FormatText
	}
	hash := doc.Hash()
	rec, err := e.store.Document(ctx, doc.ID)
	known := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Unchanged, fmt.Errorf("queue %s: %w", doc.ID, err)
	}
	if known {
		// The attributes a queued document is given hold at once, before
		// its job runs; when they are all it changes, nothing is queued.
		content := sameContent(rec, doc, "")
		if !sameAttributes(rec, doc) {
			if _, _, err := e.PutAttributes(ctx, doc); err != nil {
				return Unchanged, fmt.Errorf("queue %s: %w", doc.ID, err)
			}
			if content {
				return Updated, nil
			}
		} else if content {
			return Unchanged, nil
		}
	}
	change := Added
	if known {
		change = Updated
	}
	prev, err := jobs.Upload(ctx, doc.ID)
	switch {
	case err == nil && uploadDocument(prev).Hash() == hash:
		// The same source waits in the queue (or its job failed).
		if _, _, err := jobs.EnqueueJob(ctx, doc.ID, doc.Access); err != nil {
			return Unchanged, fmt.Errorf("queue %s: %w", doc.ID, err)
		}
		return change, nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return Unchanged, fmt.Errorf("queue %s: %w", doc.ID, err)
	}
	up := driver.Upload{DocID: doc.ID, Format: doc.Format, Title: doc.Title, Lang: doc.Lang,
		Metadata: doc.Metadata, Access: doc.Access, Data: []byte(doc.Text)}
	if _, err := jobs.EnqueueUpload(ctx, up); err != nil {
		return Unchanged, fmt.Errorf("queue %s: %w", doc.ID, err)
	}
	return change, nil
}

// uploadDocument is the document a queued text upload (no file name) holds,
// as Queue stored it.
func uploadDocument(u driver.Upload) Document {
	return Document{ID: u.DocID, Title: u.Title, Text: string(u.Data), Format: u.Format, Lang: u.Lang,
		Metadata: u.Metadata, Access: u.Access}
}

// queuePrune removes the stored documents the run did not see, with their
// sources, so no runner indexes them again.
func (e *Engine) queuePrune(r *indexRun, jobs driver.JobStore) error {
	for _, rec := range e.Documents() {
		if r.keeps(rec.ID) {
			continue
		}
		if err := jobs.DeleteUpload(r.ctx, rec.ID); err != nil {
			return fmt.Errorf("queue: prune: %w", err)
		}
		if err := e.Delete(r.ctx, rec.ID); err != nil {
			return fmt.Errorf("queue: prune: %w", err)
		}
		r.mu.Lock()
		r.res.Removed++
		r.mu.Unlock()
		r.emit(IndexEvent{Kind: EventRemoved, DocID: rec.ID})
	}
	return nil
}
