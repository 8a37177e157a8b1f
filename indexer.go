package situate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/situate/situate/driver"
)

// Index workflow defaults.
const (
	// DefaultCommitDocuments is how many prepared documents Index commits
	// together: the index pays one durable commit per batch.
	DefaultCommitDocuments = 64
	// DefaultCommitInterval is the longest a prepared document waits for
	// its commit, so a slow run loses little when it is killed.
	DefaultCommitInterval = 500 * time.Millisecond
)

// Context flags the index workflow acts on. Contextualizers that call a
// model set them (package llm uses the same strings).
const (
	// FlagFallback marks a context that is the fallback for a call that
	// failed: Index with RetryFallbacks asks again for it.
	FlagFallback = "fallback"
	// FlagTooLarge marks a chunk too large for any prompt: retrying it
	// cannot help, so it is not retried.
	FlagTooLarge = "too-large"
)

// fileStampPrefix keys, in the store's meta, the stamp of the file a
// document was read from together with the record hash it was indexed as.
const fileStampPrefix = "file-stat:"

// Source produces the documents of one Index run. It reports every document
// to the Feed, in any order, and returns when it has no more (or the error
// that stopped it). An error from Feed.Add means the run stopped: the source
// returns it.
type Source func(ctx context.Context, f *Feed) error

// Documents is a Source of documents already in memory.
func Documents(docs ...Document) Source {
	return func(ctx context.Context, f *Feed) error {
		for _, d := range docs {
			if err := f.Add(d, ""); err != nil {
				return err
			}
		}
		return nil
	}
}

// FileStamp is the stamp of a file for Feed.Unchanged and Feed.Add: its
// size and modification time. A file modified less than RacyStampWindow
// before now (or in the future) has none (""): a change made later in the
// same tick of the file system's clock, of the same size, would leave the
// stamp as it is, and a remembered stamp would then call the changed file
// unchanged (git's "racily clean" files). Such a file is read again on the
// next run, where its content hash says whether it changed.
func FileStamp(info fs.FileInfo) string {
	if age := time.Since(info.ModTime()); age < RacyStampWindow {
		return ""
	}
	return fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())
}

// RacyStampWindow is how recently modified a file must not be for its
// stamp to be remembered: longer than the coarsest timestamps a store is
// likely to sit on (FAT's 2 s; ext4's and tmpfs's follow a clock that ticks
// every few milliseconds).
const RacyStampWindow = 3 * time.Second

// Feed receives the documents of a Source. Its methods are safe for
// concurrent use.
type Feed struct{ r *indexRun }

// Unchanged reports whether document id, read from a file whose stamp (see
// FileStamp) is stamp, is indexed exactly as that file was, with the current
// settings: then the source need not read the file, and the document counts
// as unchanged and seen (prune keeps it). It is false for a document holding
// a fallback context that the run retries.
func (f *Feed) Unchanged(id, stamp string) bool {
	r := f.r
	if stamp == "" {
		return false
	}
	r.mu.Lock()
	dup := r.seen[id]
	r.mu.Unlock()
	if dup {
		// Another file of this run has the id: read this one, so that Add
		// reports it.
		return false
	}
	rec, err := r.e.Document(id)
	if err != nil {
		return false
	}
	// Processed with other chunking or contextualizer settings (or marked
	// stale): the file must be read again.
	if !strings.HasSuffix(rec.Hash, hashSeparator+r.e.processing) {
		return false
	}
	ms, ok := r.e.store.(driver.MetaStore)
	if !ok {
		return false
	}
	v, found, err := ms.Meta(r.ctx, fileStampPrefix+id)
	if err != nil || !found || v != stamp+" "+rec.Hash {
		return false
	}
	if r.opts.RetryFallbacks {
		if fb, err := r.e.hasFallback(r.ctx, id); err != nil || fb {
			return false
		}
	}
	r.mu.Lock()
	r.seen[id] = true
	r.res.Unchanged++
	r.res.Documents++
	r.prog.Docs++
	r.prog.DocsTotal++
	r.mu.Unlock()
	r.emit(IndexEvent{Kind: EventDocument, DocID: id, Change: Unchanged})
	return true
}

// Add queues a document read from a file with stamp stamp ("" when it was
// not read from a file: stdin, JSONL, memory). It returns an error only when
// the run stopped (cancelled, or a provider error that stops every call).
func (f *Feed) Add(doc Document, stamp string) error {
	return f.r.add(doc, stamp)
}

// AddChunks queues a document that is already chunked, with its contexts
// (one per chunk) or, when contexts is nil, contexts the contextualizer
// writes (see Engine.PutChunks). Evaluation sets that ship their own chunks
// use it.
func (f *Feed) AddChunks(doc Document, chunks []Chunk, contexts []Context) error {
	return f.r.addQueued(queued{doc: doc, chunks: chunks, contexts: contexts, prechunked: true})
}

