package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/situate/situate/driver"
)

// errEmptyAnswer is the failure of a call whose answer held no context.
var errEmptyAnswer = errors.New("llm: the model answered with an empty context")

// job is one chunk's call.
type job struct {
	dp     *docPlan
	g      *group
	chunk  int
	key    string
	proj   float64 // projected cost
	first  bool    // the group's warm call
	rest   []*job  // for the warm call: the group's other calls
	once   sync.Once
	queue  *queue
	docRun *run
	// sent is the usage record of the call in flight, made before it was
	// sent (driver.AttemptRecorder); 0 when none.
	sent int64
}

// queue orders one replica's jobs: fan-out jobs of warm groups first, then
// warm calls of new groups (see Run).
type queue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	lim     *limiter
	fan     []*job
	warm    []*job
	warming int // warm calls taken but not yet released
	waiting int // groups whose fan-out is not yet released
	planned bool
	stopped bool
}

func newQueue(lim *limiter) *queue {
	q := &queue{lim: lim}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// addGroup queues a group's jobs: the first as a warm call whose start
// releases the others, or, when warm is false (a prefix too short for the
// provider to cache), all of them for immediate fan-out.
func (q *queue) addGroup(jobs []*job, warm bool) {
	q.mu.Lock()
	if warm {
		first := jobs[0]
		first.first = true
		first.rest = jobs[1:]
		q.warm = append(q.warm, first)
		q.waiting++
	} else {
		q.fan = append(q.fan, jobs...)
	}
	q.mu.Unlock()
	q.cond.Broadcast()
}

// release queues a warm job's group for fan-out (once).
func (q *queue) release(j *job) {
	j.once.Do(func() {
		q.mu.Lock()
		q.fan = append(q.fan, j.rest...)
		q.waiting--
		q.warming--
		q.mu.Unlock()
		q.cond.Broadcast()
	})
}

func (q *queue) setPlanned() {
	q.mu.Lock()
	q.planned = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *queue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// next returns the next job, or nil when there is none left or the queue
// was stopped.
func (q *queue) next() *job {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.stopped {
			return nil
		}
		limit := q.lim.current()
		switch {
		case len(q.warm) > 0 && (len(q.fan) == 0 || (q.warming < 2 && len(q.fan) < 2*limit)):
			j := q.warm[0]
			q.warm = q.warm[1:]
			q.warming++
			return j
		case len(q.fan) > 0:
			j := q.fan[0]
			q.fan = q.fan[1:]
			return j
		case q.planned && q.waiting == 0:
			return nil
		}
		q.cond.Wait()
	}
}

// budget tracks spend against MaxCostUSD.
type budget struct {
	mu       sync.Mutex
	max      float64
	spent    float64
	reserved float64
}

func (b *budget) reserve(proj float64) bool {
	if b.max <= 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent+b.reserved+proj > b.max {
		return false
	}
	b.reserved += proj
	return true
}

func (b *budget) commit(proj, actual float64) {
	b.mu.Lock()
	b.reserved -= proj
	b.spent += actual
	b.mu.Unlock()
}

// run is the state of one Run.
type run struct {
	c      *Contextualizer
	ctx    context.Context
	cancel context.CancelFunc
	queues []*queue
	lims   []*limiter
	budget budget

	emitMu sync.Mutex
	emitFn func(doc, chunk int, c driver.Context) error

	errMu sync.Mutex
	err   error
	stop  bool
}

func (r *run) stopAll() {
	r.errMu.Lock()
	r.stop = true
	r.errMu.Unlock()
	for i := range r.queues {
		r.queues[i].stop()
		r.lims[i].close()
	}
}

func (r *run) stopped() bool {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.stop
}

// fail records the first fatal error and cancels the run.
func (r *run) fail(err error) {
	r.errMu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.errMu.Unlock()
	r.cancel()
	r.stopAll()
}

// halt records an error and stops dispatching without cancelling calls in
// flight (a budget stop).
func (r *run) halt(err error) {
	r.errMu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.errMu.Unlock()
	r.stopAll()
}

func (r *run) emit(doc, chunk int, x driver.Context) error {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	if r.stopped() && r.ctx.Err() != nil {
		return r.ctx.Err()
	}
	return r.emitFn(doc, chunk, x)
}

// planAndQueue plans one document, emits its cached and too-large chunks
// and queues the rest.
func (r *run) planAndQueue(idx int, d DocChunks, window int) error {
	c := r.c
	if !c.opts.CallWholeDocuments && wholeDocument(d) {
		x, err := c.wholeDocumentContext(r.ctx, d.Doc, d.Chunks[0])
		if err != nil {
			return err
		}
		return r.emit(idx, 0, x)
	}
	dp, err := c.planDoc(r.ctx, idx, d, window)
	if err != nil {
		return err
	}
	// The key covers what the model is shown of the document, its text:
	// a change of title, metadata or access costs no call. Keys made
	// before hashed the whole Document (attributes too); they are still
	// read, and a hit is kept under the new key.
	docHash, legacyHash := promptDocumentHash(d.Doc), d.Doc.Hash()
	for _, i := range dp.plan.tooLarge {
		x, err := c.fallback(r.ctx, d.Doc, d.Chunks[i], FlagTooLarge)
		if err != nil {
			return err
		}
		if err := r.emit(idx, i, x); err != nil {
			return err
		}
	}
	q := r.queues[dp.replica]
	for gi := range dp.plan.groups {
		g := &dp.plan.groups[gi]
		var jobs []*job
		for _, i := range g.chunks {
			key := c.cacheKey(dp.tmpl.Hash, dp.lang, docHash, dp.glossary, d.Chunks[i].Text, g.desc)
			if c.opts.Cache != nil {
				x, ok, err := c.opts.Cache.CachedContext(r.ctx, key)
				if err == nil && !ok {
					legacy := c.cacheKey(dp.tmpl.Hash, dp.lang, legacyHash, dp.glossary, d.Chunks[i].Text, g.desc)
					if x, ok, err = c.opts.Cache.CachedContext(r.ctx, legacy); err == nil && ok {
						err = c.opts.Cache.CacheContext(r.ctx, key, x)
					}
				}
				if err != nil {
					return fmt.Errorf("llm: cache lookup for %s chunk %d: %w", d.Doc.ID, i, err)
				}
				if ok && !c.opts.KeepDegenerate && hasDegenerateFlag(x.Flags) {
					ok = false // kept by an earlier run that kept degenerate answers: ask again
				}
				if ok {
					if err := r.emit(idx, i, x); err != nil {
						return err
					}
					continue
				}
			}
			jobs = append(jobs, &job{dp: dp, g: g, chunk: i, key: key, queue: q, docRun: r})
		}
		if len(jobs) == 0 {
			continue
		}
		// A prefix shorter than the provider's minimum cacheable length
		// (known from the price table) gains nothing from warming first.
		warm := !c.hasPrice || g.prefixTokens >= c.price.MinCacheTokens
		for k, j := range jobs {
			j.proj = c.projectedCost(g.prefixTokens, dp.plan.suffixTokens[j.chunk], k == 0 && warm)
		}
		q.addGroup(jobs, warm)
	}
	return nil
}

// dispatch runs replica i's jobs until its queue is empty or stopped.
func (r *run) dispatch(i int) {
	q, lim := r.queues[i], r.lims[i]
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		epoch, ok := lim.acquire()
		if !ok {
			return
		}
		j := q.next()
		if j == nil {
			lim.release()
			return
		}
		if !r.budget.reserve(j.proj) {
			lim.release()
			if j.first {
				q.release(j)
			}
			r.budget.mu.Lock()
			spent := r.budget.spent
			r.budget.mu.Unlock()
			r.halt(fmt.Errorf("llm: run: next call (%s chunk %d, projected $%.4f) would exceed MaxCostUSD $%.4f (spent $%.4f): %w",
				j.dp.doc.ID, j.chunk, j.proj, r.budget.max, spent, ErrBudget))
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer lim.release()
			if err := r.exec(j, i, epoch); err != nil {
				r.fail(err)
			}
		}()
	}
}

