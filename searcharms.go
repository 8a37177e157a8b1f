package situate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/fusion"
	"github.com/situate/situate/rank"
	"github.com/situate/situate/vector"
)

// searchArm is one ranked list a query draws on: a BM25 index of the
// Engine's, its vector index, or either of them held by an index backend.
// Every arm answers in one shape, fusion.Hit, and the arms meet once, in
// fusion.Fuse.
type searchArm interface {
	// name names the arm in explanations and errors.
	name() string
	kind() fusion.Kind
	weight() float64
	// search returns the arm's best q.n hits: in order when q.ordered,
	// else in any order. ran is false when the arm sits the query out.
	search(ctx context.Context, q *armQuery) (hits []fusion.Hit, ran bool, err error)
}

// armQuery is one query as the arms see it.
type armQuery struct {
	text string
	n    int
	// ordered asks for the best n in order (the plain Lucene ranking);
	// otherwise the hits are fused and their order does not matter.
	ordered bool
	// allowed restricts an embedded arm to these documents (nil: all);
	// filter is the same restriction for an index backend, which applies
	// it itself.
	allowed map[string]bool
	filter  Filter
	// vector is the query's embedding, for the dense arms.
	vector []float32

	// release holds what the arms borrowed from pools for their hits'
	// IDs: it is returned once the hits are fused and copied.
	mu      sync.Mutex
	release []func()
}

func (q *armQuery) onRelease(f func()) {
	q.mu.Lock()
	q.release = append(q.release, f)
	q.mu.Unlock()
}

// searchArms are the arms a query of mode draws on, lexical first.
func (e *Engine) searchArms(mode string) []searchArm {
	var arms []searchArm
	if mode != ModeDense {
		for _, a := range e.arms {
			if e.opts.Backend != nil {
				arms = append(arms, backendTermArm{e: e, lexArm: a})
			} else {
				arms = append(arms, localLexicalArm{e: e, lexArm: a})
			}
		}
	}
	if mode != ModeBM25 {
		if e.opts.Backend != nil {
			arms = append(arms, backendDenseArm{e})
		} else {
			arms = append(arms, localDenseArm{e})
		}
	}
	return arms
}

// recipe is the fusion recipe of e's options.
func (e *Engine) recipe() fusion.Recipe {
	return fusion.Recipe{DocumentWeight: e.opts.DocumentWeight, TestPenalty: e.opts.TestPenalty, IsTest: rank.IsAsideFile,
		Method: e.opts.Fusion, LexicalWeight: e.opts.LexicalWeight, ChunkKey: fusion.SplitChunkID(chunkKeySep)}
}

// candidates is one ranking of a query: the fused order and, when asked
// for, each hit's rank and score in every arm.
type candidates struct {
	ranked  []fusion.Result
	explain map[string][]ArmRank
}