// Skip reports an input the source could not read, with the reason; the
// run goes on, and the input is listed in IndexResult.Skipped.
func (f *Feed) Skip(err error) {
	r := f.r
	r.mu.Lock()
	r.res.Skipped = append(r.res.Skipped, err)
	r.mu.Unlock()
	r.emit(IndexEvent{Kind: EventSkip, Err: err})
}

// Partial reports, like Skip, a part of the source that could not be read
// as a whole (a directory that could not be listed): the documents under it
// are unknown, so the run's Prune removes nothing (IndexResult.PruneWithheld).
func (f *Feed) Partial(err error) {
	r := f.r
	r.mu.Lock()
	r.partial = true
	r.mu.Unlock()
	f.Skip(err)
}

// IndexOptions configure one Engine.Index run.
type IndexOptions struct {
	// Prune removes indexed documents the source did not report (read,
	// unchanged or skipped for their content or because they are gone; a
	// file that exists but could not be read keeps its document). It
	// applies only when the source finished, the run was not stopped and
	// the source saw all of itself (see Feed.Partial).
	Prune bool
	// RetryFallbacks re-processes documents, even unchanged ones, that hold
	// a context flagged FlagFallback (a call that failed in an earlier
	// run); their other chunks come from the contextualizer's cache. Set it
	// when a model writes the contexts.
	RetryFallbacks bool
	// Batch, when set, writes the contexts of every document that needs
	// them through one provider batch before anything is committed (see
	// BatchContextualizer).
	Batch driver.BatchContextualizer
	// Progress, when set, receives every event of the run, one at a time
	// (never concurrently), in the order they happened.
	Progress func(IndexEvent)
	// CommitDocuments and CommitInterval bound how many prepared documents
	// are committed together and how long one waits (defaults
	// DefaultCommitDocuments, DefaultCommitInterval).
	CommitDocuments int
	CommitInterval  time.Duration
}

// EventKind says what an IndexEvent reports.
type EventKind int

const (
	// EventDocument: a document is done (DocID, Change; Err when it failed).
	EventDocument EventKind = iota
	// EventSkip: the source could not read an input (Err says why).
	EventSkip
	// EventCall: a contextualizer call started, ended or will be retried.
	EventCall
	// EventProviderError: a kind of provider error seen for the first time
	// in this run (Err is the provider's error, ErrorKind its kind).
	EventProviderError
	// EventRemoved: prune removed a document (DocID).
	EventRemoved
	// EventBatch: a batch stage (Message is what happened).
	EventBatch
)

// IndexEvent is one thing that happened in an Index run, with the run's
// progress at that moment.
type IndexEvent struct {
	Kind      EventKind
	DocID     string
	Change    Change
	Err       error
	ErrorKind string
	Message   string
	Progress  IndexProgress
}

// ErrorCount is how often one kind of provider error happened, with the
// provider's message the first time.
type ErrorCount struct {
	Kind    string
	Message string
	Count   int
}

// IndexProgress is where an Index run stands.
type IndexProgress struct {
	// Docs is how many documents are done (committed, unchanged or failed)
	// out of DocsTotal reported by the source so far; SourceDone says the
	// source has reported them all.
	Docs, DocsTotal int
	SourceDone      bool
	// Chunks counts the chunks of the documents prepared so far.
	Chunks int
	// Calls counts contextualizer calls that ended (succeeded or gave up),
	// out of an estimated CallsTotal (0 until the first call); InFlight are
	// running now, Retries counts failed attempts that were repeated.
	Calls, CallsTotal, InFlight, Retries int
	// Fallbacks counts chunks that got a fallback context (flagged
	// FlagFallback) in this run.
	Fallbacks int
	// Errors lists provider errors by kind, in the order first seen.
	Errors []ErrorCount
	// Tokens of every attempt, and its cost from the provider's prices.
	InputTokens, CacheReadTokens, CacheWriteTokens, OutputTokens int64
	CostUSD                                                      float64
	Elapsed                                                      time.Duration
	// ETA is the estimated time left: from calls once calls exist, else
	// from documents once the source is done; 0 when unknown.
	ETA time.Duration
}