// rateTokens is what a job's call counts against InputTokensPerMinute: its
// estimated prompt less the prefix it should read from the provider's cache
// (a fan-out call of a group whose prefix is long enough to be cached).
func (c *Contextualizer) rateTokens(j *job) int {
	n := j.dp.plan.suffixTokens[j.chunk]
	cached := !j.first && (!c.hasPrice || j.g.prefixTokens >= c.price.MinCacheTokens)
	if !cached {
		n += j.g.prefixTokens
	}
	return n
}

// exec makes one chunk's call and emits its context. An answer rejected
// as degenerate is asked again with another sample (Prompt.Sample) up to
// Options.DegenerateRetries times. Every attempt is reported to the call
// observer of the run's context and recorded as usage: "context" for the
// call's last attempt, "context-retry" for an earlier one that failed or
// was rejected; an attempt cut short by cancellation is recorded as
// "context-cancelled" (when it carries tokens), never as an error.
func (r *run) exec(j *job, replica, epoch int) error {
	c := r.c
	dp := j.dp
	ch := dp.chunks[j.chunk]
	q := j.queue
	if j.first {
		defer q.release(j)
	}
	p := driver.Prompt{
		DocID:     dp.doc.ID,
		Prefix:    j.g.prefix,
		Suffix:    dp.tmpl.Suffix(ch.Text),
		MaxTokens: c.opts.MaxTokens,
	}
	if j.first {
		p.Started = func() { q.release(j) }
	}
	// A call that succeeded is recorded and cached even if the run was
	// cancelled meanwhile, so that a resumed run does not repeat it.
	ctx := context.WithoutCancel(r.ctx)
	spent := 0.0
	defer func() { r.budget.commit(j.proj, spent) }()
	retries := 0
	for sample := 0; ; sample++ {
		p.Sample = sample
		comp, err := r.complete(j, replica, epoch, p, &retries, &spent)
		if err != nil {
			switch {
			case r.ctx.Err() != nil || errors.Is(err, context.Canceled):
				return nil // cancelled: nothing emitted or cached
			case errors.Is(err, driver.ErrProviderFailing) || fatalError(err):
				return err
			}
			reason := FlagError
			if errors.Is(err, driver.ErrPromptTooLarge) {
				reason = FlagTooLarge
			}
			return r.fallback(j, reason, err)
		}
		chk := check(comp.Text, dp.docFacts(), dp.want, c.opts.MaxContextTokens, comp.Usage.OutputTokens, c.opts.MaxTokens)
		if chk.text == "" {
			if err := r.attempt(j, comp.Usage, retries, "context", nil, &spent); err != nil {
				return err
			}
			// Every CallStart ends in done, retry or fail, or a front end
			// counts the call as in flight for ever.
			driver.ObserveCall(r.ctx, driver.CallEvent{DocID: dp.doc.ID, Kind: driver.CallFail, Err: errEmptyAnswer, Usage: comp.Usage})
			return r.fallback(j, FlagEmpty, errEmptyAnswer)
		}
		if dg := chk.degenerate; dg != nil && !c.opts.KeepDegenerate {
			if sample < c.opts.DegenerateRetries {
				retries++
				if err := r.attempt(j, comp.Usage, retries, "context-retry", dg, &spent); err != nil {
					return err
				}
				driver.ObserveCall(r.ctx, driver.CallEvent{DocID: dp.doc.ID, Kind: driver.CallRetry, Err: dg, Usage: comp.Usage})
				continue
			}
			if err := r.attempt(j, comp.Usage, retries, "context", dg, &spent); err != nil {
				return err
			}
			driver.ObserveCall(r.ctx, driver.CallEvent{DocID: dp.doc.ID, Kind: driver.CallFail, Err: dg, Usage: comp.Usage})
			return r.fallback(j, FlagDegenerate+dg.Kind, dg)
		}
		if err := r.attempt(j, comp.Usage, retries, "context", nil, &spent); err != nil {
			return err
		}
		driver.ObserveCall(r.ctx, driver.CallEvent{DocID: dp.doc.ID, Kind: driver.CallDone, Usage: comp.Usage})
		x := driver.Context{Text: chk.text, Source: c.Name(), Flags: chk.flags}
		if c.opts.Cache != nil {
			if err := c.opts.Cache.CacheContext(ctx, j.key, x); err != nil {
				return fmt.Errorf("llm: cache context of %s chunk %d: %w", dp.doc.ID, j.chunk, err)
			}
		}
		return r.emit(dp.idx, j.chunk, x)
	}
}