// candidates runs the arms of mode, each for its best n (the lexical ones
// for Candidates when they are combined), at the same time, and fuses
// them: the dense arm's query embedding and vector scan overlap the BM25
// arms' scoring instead of adding to it.
func (e *Engine) candidates(ctx context.Context, text, mode string, n int, allowed map[string]bool, filter Filter, explain bool) (candidates, error) {
	var c candidates
	arms := e.searchArms(mode)
	r := e.recipe()
	if rank.AsksForTests(text) {
		// A question about tests wants them: no test prior.
		r.TestPenalty = 0
	}
	lexical := 0
	for _, a := range arms {
		if a.kind() != fusion.Dense {
			lexical++
		}
	}
	// Arms to be combined each hand over their best Candidates, in any
	// order; a plain BM25 arm its best n, in order.
	plain := fusion.Plain(r, lexical)
	q := &armQuery{text: text, n: n, ordered: plain, allowed: allowed, filter: filter}
	defer func() {
		for _, f := range q.release {
			f()
		}
	}()
	lists := make([]fusion.Arm, len(arms))
	errs := make([]error, len(arms))
	var wg sync.WaitGroup
	for i, a := range arms {
		w := a.weight()
		if l, ok := a.(interface{ weightFor(text string) float64 }); ok {
			w = l.weightFor(text) // a lexical arm whose spec scales it per query
		}
		lists[i] = fusion.Arm{Name: a.name(), Kind: a.kind(), Weight: w}
		aq := q
		if a.kind() != fusion.Dense && !plain {
			aq = &armQuery{text: text, n: max(n, e.opts.Candidates), allowed: allowed, filter: filter}
		}
		wg.Go(func() {
			hits, ran, err := a.search(ctx, aq)
			if err != nil {
				errs[i] = fmt.Errorf("%s arm: %w", a.name(), err)
				return
			}
			lists[i].Hits, lists[i].Ran = hits, ran
			if aq != q {
				q.onRelease(func() {
					for _, f := range aq.release {
						f()
					}
				})
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		if e.opts.Backend != nil {
			return c, fmt.Errorf("search: index backend: %w", err)
		}
		return c, fmt.Errorf("search: %w", err)
	}
	f, err := fusion.Fuse(r, lists, n)
	if err != nil {
		return c, fmt.Errorf("search: fusion: %w", err)
	}
	// The hits' IDs may point into the arms' pooled buffers, which the next
	// search reuses: the results get their own copies.
	c.ranked = f.Results
	for i := range c.ranked {
		c.ranked[i].ID = strings.Clone(c.ranked[i].ID)
	}
	if explain {
		c.explain = explanations(lists, f)
	}
	return c, nil
}

// explanations are each ranked hit's rank and score in every arm that ran
// and in the lexical ranking ("lexical"), by chunk key.
func explanations(arms []fusion.Arm, f fusion.Fused) map[string][]ArmRank {
	type ranked struct {
		name string
		hits []fusion.Hit
	}
	var lists []ranked
	for _, a := range arms {
		if !a.Ran {
			continue
		}
		hits := slices.Clone(a.Hits)
		if a.Kind != fusion.Dense {
			// A combined arm's hits come in any order: rank them by score,
			// as the arm would.
			slices.SortStableFunc(hits, func(x, y fusion.Hit) int {
				if x.Score != y.Score {
					if x.Score > y.Score {
						return -1
					}
					return 1
				}
				return strings.Compare(x.ID, y.ID)
			})
		}
		lists = append(lists, ranked{a.Name, hits})
	}
	if slices.ContainsFunc(arms, func(a fusion.Arm) bool { return a.Kind != fusion.Dense }) {
		// The lexical ranking goes just before the dense arms.
		at := slices.IndexFunc(lists, func(r ranked) bool { return r.name == "dense" })
		if at < 0 {
			at = len(lists)
		}
		lists = slices.Insert(lists, at, ranked{"lexical", f.Lexical})
	}
	out := make(map[string][]ArmRank, len(f.Results))
	for _, r := range f.Results {
		out[strings.Clone(r.ID)] = make([]ArmRank, len(lists))
	}
	for i, l := range lists {
		for _, x := range out {
			x[i].Arm = l.name
		}
		for j, h := range l.hits {
			if x, ok := out[h.ID]; ok {
				x[i].Rank, x[i].Score = j+1, h.Score
			}
		}
	}
	return out
}

// localLexicalArm is one of the Engine's own BM25 indexes.
type localLexicalArm struct {
	e *Engine
	*lexArm
}

func (a localLexicalArm) name() string      { return a.spec.dir }
func (a localLexicalArm) weight() float64   { return a.lexArm.weight }
func (a localLexicalArm) kind() fusion.Kind { return a.spec.kind }

func (a localLexicalArm) search(ctx context.Context, q *armQuery) ([]fusion.Hit, bool, error) {
	text := q.text
	if a.spec.query != nil {
		if text = a.spec.query(a.e, q.text); text == "" {
			return nil, false, nil
		}
	}
	var filter *bm25.Filter
	if q.allowed != nil {
		filter = &bm25.Filter{Groups: q.allowed}
	}
	if q.ordered {
		res, err := a.ix.Search(bm25.Query{Text: text, K: q.n, Filter: filter})
		if err != nil {
			return nil, false, err
		}
		hits := make([]fusion.Hit, len(res))
		for i, r := range res {
			hits[i] = fusion.Hit{ID: r.ID, Doc: r.Group, Score: r.Score}
		}
		return hits, true, nil
	}
	// The arm's results are dead once turned into hits, and its hits once
	// fused and copied: both go back to pools, with the buffer that holds
	// their IDs (a sixth and a quarter of what a server's search
	// allocated).
	into := armResultsPool.Get().(*[]bm25.Result)
	defer func() {
		clear(*into)
		armResultsPool.Put(into)
	}()
	idBytes := armIDBytesPool.Get().(*[]byte)
	q.onRelease(func() { armIDBytesPool.Put(idBytes) })
	// A chunk key holds its document's id: the arm need not read its
	// group tables.
	res, err := a.ix.Search(bm25.Query{Text: text, K: q.n, Filter: filter, WithoutGroups: true, Unordered: true,
		Into: (*into)[:cap(*into)], IDBytes: idBytes})
	*into = res
	if err != nil {
		return nil, false, err
	}
	hp := armHitsPool.Get().(*[]fusion.Hit)
	hits := slices.Grow((*hp)[:0], len(res))[:len(res)]
	q.onRelease(func() {
		clear(hits[:cap(hits)])
		*hp = hits[:0]
		armHitsPool.Put(hp)
	})
	for j, r := range res {
		doc, err := chunkDoc(r.ID)
		if err != nil {
			return nil, false, err
		}
		hits[j] = fusion.Hit{ID: r.ID, Doc: doc, Score: r.Score}
	}
	return hits, true, nil
}

var (
	armHitsPool    = sync.Pool{New: func() any { return new([]fusion.Hit) }}
	armResultsPool = sync.Pool{New: func() any { return new([]bm25.Result) }}
	armIDBytesPool = sync.Pool{New: func() any { return new([]byte) }}
)

// localDenseArm is the Engine's own vector index.
type localDenseArm struct{ e *Engine }

func (localDenseArm) name() string      { return "dense" }
func (localDenseArm) kind() fusion.Kind { return fusion.Dense }
func (a localDenseArm) weight() float64 { return a.e.opts.DenseWeight }
func (a localDenseArm) search(ctx context.Context, q *armQuery) ([]fusion.Hit, bool, error) {
	e := a.e
	e.vecMu.Lock()
	ix := e.vec
	e.vecMu.Unlock()
	if ix == nil {
		return nil, true, nil
	}
	qv, err := e.embedQuery(ctx, q.text)
	if err != nil {
		return nil, false, err
	}
	var vf *vector.Filter
	if q.allowed != nil {
		vf = &vector.Filter{Groups: q.allowed}
	}
	if len(qv) != ix.Dim() {
		return nil, false, fmt.Errorf("dense search: %s gives %d-d vectors but the index holds %d-d ones: %w", e.opts.Embedder.Name(), len(qv), ix.Dim(), ErrInvalid)
	}
	res, err := ix.Search(qv, q.n, vf)
	if err != nil {
		return nil, false, err
	}
	hits := make([]fusion.Hit, len(res))
	for i, r := range res {
		hits[i] = fusion.Hit{ID: r.ID, Doc: r.Group, Score: r.Score}
	}
	return hits, true, nil
}

// embedQuery is the query's embedding.
func (e *Engine) embedQuery(ctx context.Context, text string) ([]float32, error) {
	qv, err := e.opts.Embedder.Embed(ctx, []string{text}, driver.InputQuery)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(qv) != 1 {
		return nil, fmt.Errorf("embed query: %s returned %d vectors for 1 text", e.opts.Embedder.Name(), len(qv))
	}
	return qv[0], nil
}

// backendTermArm is one BM25 arm held by the index backend: the Engine
// analyses the query as the arm's analyzer would and asks the backend to
// score the terms.
type backendTermArm struct {
	e *Engine
	*lexArm
}

func (a backendTermArm) name() string      { return a.spec.dir }
func (a backendTermArm) weight() float64   { return a.lexArm.weight }
func (a backendTermArm) kind() fusion.Kind { return a.spec.kind }

func (a backendTermArm) search(ctx context.Context, q *armQuery) ([]fusion.Hit, bool, error) {
	text := q.text
	if a.spec.query != nil {
		if text = a.spec.query(a.e, q.text); text == "" {
			return nil, false, nil
		}
	}
	terms, weights, err := a.e.backendQuery(ctx, a.lexArm, text)
	if err != nil || len(terms) == 0 {
		return nil, false, err
	}
	res, err := a.e.opts.Backend.SearchTerms(ctx, driver.TermQuery{Arm: a.spec.dir, Terms: terms, Weights: weights, K: q.n, Filter: q.filter})
	if err != nil {
		return nil, false, err
	}
	hits := make([]fusion.Hit, len(res))
	for j, r := range res {
		hits[j] = fusion.Hit{ID: chunkKey(r.DocID, r.Chunk), Doc: r.DocID, Score: r.Score}
	}
	return hits, true, nil
}

// backendDenseArm is the vectors held by the index backend.
type backendDenseArm struct{ e *Engine }

func (backendDenseArm) name() string      { return "dense" }
func (backendDenseArm) kind() fusion.Kind { return fusion.Dense }
func (a backendDenseArm) weight() float64 { return a.e.opts.DenseWeight }
func (a backendDenseArm) search(ctx context.Context, q *armQuery) ([]fusion.Hit, bool, error) {
	qv, err := a.e.embedQuery(ctx, q.text)
	if err != nil {
		return nil, false, err
	}
	res, err := a.e.opts.Backend.SearchVector(ctx, qv, q.n, q.filter)
	if err != nil {
		return nil, false, err
	}
	hits := make([]fusion.Hit, len(res))
	for i, h := range res {
		hits[i] = fusion.Hit{ID: chunkKey(h.DocID, h.Chunk), Doc: h.DocID, Score: h.Score}
	}
	return hits, true, nil
}

// indexPart is one index the Engine keeps its documents in: one of its
// BM25 arms, its vector index, or an index backend, which holds them all.
// A commit stages every stored document in each part's batch, builds the
// batches while the store writes, and applies them once it has; a delete
// goes to every part. Search asks each part for the ranked lists it holds
// (searchArms).
type indexPart interface {
	partName() string
	// newBatch starts the part's share of one commit.
	newBatch() partBatch
	// delete removes a document from the part.
	delete(ctx context.Context, id string) error
}

// partBatch is one part's share of a commit.
type partBatch interface {
	// stage adds a stored document to the batch.
	stage(d *stagedDoc)
	// build does the work that needs neither the store nor a lock on the
	// part, on the committing goroutine while the store writes.
	build() error
	// apply publishes the batch once the store has committed.
	apply(ctx context.Context) error
}

// stagedDoc is one stored document as the parts take it: its record,
// chunks and vectors, and what was prepared for the BM25 arms.
type stagedDoc struct {
	rec     DocumentRecord
	chunks  []StoredChunk
	vectors [][]float32
	// analysed are its docs analysed for each BM25 arm ahead (e.arms
	// order; prepareLexical), or nil.
	analysed []*bm25.Analyzed
	// docs are the BM25 arms' docs of the language arm, made once for
	// every arm that needs them.
	docs []bm25.Doc
}

func (d *stagedDoc) lexicalDocs(e *Engine) []bm25.Doc {
	if d.docs == nil {
		d.docs = e.lexicalDocs(d.rec, d.chunks)
	}
	return d.docs
}

// indexParts are the parts the Engine keeps its documents in now: none for
// a store-only engine.
func (e *Engine) indexParts() []indexPart {
	switch {
	case e.opts.Backend != nil:
		return []indexPart{backendPart{e}}
	case e.storeOnly():
		return nil
	}
	parts := make([]indexPart, 0, len(e.arms)+1)
	for i := range e.arms {
		parts = append(parts, localLexicalPart{e, i})
	}
	if e.opts.Embedder != nil {
		parts = append(parts, localVectorPart{e})
	}
	return parts
}

// localLexicalPart is the write side of the Engine's BM25 arm i.
type localLexicalPart struct {
	e *Engine
	i int
}

func (p localLexicalPart) partName() string { return p.e.arms[p.i].spec.dir }
func (p localLexicalPart) newBatch() partBatch {
	return &lexicalPartBatch{localLexicalPart: p, arm: p.e.arms[p.i]}
}
func (p localLexicalPart) delete(_ context.Context, id string) error {
	b := p.newBatch().(*lexicalPartBatch)
	b.b.Replace(id, nil)
	if err := b.build(); err != nil {
		return err
	}
	return b.apply(context.Background())
}

type lexicalPartBatch struct {
	localLexicalPart
	arm   *lexArm
	b     bm25.Batch
	built *bm25.Built
}

func (b *lexicalPartBatch) stage(d *stagedDoc) {
	if d.analysed != nil {
		b.b.ReplaceAnalyzed(d.rec.ID, d.analysed[b.i])
		return
	}
	docs := d.lexicalDocs(b.e)
	if b.arm.spec.docs != nil && len(docs) > 0 {
		docs = b.arm.spec.docs(b.e, docs)
	}
	b.b.Replace(d.rec.ID, docs)
}

func (b *lexicalPartBatch) build() error {
	if b.b.Len() == 0 || b.built != nil {
		return nil
	}
	built, err := b.arm.ix.Build(&b.b)
	if err != nil {
		return fmt.Errorf("%s arm: %w", b.arm.spec.dir, err)
	}
	b.built = built
	return nil
}

func (b *lexicalPartBatch) apply(context.Context) error {
	if err := b.build(); err != nil || b.built == nil {
		return err
	}
	if err := b.arm.ix.ApplyBuilt(b.built); err != nil {
		return fmt.Errorf("%s arm: %w", b.arm.spec.dir, err)
	}
	return nil
}

// localVectorPart is the write side of the Engine's vector index.
type localVectorPart struct{ e *Engine }

func (localVectorPart) partName() string { return vectorDirName }
func (p localVectorPart) newBatch() partBatch {
	return &vectorPartBatch{e: p.e, items: map[string][]vector.Item{}}
}
func (p localVectorPart) delete(_ context.Context, id string) error {
	if err := p.e.deleteVectors(id); err != nil {
		return fmt.Errorf("vector index: %w", err)
	}
	return nil
}

type vectorPartBatch struct {
	e     *Engine
	items map[string][]vector.Item
}

func (b *vectorPartBatch) stage(d *stagedDoc) { b.items[d.rec.ID] = vectorItems(d.rec.ID, d.vectors) }
func (b *vectorPartBatch) build() error       { return nil }
func (b *vectorPartBatch) apply(context.Context) error {
	if len(b.items) == 0 {
		return nil
	}
	return b.e.replaceVectors(b.items)
}

// backendPart is the write side of an index backend: every arm's terms and
// the vectors of a document in one object per chunk.
type backendPart struct{ e *Engine }

func (backendPart) partName() string { return "index backend" }
func (p backendPart) newBatch() partBatch {
	return &backendPartBatch{e: p.e}
}
func (p backendPart) delete(ctx context.Context, id string) error {
	if err := p.e.opts.Backend.Delete(ctx, []string{id}); err != nil {
		return fmt.Errorf("index backend: %w", err)
	}
	return nil
}

type backendPartBatch struct {
	e    *Engine
	docs []driver.BackendDocument
}

func (b *backendPartBatch) stage(d *stagedDoc) {
	b.docs = append(b.docs, b.e.backendDocument(d.rec, d.chunks, d.vectors))
}
func (b *backendPartBatch) build() error { return nil }
func (b *backendPartBatch) apply(ctx context.Context) error {
	if len(b.docs) == 0 {
		return nil
	}
	if err := b.e.opts.Backend.Replace(ctx, b.docs); err != nil {
		return fmt.Errorf("index backend: %w", err)
	}
	return nil
}