// IndexResult summarizes an Index run.
type IndexResult struct {
	// Documents counts the documents the source reported (read or known
	// unchanged); Added + Updated + Unchanged + Failed of them are done.
	Documents                                  int
	Added, Updated, Unchanged, Removed, Failed int
	// Chunks counts the chunks of added and updated documents.
	Chunks int
	// Fallbacks counts chunks indexed with a fallback context; Retried
	// the unchanged documents re-processed for such contexts.
	Fallbacks, Retried int
	// Skipped lists inputs the source could not read, each error saying
	// which and why; Failures the documents that failed.
	Skipped  []error
	Failures []DocumentError
	// SkippedBefore counts files an earlier run skipped that are unchanged
	// since (see Feed.SkippedBefore): not read, not reported again.
	SkippedBefore int
	// PruneWithheld: the run was to prune, but part of the source could
	// not be read (Feed.Partial), so nothing was removed.
	PruneWithheld bool
	// Progress is the run's final progress (calls, tokens, cost, errors).
	Progress IndexProgress
	// Compacted: the run wrote a tenth or more of the store's chunks and
	// then merged each index into one segment (Engine.CompactIndexes).
	Compacted bool
	Duration  time.Duration
}

// DocumentError is a document that failed, and why.
type DocumentError struct {
	DocID string
	Err   error
}

func (e DocumentError) Error() string { return e.DocID + ": " + e.Err.Error() }
func (e DocumentError) Unwrap() error { return e.Err }

// stopsRun reports whether a contextualizer error stops the whole run: the
// provider refused the credentials, does not serve the model, or fails
// every call. It returns what the user should fix.
func stopsRun(err error) (string, bool) {
	switch {
	case errors.Is(err, ErrUnauthorized):
		return "check the API key and its permissions", true
	case errors.Is(err, ErrModelNotFound):
		return "check the model name", true
	case errors.Is(err, ErrProviderFailing):
		return "check that the provider is running and answering", true
	case errors.Is(err, syscall.ENOSPC):
		// Every later commit would fail the same way: stop at the first.
		return "free some disk space", true
	}
	return "", false
}