// attempt records one attempt's usage (operation "context", "context-retry"
// or "context-cancelled") and adds its cost to spent.
func (r *run) attempt(j *job, u driver.Usage, retries int, op string, err error, spent *float64) error {
	c := r.c
	start := u.Time
	if start.IsZero() {
		start = time.Now()
	}
	u.Time, u.Operation, u.DocID, u.Retries = start, op, j.dp.doc.ID, retries
	if u.Latency == 0 {
		u.Latency = time.Since(start)
	}
	u.Provider, u.Model, u.Error, u.CostUSD = "", "", "", 0
	if err != nil {
		u.Error = err.Error()
	}
	if c.hasPrice {
		*spent += c.price.Cost(u, c.opts.CacheTTL)
	}
	if j.sent != 0 {
		id := j.sent
		j.sent = 0
		return c.finishRecord(context.WithoutCancel(r.ctx), id, u)
	}
	return c.record(context.WithoutCancel(r.ctx), u)
}

// beginAttempt records a call about to be sent as unanswered, when the
// usage recorder can complete such a record (driver.AttemptRecorder);
// attempt completes it. inTokens is the prompt's estimated input.
func (r *run) beginAttempt(j *job, inTokens int, start time.Time) error {
	c := r.c
	rec, ok := c.opts.Usage.(driver.AttemptRecorder)
	if !ok {
		return nil
	}
	u := driver.Usage{Time: start, Operation: driver.OperationUnanswered, DocID: j.dp.doc.ID, InputTokens: inTokens,
		Error: "no answer recorded: the process stopped or the call was cut short before it came"}
	u.Provider, u.Model = splitName(c.Name())
	if c.hasPrice {
		u.CostUSD = c.price.Cost(u, c.opts.CacheTTL)
	}
	id, err := rec.BeginUsage(context.WithoutCancel(r.ctx), u)
	if err != nil {
		return fmt.Errorf("llm: record usage of %s: %w", u.DocID, err)
	}
	j.sent = id
	return nil
}