// Index indexes every document src reports: it prepares (chunks,
// contextualizes, embeds) documents in parallel (Options.ParallelDocuments
// at once) and commits them in batches, skips documents unchanged since
// they were indexed (without reading them, when the source asks
// Feed.Unchanged), retries fallback contexts and documents marked stale,
// prunes, and reports progress to opts.Progress.
//
// Cancelling ctx stops the run: what is prepared is committed, and the error
// wraps ctx's. A contextualizer error matching ErrUnauthorized,
// ErrModelNotFound or ErrProviderFailing stops it the same way at once,
// with an error that says what to fix; a rerun resumes. The result is valid
// (what was done) whatever the error. A document that fails alone is
// counted in IndexResult.Failed and does not make Index fail.
func (e *Engine) Index(ctx context.Context, src Source, opts IndexOptions) (IndexResult, error) {
	if opts.CommitDocuments <= 0 {
		opts.CommitDocuments = DefaultCommitDocuments
	}
	if opts.CommitInterval <= 0 {
		opts.CommitInterval = DefaultCommitInterval
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := newIndexRun(e, opts)
	r.ctx = driver.WithCallObserver(runCtx, r.observe)
	r.cancel = cancel

	if opts.Batch != nil {
		if err := r.batch(src); err != nil {
			r.res.Duration = time.Since(r.start)
			return r.res, err
		}
	} else {
		r.readSource(src)
	}
	r.process()
	res, err := r.finish(ctx, runCtx, "index", r.prune)
	if err == nil {
		var cerr error
		if res.Compacted, cerr = e.compactAfterRun(res.Chunks); cerr != nil {
			err = fmt.Errorf("index: the documents are indexed, but merging the index segments failed (searches work, slower): %w", cerr)
		}
		res.Duration = time.Since(r.start)
	}
	return res, err
}

// readSource runs src on its own goroutine, feeding the run's queue; it
// waits while the queue holds queueBudget bytes of text, or until the run
// stops.
func (r *indexRun) readSource(src Source) {
	r.bounded = true
	context.AfterFunc(r.ctx, func() {
		r.qmu.Lock()
		r.qmu.Unlock()
		r.space.Broadcast()
	})
	go func() { r.sourceDone(src(r.ctx, &Feed{r: r})) }()
}

// finish ends a run (verb names it in errors) once its workers are done:
// the error that stopped it, if any (a fatal provider error, the caller's
// cancellation of ctx, the source's error, another cause of runCtx), then,
// with none and the Prune option, prune; then the skips are saved and the
// result made.
func (r *indexRun) finish(ctx, runCtx context.Context, verb string, prune func() error) (IndexResult, error) {
	r.mu.Lock()
	srcErr := r.srcErr
	r.mu.Unlock()
	var err error
	switch cause := context.Cause(runCtx); {
	case r.fatal != nil:
		err = r.fatal
	case ctx.Err() != nil:
		err = fmt.Errorf("%s interrupted: %w", verb, ctx.Err())
	case srcErr != nil:
		err = fmt.Errorf("%s: read documents: %w", verb, srcErr)
	case cause != nil:
		err = cause
	}
	r.mu.Lock()
	partial := r.partial
	r.mu.Unlock()
	switch {
	case err == nil && r.opts.Prune && partial:
		r.res.PruneWithheld = true
	case err == nil && r.opts.Prune:
		err = prune()
	}
	r.saveSkips(err == nil && r.opts.Prune)
	r.mu.Lock()
	r.res.Progress = r.progressLocked()
	r.res.Duration = time.Since(r.start)
	res := r.res
	r.mu.Unlock()
	return res, err
}

// newIndexRun is the state of a run (Index, Queue) that has not started.
func newIndexRun(e *Engine, opts IndexOptions) *indexRun {
	r := &indexRun{e: e, opts: opts, start: time.Now(), seen: map[string]bool{}, unreadable: map[string]bool{}, from: map[string]string{},
		callsByDoc: map[string]int{}, preparing: map[string]int{}, cz: e.opts.Contextualizer}
	r.cond = sync.NewCond(&r.qmu)
	r.space = sync.NewCond(&r.qmu)
	return r
}

// indexRun is the state of one Index run.
type indexRun struct {
	e      *Engine
	opts   IndexOptions
	ctx    context.Context
	cancel context.CancelCauseFunc
	start  time.Time
	cz     Contextualizer // the run's contextualizer (Batch replaces it)

	// the queue between the source and the workers
	qmu     sync.Mutex
	cond    *sync.Cond
	queue   []queued
	srcDone bool
	// bounded: the source runs on its own goroutine and waits on space
	// while queuedBytes of text are queued (addQueued).
	bounded     bool
	space       *sync.Cond
	queuedBytes int
	started     int // documents taken by workers
	emitMu      sync.Mutex
	fatalOnce   sync.Once
	fatal       error

	mu     sync.Mutex
	res    IndexResult
	prog   IndexProgress
	seen   map[string]bool
	from   map[string]string // the file each document of the run was read from
	srcErr error
	// partial: the source could not read part of itself (Feed.Partial);
	// unreadable: documents whose files exist but could not be read.
	partial    bool
	unreadable map[string]bool
	firstCall  time.Time
	callsByDoc map[string]int // ended calls by document
	preparing  map[string]int // chunks of documents being prepared
	finished   struct{ docs, calls int }
	kinds      map[string]int // index into prog.Errors
	skips      skipMemory
	// lexAhead is the text of the prepared documents analysed for the arms
	// and not yet committed (analyzeAhead).
	lexAhead atomic.Int64
}

type queued struct {
	doc   Document
	stamp string
	force bool
	// prechunked documents come with their chunks (and contexts).
	prechunked bool
	chunks     []Chunk
	contexts   []Context
}

func (r *indexRun) add(doc Document, stamp string) error {
	return r.addQueued(queued{doc: doc, stamp: stamp})
}

func (r *indexRun) addQueued(q queued) error {
	if err := r.ctx.Err(); err != nil {
		return context.Cause(r.ctx)
	}
	r.mu.Lock()
	if r.seen[q.doc.ID] {
		// A second document with an id the run already has (two roots
		// holding the same relative path, a JSONL file repeating an id):
		// indexing it would silently replace the first.
		first := r.from[q.doc.ID]
		r.mu.Unlock()
		(&Feed{r}).Skip(duplicateError(q.doc, first))
		return nil
	}
	r.seen[q.doc.ID] = true
	if q.doc.Path != "" {
		r.from[q.doc.ID] = q.doc.Path
	}
	if q.stamp != "" {
		r.forgetSkipLocked(q.doc.ID)
	}
	r.res.Documents++
	r.prog.DocsTotal++
	r.mu.Unlock()
	r.qmu.Lock()
	// A source on its own goroutine waits while the queue holds
	// queueBudget bytes of text (always taking one document), so a fast
	// source does not hold the whole corpus in memory ahead of the workers.
	for r.bounded && len(r.queue) > 0 && r.queuedBytes+len(q.doc.Text) > queueBudget && r.ctx.Err() == nil {
		r.space.Wait()
	}
	r.queuedBytes += len(q.doc.Text)
	r.queue = append(r.queue, q)
	r.qmu.Unlock()
	r.cond.Signal()
	return nil
}

// duplicateError reports doc, skipped because the run already had a
// document with its id, read from file first ("" when not from a file).
func duplicateError(doc Document, first string) error {
	if doc.Path == "" {
		return fmt.Errorf("document %q: another document of this run has the id: %w", doc.ID, ErrDuplicateID)
	}
	earlier := "another file read earlier in this run"
	if first != "" {
		earlier = first + ", read earlier in this run"
	}
	return fmt.Errorf("%s: id %q is also the id of %s (an id is the path relative to the directory given: index such directories into separate stores, or their common parent): %w",
		doc.Path, doc.ID, earlier, ErrDuplicateID)
}

// queueBudget bounds the text queued for the workers by a source that runs
// on its own goroutine.
const queueBudget = 16 << 20

func (r *indexRun) sourceDone(err error) {
	r.mu.Lock()
	if err != nil && r.ctx.Err() == nil {
		r.srcErr = err
	}
	r.prog.SourceDone = true
	r.mu.Unlock()
	r.qmu.Lock()
	r.srcDone = true
	r.qmu.Unlock()
	r.cond.Broadcast()
	if err != nil {
		r.cancel(nil)
	}
}

// next returns the next queued document, or false when the source is done
// and the queue empty, or the run stopped.
func (r *indexRun) next() (queued, bool) {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	for {
		if r.ctx.Err() != nil {
			return queued{}, false
		}
		if len(r.queue) > 0 {
			q := r.queue[0]
			r.queue[0] = queued{}
			r.queue = r.queue[1:]
			r.queuedBytes -= len(q.doc.Text)
			r.started++
			r.space.Signal()
			return q, true
		}
		if r.srcDone {
			return queued{}, false
		}
		r.cond.Wait()
	}
}

// stop stops the run for a fatal contextualizer error.
func (r *indexRun) stop(docID string, err error) {
	fix, _ := stopsRun(err)
	r.fatalOnce.Do(func() {
		r.fatal = fmt.Errorf("index stopped at %s: %w; %s, then run again: a rerun resumes where this one stopped", docID, err, fix)
		r.cancel(r.fatal)
		r.cond.Broadcast()
	})
}

// process runs the workers and the committer until the queue is drained or
// the run stops.
func (r *indexRun) process() {
	// Wake workers waiting on the queue when the run is cancelled.
	stopWake := context.AfterFunc(r.ctx, func() {
		r.qmu.Lock()
		r.qmu.Unlock()
		r.cond.Broadcast() // (readSource wakes a source waiting for space)
	})
	defer stopWake()
	c := newCommitter(r.ctx, r.e, r.opts.CommitDocuments, r.opts.CommitInterval, r.committed, r.indexFailed)
	var wg sync.WaitGroup
	for range r.e.opts.ParallelDocuments {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				q, ok := r.next()
				if !ok {
					return
				}
				p, retried, err := r.prepare(q)
				switch {
				case errors.Is(err, errAttributesApplied):
					r.done(q, nil, Updated, nil)
				case err != nil && r.ctx.Err() != nil:
					// Stopped: the document is neither done nor failed.
					r.unprepared(q.doc.ID)
				case err != nil:
					if _, fatal := stopsRun(err); fatal {
						r.unprepared(q.doc.ID)
						r.stop(q.doc.ID, err)
						continue
					}
					r.done(q, nil, Unchanged, err)
				case p == nil:
					r.done(q, nil, Unchanged, nil)
				default:
					if retried {
						r.mu.Lock()
						r.res.Retried++
						r.mu.Unlock()
					}
					c.add(p, q.stamp)
				}
			}
		}()
	}
	wg.Wait()
	c.close()
}

// prepare is Engine.Prepare with the run's contextualizer, re-processing an
// unchanged document that holds a fallback context when the run retries
// them. It reports the document's chunks to the progress as soon as known.
// errAttributesApplied is what prepare returns for a document whose
// attributes alone changed: it applied them, and the run counts the
// document updated.
var errAttributesApplied = errors.New("attributes applied")

func (r *indexRun) prepare(q queued) (*Prepared, bool, error) {
	e := r.e
	doc := q.doc
	if q.prechunked {
		p, err := e.prepareChunks(r.ctx, doc, q.chunks, q.contexts)
		if err == nil && p != nil {
			err = r.analyzeAhead(p)
		}
		if err != nil {
			return nil, false, err
		}
		if p != nil {
			r.mu.Lock()
			r.preparing[doc.ID] += len(q.chunks)
			r.prog.Chunks += len(q.chunks)
			r.mu.Unlock()
		}
		return p, false, err
	}
	if doc.ID == "" {
		return nil, false, fmt.Errorf("put document: ID: must not be empty: %w", ErrInvalid)
	}
	hash := recordHash(doc, e.processing)
	retried := false
	patched, same, err := e.prepareAttributes(r.ctx, doc)
	if err != nil {
		return nil, false, err
	}
	if patched {
		return nil, false, errAttributesApplied
	}
	if same {
		if !q.force && !r.opts.RetryFallbacks {
			return nil, false, nil
		}
		if !q.force {
			fb, err := e.hasFallback(r.ctx, doc.ID)
			if err != nil {
				return nil, false, err
			}
			if !fb {
				return nil, false, nil
			}
		}
		retried = true
	}
	p, err := e.prepareWith(r.ctx, doc, hash, r.cz, func(chunks int) {
		r.mu.Lock()
		r.preparing[doc.ID] += chunks
		r.prog.Chunks += chunks
		r.mu.Unlock()
	})
	if err == nil {
		err = r.analyzeAhead(p)
	}
	return p, retried, err
}