// fallback emits the fallback context of a job's chunk and reports it.
func (r *run) fallback(j *job, reason string, cause error) error {
	x, err := r.c.fallback(r.ctx, j.dp.doc, j.dp.chunks[j.chunk], reason)
	if err != nil {
		return err
	}
	driver.ObserveCall(r.ctx, driver.CallEvent{DocID: j.dp.doc.ID, Kind: driver.CallFallback, Err: cause})
	return r.emit(j.dp.idx, j.chunk, x)
}

// complete calls the model with retries, each attempt after the rate
// limits allow the job's input tokens. It reports every attempt to the
// call observer, records failed attempts that are retried, feeds the
// breaker, and records the last attempt when it fails (a successful one
// is recorded by the caller once its answer is checked). retries counts
// the failed attempts of the chunk so far.
func (r *run) complete(j *job, replica, epoch int, p driver.Prompt, retries *int, spent *float64) (driver.Completion, error) {
	c, ctx := r.c, r.ctx
	m, lim := c.pool[replica], r.lims[replica]
	inTokens := c.rateTokens(j)
	doc := j.dp.doc.ID
	for attempt := 0; ; attempt++ {
		if err, _ := c.breaker.state(); err != nil {
			return driver.Completion{}, err
		}
		if c.gate != nil {
			if err := c.gate.wait(ctx, inTokens); err != nil {
				return driver.Completion{}, err
			}
		}
		driver.ObserveCall(ctx, driver.CallEvent{DocID: doc, Kind: driver.CallStart})
		start := time.Now()
		// Recorded before it is sent: a process killed before the answer
		// still accounts for a call the provider may bill.
		if err := r.beginAttempt(j, inTokens, start); err != nil {
			return driver.Completion{}, err
		}
		cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
		comp, err := m.Complete(cctx, p)
		cancel()
		if comp.Usage.Time.IsZero() {
			comp.Usage.Time = start
		}
		if comp.Usage.Latency == 0 {
			comp.Usage.Latency = time.Since(start)
		}
		if err == nil {
			lim.success()
			c.breaker.success()
			if c.gate != nil {
				c.gate.correct(inTokens, comp.Usage.InputTokens+comp.Usage.CacheWriteTokens)
			}
			return comp, nil
		}
		if ctx.Err() != nil {
			// Cancelled (by the user, or by a breaker or fatal error
			// elsewhere in the run): not a provider error.
			if comp.Usage.InputTokens+comp.Usage.CacheReadTokens+comp.Usage.CacheWriteTokens+comp.Usage.OutputTokens > 0 {
				if rerr := r.attempt(j, comp.Usage, *retries, "context-cancelled", nil, spent); rerr != nil {
					return comp, rerr
				}
			}
			driver.ObserveCall(ctx, driver.CallEvent{DocID: doc, Kind: driver.CallFail, Err: ctx.Err(), Usage: comp.Usage})
			return comp, ctx.Err()
		}
		final := func(err error) (driver.Completion, error) {
			if rerr := r.attempt(j, comp.Usage, *retries, "context", err, spent); rerr != nil {
				return comp, rerr
			}
			driver.ObserveCall(ctx, driver.CallEvent{DocID: doc, Kind: driver.CallFail, Err: err, Usage: comp.Usage})
			return comp, err
		}
		if fatalError(err) {
			return final(c.breaker.fatal(fmt.Errorf("llm: %s: %w", c.Name(), err)))
		}
		if countsForBreaker(err) {
			if trip := c.breaker.failure(err); trip != nil {
				return final(trip)
			}
		}
		retry, after, rl := classify(ctx, err)
		if !retry || attempt >= c.opts.MaxRetries {
			return final(err)
		}
		*retries++
		if rerr := r.attempt(j, comp.Usage, *retries, "context-retry", err, spent); rerr != nil {
			return comp, rerr
		}
		driver.ObserveCall(ctx, driver.CallEvent{DocID: doc, Kind: driver.CallRetry, Err: err, Usage: comp.Usage})
		if rl {
			epoch = lim.rateLimited(epoch)
		}
		if err := sleep(ctx, backoff(attempt, c.opts.BaseBackoff, c.opts.MaxBackoff, after)); err != nil {
			return comp, err
		}
	}
}

// promptDocumentHash identifies what a prompt shows of a document: its text.
func promptDocumentHash(doc driver.Document) string {
	h := sha256.Sum256([]byte(doc.Text))
	return "text:" + hex.EncodeToString(h[:])
}