// lexAheadBudget bounds the text of the documents a run holds analysed for
// the arms (about 13 bytes of terms and postings per byte of text) while
// they wait for the committer: a document over the budget is analysed by
// the committer, as one of a batch, instead.
const lexAheadBudget = 4 << 20

// analyzeAhead analyses p for the arms on this (preparing) goroutine when
// the run's budget allows, so the committer only inverts and writes it.
func (r *indexRun) analyzeAhead(p *Prepared) error {
	n := int64(len(p.doc.Text))
	if r.lexAhead.Add(n) > lexAheadBudget {
		r.lexAhead.Add(-n)
		return nil
	}
	if err := r.e.prepareLexical(p); err != nil || p.lex == nil {
		r.lexAhead.Add(-n)
		return err
	}
	p.lexBytes = n
	return nil
}

// unprepared forgets a document that the stopped run did not finish.
func (r *indexRun) unprepared(id string) {
	r.mu.Lock()
	delete(r.preparing, id)
	r.mu.Unlock()
}

// committed is the committer's report of one document.
func (r *indexRun) committed(p *Prepared, stamp string, change Change, err error) {
	r.lexAhead.Add(-p.lexBytes)
	p.lex, p.lexBytes = nil, 0
	if _, fatal := stopsRun(err); fatal && err != nil {
		r.stop(p.doc.ID, err)
	}
	if err == nil {
		fb := 0
		for _, c := range p.contexts {
			if slices.Contains(c.Flags, FlagFallback) {
				fb++
			}
		}
		r.mu.Lock()
		r.res.Chunks += len(p.chunks)
		r.res.Fallbacks += fb
		r.prog.Fallbacks += fb
		r.mu.Unlock()
	}
	r.done(queued{doc: p.doc, stamp: stamp}, p, change, err)
}

// indexFailed handles a commit whose documents were all stored but not
// indexed (their counts are already done): a full disk stops the run as a
// failed store would; any other error is logged, since the next open
// indexes them from the store.
func (r *indexRun) indexFailed(lastID string, err error) {
	if _, fatal := stopsRun(err); fatal {
		r.stop(lastID, err)
		return
	}
	r.e.log.Warn("stored but not indexed; the next open of the store indexes them", "doc", lastID, "err", err)
}

// done records a finished document: its change, or its failure.
func (r *indexRun) done(q queued, p *Prepared, change Change, err error) {
	id := q.doc.ID
	if err == nil && q.stamp != "" {
		if ms, ok := r.e.store.(driver.MetaStore); ok {
			if rec, rerr := r.e.Document(id); rerr == nil {
				if serr := ms.SetMeta(context.WithoutCancel(r.ctx), fileStampPrefix+id, q.stamp+" "+rec.Hash); serr != nil {
					r.e.log.Warn("remember file stamp", "doc", id, "err", serr)
				}
			}
		}
	}
	r.mu.Lock()
	if err != nil {
		r.res.Failed++
		r.res.Failures = append(r.res.Failures, DocumentError{DocID: id, Err: err})
	} else {
		switch change {
		case Added:
			r.res.Added++
		case Updated:
			r.res.Updated++
		default:
			r.res.Unchanged++
		}
	}
	r.prog.Docs++
	r.finished.docs++
	r.finished.calls += r.callsByDoc[id]
	delete(r.preparing, id)
	r.mu.Unlock()
	r.emit(IndexEvent{Kind: EventDocument, DocID: id, Change: change, Err: err})
}

// observe counts a contextualizer call event.
func (r *indexRun) observe(ev CallEvent) {
	var kind string
	var newKind bool
	r.mu.Lock()
	if r.firstCall.IsZero() {
		r.firstCall = time.Now()
	}
	switch ev.Kind {
	case driver.CallStart:
		r.prog.InFlight++
	case driver.CallDone, driver.CallFail:
		r.prog.InFlight = max(0, r.prog.InFlight-1)
		r.prog.Calls++
		r.callsByDoc[ev.DocID]++
	case driver.CallRetry:
		r.prog.InFlight = max(0, r.prog.InFlight-1)
		r.prog.Retries++
	}
	u := ev.Usage
	r.prog.InputTokens += int64(u.InputTokens)
	r.prog.CacheReadTokens += int64(u.CacheReadTokens)
	r.prog.CacheWriteTokens += int64(u.CacheWriteTokens)
	r.prog.OutputTokens += int64(u.OutputTokens)
	r.prog.CostUSD += u.CostUSD
	if ev.Err != nil && (ev.Kind == driver.CallRetry || ev.Kind == driver.CallFail) && !errors.Is(ev.Err, context.Canceled) {
		kind = driver.ErrorKind(ev.Err)
		if r.kinds == nil {
			r.kinds = map[string]int{}
		}
		if i, ok := r.kinds[kind]; ok {
			r.prog.Errors[i].Count++
		} else {
			r.kinds[kind] = len(r.prog.Errors)
			r.prog.Errors = append(r.prog.Errors, ErrorCount{Kind: kind, Message: ev.Err.Error(), Count: 1})
			newKind = true
		}
	}
	r.mu.Unlock()
	if newKind {
		r.emit(IndexEvent{Kind: EventProviderError, DocID: ev.DocID, Err: ev.Err, ErrorKind: kind})
	}
	r.emit(IndexEvent{Kind: EventCall, DocID: ev.DocID, Err: ev.Err})
}

// emit sends ev with the current progress to the Progress callback.
func (r *indexRun) emit(ev IndexEvent) {
	if r.opts.Progress == nil {
		return
	}
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.mu.Lock()
	ev.Progress = r.progressLocked()
	r.mu.Unlock()
	r.opts.Progress(ev)
}

// progressLocked returns the progress with its estimates; r.mu is held.
func (r *indexRun) progressLocked() IndexProgress {
	p := r.prog
	p.Errors = slices.Clone(p.Errors)
	p.Elapsed = time.Since(r.start)
	if p.Calls+p.InFlight > 0 {
		// Calls: those of finished documents, the chunks of documents in
		// preparation (at most one call each), and for documents not
		// started the average so far.
		total := r.finished.calls
		started := r.finished.docs
		for id, n := range r.preparing {
			total += max(n, r.callsByDoc[id])
			started++
		}
		if left := p.DocsTotal - p.Docs - len(r.preparing); left > 0 && started > 0 {
			total += left * total / started
		}
		p.CallsTotal = max(total, p.Calls+p.InFlight)
		if p.Calls > 0 {
			perCall := time.Since(r.firstCall) / time.Duration(p.Calls)
			p.ETA = perCall * time.Duration(p.CallsTotal-p.Calls)
		}
	} else if p.SourceDone && p.Docs > 0 && p.DocsTotal > p.Docs {
		p.ETA = p.Elapsed / time.Duration(p.Docs) * time.Duration(p.DocsTotal-p.Docs)
	}
	return p
}

// prune removes the documents the source did not report.
func (r *indexRun) prune() error {
	for _, rec := range r.e.Documents() {
		if r.keeps(rec.ID) {
			continue
		}
		if err := r.e.Delete(r.ctx, rec.ID); err != nil {
			return fmt.Errorf("index: prune: %w", err)
		}
		r.mu.Lock()
		r.res.Removed++
		r.mu.Unlock()
		r.emit(IndexEvent{Kind: EventRemoved, DocID: rec.ID})
	}
	return nil
}

// keeps reports whether prune keeps document id: the run saw it, or its
// file is there but could not be read.
func (r *indexRun) keeps(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[id] || r.unreadable[id]
}

// batch drains the source, has opts.Batch write the contexts of the
// documents that need them, and queues every document for the workers,
// which then use the contextualizer the batch returned.
func (r *indexRun) batch(src Source) error {
	e := r.e
	srcErr := src(r.ctx, &Feed{r: r})
	r.sourceDone(srcErr)
	if srcErr != nil || r.ctx.Err() != nil {
		return nil // reported by Index
	}
	r.qmu.Lock()
	queue := r.queue
	r.qmu.Unlock()
	var todo []driver.DocumentChunks
	for i, q := range queue {
		if q.prechunked {
			continue
		}
		patched, same, err := e.prepareAttributes(r.ctx, q.doc)
		if err != nil {
			return err
		}
		if patched {
			continue // its attributes alone changed: nothing to contextualize
		}
		if same {
			fb, err := e.hasFallback(r.ctx, q.doc.ID)
			if err != nil {
				return err
			}
			if !fb {
				continue
			}
			queue[i].force = true
		}
		doc := q.doc
		doc.Lang = driver.ResolveLanguage(doc)
		chunks, err := e.Split(doc)
		if err != nil {
			continue // fails again, and is reported, when prepared
		}
		todo = append(todo, driver.DocumentChunks{Doc: doc, Chunks: chunks})
	}
	cz, err := r.opts.Batch.ContextualizeBatch(r.ctx, todo)
	if err != nil {
		if fix, ok := stopsRun(err); ok {
			return fmt.Errorf("index: batch: %w; %s, then run again: a rerun resumes the batch", err, fix)
		}
		return fmt.Errorf("index: batch: %w", err)
	}
	if e.opts.Contextualizer == nil || cz.Name() != e.opts.Contextualizer.Name() {
		return fmt.Errorf("index: batch: contextualizer %q is not the engine's: %w", cz.Name(), ErrInvalid)
	}
	r.cz = cz
	return nil
}

// hasFallback reports whether a stored document has a chunk whose context
// is the fallback for a call that failed (and could succeed if retried).
func (e *Engine) hasFallback(ctx context.Context, id string) (bool, error) {
	chunks, err := e.store.Chunks(ctx, id)
	if err != nil {
		return false, err
	}
	for _, ch := range chunks {
		if slices.Contains(ch.Context.Flags, FlagFallback) && !slices.Contains(ch.Context.Flags, FlagTooLarge) {
			return true, nil
		}
	}
	return false, nil
}

// prepareWith chunks doc, reports how many chunks it has to planned (when
// set), and contextualizes it with cz.
func (e *Engine) prepareWith(ctx context.Context, doc Document, hash string, cz Contextualizer, planned func(chunks int)) (*Prepared, error) {
	doc.Lang = driver.ResolveLanguage(doc)
	chunks, err := e.Split(doc)
	if err != nil {
		return nil, err
	}
	if planned != nil {
		planned(len(chunks))
	}
	contexts, err := contextualizeWith(ctx, cz, doc, chunks)
	if err != nil {
		return nil, err
	}
	p := &Prepared{doc: doc, hash: hash, chunks: chunks, contexts: contexts}
	if err := e.embedPrepared(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

func contextualizeWith(ctx context.Context, cz Contextualizer, doc Document, chunks []Chunk) ([]Context, error) {
	if cz == nil || len(chunks) == 0 {
		return make([]Context, len(chunks)), nil
	}
	contexts, err := cz.Contextualize(ctx, doc, chunks)
	if err != nil {
		return nil, fmt.Errorf("contextualize %s: %w", doc.ID, err)
	}
	if len(contexts) != len(chunks) {
		return nil, fmt.Errorf("contextualize %s: %s returned %d contexts for %d chunks", doc.ID, cz.Name(), len(contexts), len(chunks))
	}
	return contexts, nil
}

// committer collects prepared documents from concurrent workers and commits
// them in batches on its own goroutine.
type committer struct {
	eng      *Engine
	in       chan staged
	done     chan struct{}
	docs     int
	interval time.Duration
	onDone   func(p *Prepared, stamp string, change Change, err error)
	// onIndexError gets the error of a batch the store took whole but
	// the indexes did not (after the batch's onDone calls).
	onIndexError func(lastID string, err error)
	// halted: a commit failed in a way every later one would (disk full);
	// what is left is dropped, neither committed nor counted as failed.
	halted bool
}

type staged struct {
	p     *Prepared
	stamp string
}

// newCommitter starts a committer; onDone is called once per document,
// from the committer's goroutine only.
func newCommitter(ctx context.Context, eng *Engine, docs int, interval time.Duration, onDone func(*Prepared, string, Change, error), onIndexError func(string, error)) *committer {
	c := &committer{eng: eng, in: make(chan staged, docs), done: make(chan struct{}), docs: docs, interval: interval, onDone: onDone, onIndexError: onIndexError}
	go c.loop(ctx)
	return c
}

func (c *committer) add(p *Prepared, stamp string) { c.in <- staged{p, stamp} }

// close commits what is left and waits for it.
func (c *committer) close() {
	close(c.in)
	<-c.done
}

func (c *committer) loop(ctx context.Context) {
	defer close(c.done)
	var batch []staged
	timer := time.NewTimer(c.interval)
	defer timer.Stop()
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if c.halted {
			batch = batch[:0]
			return
		}
		ps := make([]*Prepared, len(batch))
		for i, s := range batch {
			ps[i] = s.p
		}
		// A commit is not interrupted by the run's cancellation: what was
		// prepared is either committed whole or not at all.
		changes, err := c.eng.Commit(context.WithoutCancel(ctx), ps)
		if _, fatal := stopsRun(err); fatal && err != nil {
			c.halted = true
		}
		for i, s := range batch {
			if i < len(changes) {
				// Stored, even when a later document of the batch failed.
				c.onDone(s.p, s.stamp, changes[i], nil)
			} else {
				c.onDone(s.p, s.stamp, Unchanged, err)
			}
		}
		if err != nil && len(changes) == len(batch) {
			// All stored, and journalled for the indexes, which the next
			// open brings up to date: the error is the indexes'.
			c.onIndexError(batch[len(batch)-1].p.doc.ID, err)
		}
		batch = batch[:0]
	}
	for {
		select {
		case s, ok := <-c.in:
			if !ok {
				flush()
				return
			}
			batch = append(batch, s)
			if len(batch) >= c.docs {
				flush()
			}
		case <-timer.C:
			flush()
			timer.Reset(c.interval)
		}
	}
}
