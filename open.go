package situate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/vector"
)

// Open opens the engine over store with its indexes in dir: the lexical
// arms in dir/bm25, dir/bm25-code, dir/bm25-pairs and dir/bm25-defs
// (lexicalArms), the vectors in dir/vectors. An empty dir keeps them in memory, built from the
// store on every Open.
//
// The store is the source of truth, and a writer's Open makes every index
// hold exactly the store's documents: it removes the documents an index
// holds that the store does not, adds those it lacks, re-indexes the
// documents whose commit was interrupted (the pending journal), rebuilds an
// index whose layout changed or that is damaged, and logs once what it
// repaired. A writer holds dir's write lock (the LOCK file) until Close; a
// second writer waits Options.LockWait, then fails with ErrLocked naming
// the holder. Options.OpenMode says what Open does instead: read without a
// lock (OpenReader), write the store alone (OpenStoreOnly), or choose
// between them when another process holds the indexes (OpenAuto).
func Open(ctx context.Context, dir string, store driver.Store, opts Options) (*Engine, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	switch {
	case opts.OpenMode == OpenAuto:
		w := opts
		w.OpenMode = OpenWriter
		if !opts.SharedStore {
			return open(ctx, dir, store, w)
		}
		// Another process of this machine (serve, mcp) may keep these
		// local indexes: then write the shared store only; it syncs them.
		w.LockWait = -1
		e, err := open(ctx, dir, store, w)
		if !errors.Is(err, ErrLocked) {
			return e, err
		}
		so := opts
		so.OpenMode = OpenStoreOnly
		return open(ctx, "", store, so)
	case opts.OpenMode == OpenReader && opts.SharedStore && dir != "" && opts.Backend == nil:
		// Bring this machine's indexes up to the shared store when no
		// other process holds them; otherwise read as a reader does.
		w := opts
		w.OpenMode, w.LockWait = OpenWriter, -1
		e, err := open(ctx, dir, store, w)
		if !errors.Is(err, ErrLocked) {
			return e, err
		}
	}
	return open(ctx, dir, store, opts)
}

// open opens the engine in the mode opts names, without fallbacks.
func open(ctx context.Context, dir string, store driver.Store, opts Options) (*Engine, error) {
	e := &Engine{opts: opts, store: store, log: opts.logger(), docs: map[string]DocumentRecord{},
		// Every commit over a SharedStore notes its documents in held, over
		// an index backend too (which never runs openShared).
		shared:    sharedState{held: map[string]string{}},
		analyzers: map[string]int{}, readOnly: opts.OpenMode == OpenReader}
	e.layout = e.indexLayout()
	e.processing = e.processingFingerprint()
	if opts.ChunkCacheBytes > 0 && opts.OpenMode != OpenReader {
		var err error
		if e.chunks, err = newChunkCache(opts.ChunkCacheBytes); err != nil {
			return nil, err
		}
	}
	open := e.openWriter
	switch {
	case opts.OpenMode == OpenReader:
		// A reader of a shared store searches indexes built in memory
		// from it (it writes no directory, and a directory on disk is
		// some other process's).
		open = e.openReader
		if opts.SharedStore {
			dir = ""
		}
	case opts.SharedStore:
		open = e.openShared
	}
	if opts.Backend != nil {
		open = func(ctx context.Context, _ string) error { return e.openBackend(ctx) }
	}
	if err := open(ctx, dir); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// storeState is what Open reads of the store.
type storeState struct {
	records []DocumentRecord
	// want are the documents with chunks, which every arm must hold.
	want map[string]DocumentRecord
	// pending are the documents whose index update was in flight.
	pending map[string]bool
	// layout and embedder are the engine's notes on how the indexes on
	// disk were built; empty when the store has none.
	layout, embedder string
}

// readState reads the documents, then the journal: a document a writer
// commits meanwhile is either in neither or journalled until its indexes
// hold it.
func (e *Engine) readState(ctx context.Context) (storeState, error) {
	var st storeState
	var err error
	if st.records, err = e.store.Documents(ctx); err != nil {
		return st, fmt.Errorf("open engine: %w", err)
	}
	st.want = map[string]DocumentRecord{}
	for _, r := range st.records {
		if r.Chunks > 0 {
			st.want[r.ID] = r
		}
	}
	ids, ms, err := e.pending(ctx)
	if err != nil {
		return st, fmt.Errorf("open engine: %w", err)
	}
	st.pending = map[string]bool{}
	for _, id := range ids {
		st.pending[id] = true
	}
	if ms != nil {
		if st.layout, _, err = ms.Meta(ctx, metaIndexLayout); err != nil {
			return st, fmt.Errorf("open engine: %w", err)
		}
		if st.embedder, _, err = ms.Meta(ctx, metaEmbedder); err != nil {
			return st, fmt.Errorf("open engine: %w", err)
		}
	}
	return st, nil
}

func (e *Engine) loadDocs(records []DocumentRecord) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.loadDocsLocked(records)
}

// loadDocsLocked is loadDocs with e.mu held.
func (e *Engine) loadDocsLocked(records []DocumentRecord) {
	clear(e.docs)
	clear(e.analyzers)
	for _, r := range records {
		e.setDoc(r)
	}
	e.docsLoaded = true
}

// layoutBase is the part of the index layout every lexical arm depends on.
func (e *Engine) layoutBase() string {
	fields := "text"
	if e.opts.ContextWeight > 0 {
		fields = "chunk,context"
	}
	return fmt.Sprintf("fields=%s analyzer=%q", fields, e.opts.Analyzer)
}

// indexLayout fingerprints how the lexical arms index: the fields, the
// analyzer and the arms kept up to date.
func (e *Engine) indexLayout() string {
	layout := e.layoutBase()
	for _, a := range lexicalArms {
		if a.layout != "" {
			layout += fmt.Sprintf(" %s=%v", a.layout, a.weight(e.opts) > 0)
		}
	}
	return layout
}

// staleReason says why the arm's directory cannot be trusted under the
// stored layout ("" when it can): its documents were indexed another way,
// or it was not kept up to date.
func (e *Engine) staleReason(spec *armSpec, stored string) string {
	base := e.layoutBase()
	switch {
	case stored == "":
		return "the store does not record how the index was built"
	case stored != base && !strings.HasPrefix(stored, base+" "):
		return fmt.Sprintf("index layout changed from %q to %q", stored, e.layout)
	case spec.layout != "" && !slices.Contains(strings.Fields(stored[len(base):]), spec.layout+"=true"):
		return "the arm was not kept up to date"
	}
	return ""
}

// openWriter opens the indexes for writing and makes them converge to the
// store.
func (e *Engine) openWriter(ctx context.Context, dir string) error {
	if dir != "" {
		// The lock comes first: the store is read and the indexes
		// repaired with no other writer at work.
		lock, err := lockWriter(dir, e.opts.lockWait())
		if err != nil {
			return err
		}
		e.lock = lock
	}
	st, err := e.readState(ctx)
	if err != nil {
		return err
	}
	e.loadDocs(st.records)
	built := map[string]bool{} // arms (by dir) rebuilt on purpose
	for _, spec := range enabledArms(e.opts) {
		a := &lexArm{spec: spec, weight: spec.weight(e.opts)}
		if dir == "" {
			if a.ix, err = bm25.New(spec.options(e)); err != nil {
				return fmt.Errorf("open engine: %s index: %w", spec.dir, err)
			}
			e.arms = append(e.arms, a)
			built[spec.dir] = true
			continue
		}
		a.dir = filepath.Join(dir, spec.dir)
		if reason := e.staleReason(spec, st.layout); reason != "" {
			// A rebuild over documents the store already holds takes a
			// while and is no change of theirs: say so, or an index run
			// that only rebuilt an arm (a new arm after an upgrade, an
			// analyzer change) looks as if it did nothing.
			if len(st.records) > 0 {
				e.log.Warn("rebuilding an index from the store", "index", spec.dir, "documents", len(st.records), "reason", reason)
			}
			if err := bm25.Reset(a.dir, spec.options(e)); err != nil {
				return fmt.Errorf("open engine: %w", err)
			}
			built[spec.dir] = true
		}
		a.ix, err = bm25.Open(a.dir, spec.options(e))
		if errors.Is(err, bm25.ErrCorrupt) {
			e.log.Warn("index damaged, rebuilding it from the store", "index", a.dir, "err", err)
			if err := bm25.Reset(a.dir, spec.options(e)); err != nil {
				return fmt.Errorf("open engine: %w", err)
			}
			built[spec.dir] = true
			a.ix, err = bm25.Open(a.dir, spec.options(e))
		}
		if err != nil {
			return fmt.Errorf("open engine: %s index: %w", spec.dir, err)
		}
		e.arms = append(e.arms, a)
	}
	if err := e.openVectorsWriter(ctx, dir, st, built); err != nil {
		return err
	}
	if err := e.converge(ctx, st, built); err != nil {
		return err
	}
	if ms, ok := e.store.(driver.MetaStore); ok {
		if dir != "" && st.layout != e.layout {
			if err := ms.SetMeta(ctx, metaIndexLayout, e.layout); err != nil {
				return fmt.Errorf("open engine: %w", err)
			}
		}
		if len(st.pending) > 0 {
			if err := ms.SetMeta(ctx, metaPending, "[]"); err != nil {
				return fmt.Errorf("open engine: %w", err)
			}
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// openVectorsWriter opens the dense arm when an embedder is configured. The
// index is created on the first commit, when the dimension is known. Vectors
// made by another embedder than the configured one are dropped (converge
// embeds every stored chunk again; vector caches make that cheap).
func (e *Engine) openVectorsWriter(ctx context.Context, dir string, st storeState, built map[string]bool) error {
	if e.opts.Embedder == nil {
		return nil
	}
	if dir == "" {
		built[vectorDirName] = true
		return nil
	}
	name := e.opts.Embedder.Name()
	e.vecDir = filepath.Join(dir, vectorDirName)
	if st.embedder != name {
		if exists(e.vecDir) {
			e.log.Info("rebuilding vectors from the store", "index", e.vecDir, "reason",
				fmt.Sprintf("made by embedder %q, not %q", st.embedder, name))
		}
		if err := vector.Reset(e.vecDir, e.vectorOptions(0)); err != nil {
			return fmt.Errorf("open engine: %w", err)
		}
		built[vectorDirName] = true
	} else if exists(filepath.Join(e.vecDir, "MANIFEST")) {
		ix, err := vector.Open(e.vecDir, e.vectorOptions(0))
		if errors.Is(err, vector.ErrCorrupt) {
			e.log.Warn("index damaged, rebuilding it from the store and its vector cache", "index", e.vecDir, "err", err)
			if err := vector.Reset(e.vecDir, e.vectorOptions(0)); err != nil {
				return fmt.Errorf("open engine: %w", err)
			}
			built[vectorDirName] = true
			ix, err = nil, nil
		}
		if err != nil {
			return fmt.Errorf("open engine: vector index: %w", err)
		}
		e.vec = ix
	} else {
		built[vectorDirName] = true
	}
	if ms, ok := e.store.(driver.MetaStore); ok && st.embedder != name {
		if err := ms.SetMeta(ctx, metaEmbedder, name); err != nil {
			return fmt.Errorf("open engine: %w", err)
		}
	}
	return nil
}

// armPlan is what one index must do to hold exactly the store's documents.
type armPlan struct {
	add     []string // documents to index from the store
	remove  []string // documents the store does not hold
	missing int      // of add, the documents neither held nor journalled
}

// planArm compares the documents an index holds with the store's.
func planArm(have []string, st storeState) armPlan {
	var p armPlan
	held := make(map[string]bool, len(have))
	for _, g := range have {
		held[g] = true
		if _, ok := st.want[g]; !ok {
			p.remove = append(p.remove, g)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(st.want)) {
		switch {
		case !held[id]:
			p.add = append(p.add, id)
			if !st.pending[id] {
				p.missing++
			}
		case st.pending[id]:
			p.add = append(p.add, id)
		}
	}
	return p
}

// converge makes every index hold exactly the store's documents (writer
// mode): it removes the extra ones, indexes the missing ones and the
// journalled ones from the store, and says once what it repaired. Arms in
// built were emptied on purpose and are only reported as built.
func (e *Engine) converge(ctx context.Context, st storeState, built map[string]bool) error {
	plans := make([]armPlan, len(e.arms))
	for i, a := range e.arms {
		plans[i] = planArm(a.ix.Groups(), st)
	}
	var vecPlan armPlan
	if e.opts.Embedder != nil {
		var have []string
		if e.vec != nil {
			var err error
			if have, err = e.vec.Groups(); err != nil {
				return fmt.Errorf("open engine: vector index: %w", err)
			}
		}
		vecPlan = planArm(have, st)
	}
	if err := e.applyPlans(ctx, st, plans); err != nil {
		return err
	}
	if err := e.applyVectorPlan(ctx, st, vecPlan); err != nil {
		return err
	}

	var repaired []any
	report := func(name string, p armPlan) {
		switch {
		case len(p.add) == 0 && len(p.remove) == 0:
		case built[name]:
			e.log.Info("built index from the store", "index", name, "documents", len(p.add))
		default:
			repaired = append(repaired, name, fmt.Sprintf("added %d, re-indexed %d, removed %d", p.missing, len(p.add)-p.missing, len(p.remove)))
		}
	}
	for i, a := range e.arms {
		report(a.spec.dir, plans[i])
	}
	if e.opts.Embedder != nil {
		report(vectorDirName, vecPlan)
	}
	if len(repaired) > 0 {
		e.log.Warn("repaired the indexes to match the store (documents the store does not hold removed, missing ones added, interrupted commits re-indexed)",
			append(repaired, "journal", len(st.pending))...)
	}
	return nil
}

// applyPlans carries out the lexical arms' plans in batches, reading each
// document's chunks from the store once for every arm that needs them.
func (e *Engine) applyPlans(ctx context.Context, st storeState, plans []armPlan) error {
	const batchSize = 256
	adds := make([]map[string]bool, len(plans))
	var ids []string
	seen := map[string]bool{}
	newBatches := func() []partBatch {
		batches := make([]partBatch, len(plans))
		for i := range plans {
			batches[i] = localLexicalPart{e, i}.newBatch()
		}
		return batches
	}
	batches := newBatches()
	for i, p := range plans {
		adds[i] = map[string]bool{}
		for _, id := range p.add {
			adds[i][id] = true
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		for _, id := range p.remove {
			batches[i].stage(&stagedDoc{rec: DocumentRecord{ID: id}})
		}
	}
	slices.Sort(ids)
	staged := 0
	flush := func() error {
		for _, b := range batches {
			if err := b.apply(ctx); err != nil {
				return fmt.Errorf("open engine: repair index: %w", err)
			}
		}
		batches, staged = newBatches(), 0
		return nil
	}
	for _, id := range ids {
		chunks, err := e.store.Chunks(ctx, id)
		if errors.Is(err, ErrNotFound) && e.readOnly {
			// A reader lists the store beside its writer, which deleted
			// the document since: its searches skip any hit of it that
			// their index holds (TestReadersBesideWriter met this).
			continue
		}
		if err != nil {
			return fmt.Errorf("open engine: repair index: %w", err)
		}
		d := &stagedDoc{rec: st.want[id], chunks: chunks}
		for i, b := range batches {
			if adds[i][id] {
				b.stage(d)
			}
		}
		if staged++; staged == batchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// applyVectorPlan carries out the dense arm's plan, embedding in batches
// (through the embedder, whose cache makes stored chunks cheap).
func (e *Engine) applyVectorPlan(ctx context.Context, st storeState, p armPlan) error {
	const batchSize = 64
	if len(p.remove) > 0 && e.vec != nil {
		del := make(map[string][]vector.Item, len(p.remove))
		for _, id := range p.remove {
			del[id] = nil
		}
		if err := e.vec.ReplaceBatch(del); err != nil {
			return fmt.Errorf("open engine: repair vector index: %w", err)
		}
	}
	if len(p.add) > 0 {
		e.log.Info("embedding stored chunks", "embedder", e.opts.Embedder.Name(), "documents", len(p.add))
	}
	for start := 0; start < len(p.add); start += batchSize {
		batch := map[string][]vector.Item{}
		for _, id := range p.add[start:min(start+batchSize, len(p.add))] {
			items, err := e.storedVectors(ctx, st.want[id])
			if err != nil {
				return fmt.Errorf("open engine: repair vector index: %w", err)
			}
			batch[id] = items
		}
		if err := e.replaceVectors(batch); err != nil {
			return fmt.Errorf("open engine: repair vector index: %w", err)
		}
	}
	return nil
}

// openReader opens the indexes read-only. An index that is damaged, was
// built another way, or lacks stored documents that no writer is indexing
// is replaced by an in-memory one built from the store, with a warning:
// nothing is written.
func (e *Engine) openReader(ctx context.Context, dir string) error {
	if dir != "" {
		// Stamped before anything is read: a commit made meanwhile makes
		// the next Refresh open it.
		e.view.dir, e.view.stamp = dir, manifestStamp(dir)
		if ok, err := e.openReaderFast(ctx, dir); ok || err != nil {
			return err
		}
	}
	st, err := e.readState(ctx)
	if err != nil {
		return err
	}
	e.loadDocs(st.records)
	rebuild := map[int]bool{} // arm index -> build in memory
	for i, spec := range enabledArms(e.opts) {
		a := &lexArm{spec: spec, weight: spec.weight(e.opts)}
		e.arms = append(e.arms, a)
		if dir != "" {
			a.dir = filepath.Join(dir, spec.dir)
			if reason := e.staleReason(spec, st.layout); reason != "" {
				if len(st.want) > 0 {
					// Building it in memory would cost what indexing
					// does, on every search: a reader refuses.
					return fmt.Errorf("open engine: %s: %s; these options need the index rebuilt: run 'situate index' with them (it rebuilds the index from the store), or search with the options it was built with: %w",
						a.dir, reason, ErrNeedsRebuild)
				}
			} else {
				a.ix, err = bm25.OpenReadOnly(a.dir, spec.options(e))
				if errors.Is(err, bm25.ErrCorrupt) {
					e.log.Warn("index damaged, searching an in-memory rebuild; run 'situate check' to repair it", "index", a.dir, "err", err)
				} else if err != nil {
					return fmt.Errorf("open engine: %s index: %w", spec.dir, err)
				}
			}
		}
		if a.ix == nil {
			rebuild[i] = true
			if a.ix, err = bm25.New(spec.options(e)); err != nil {
				return fmt.Errorf("open engine: %s index: %w", spec.dir, err)
			}
		}
	}
	vecRebuild, err := e.openVectorsReader(dir, st)
	if err != nil {
		return err
	}

	// An index on disk that lacks stored documents no writer is indexing
	// would miss them silently: it is searched from memory instead. A
	// document deleted between the store read and the index open looks
	// missing too, so the store is read again and only documents missing
	// both times count.
	missing := func(have []string) []string {
		p := planArm(have, st)
		var out []string
		for _, id := range p.add {
			if !st.pending[id] {
				out = append(out, id)
			}
		}
		return out
	}
	var st2 *storeState
	confirmed := func(ids []string) (bool, error) {
		if len(ids) == 0 {
			return false, nil
		}
		if st2 == nil {
			s, err := e.readState(ctx)
			if err != nil {
				return false, err
			}
			st2 = &s
		}
		for _, id := range ids {
			if _, ok := st2.want[id]; ok && !st2.pending[id] {
				return true, nil
			}
		}
		return false, nil
	}
	for i, a := range e.arms {
		if rebuild[i] {
			continue
		}
		lost, err := confirmed(missing(a.ix.Groups()))
		if err != nil {
			return err
		}
		if lost {
			e.log.Warn("index does not hold every stored document, searching an in-memory rebuild; run 'situate index' to repair it", "index", a.dir)
			a.ix.Close()
			if a.ix, err = bm25.New(a.spec.options(e)); err != nil {
				return fmt.Errorf("open engine: %s index: %w", a.spec.dir, err)
			}
			rebuild[i] = true
		}
	}
	if e.vec != nil && !vecRebuild {
		have, err := e.vec.Groups()
		if err != nil {
			return fmt.Errorf("open engine: vector index: %w", err)
		}
		lost, err := confirmed(missing(have))
		if err != nil {
			return err
		}
		if lost {
			e.log.Warn("vector index does not hold every stored document, searching an in-memory rebuild; run 'situate index' to repair it", "index", e.vecDir)
			e.vec.Close()
			e.vec, e.vecDir, vecRebuild = nil, "", true
		}
	}

	// Build what must be built, in memory only.
	all := planArm(nil, st)
	plans := make([]armPlan, len(e.arms))
	for i := range e.arms {
		if rebuild[i] {
			plans[i] = all
		}
	}
	if err := e.applyPlans(ctx, st, plans); err != nil {
		return err
	}
	if vecRebuild {
		return e.applyVectorPlan(ctx, st, all)
	}
	return nil
}

// openReaderFast opens the indexes on disk without reading the documents
// (they are read on first need, see ensureDocs), when that is safe: the
// store counts its chunks (ChunkCounter), no commit is journalled, every arm
// was built under the current layout and opens, and each holds as many
// chunks as the store. It reports false, having opened nothing, when the
// full open must compare the indexes' documents with the store's.
func (e *Engine) openReaderFast(ctx context.Context, dir string) (bool, error) {
	cc, ok := e.store.(driver.ChunkCounter)
	if !ok {
		return false, nil
	}
	pending, ms, err := e.pending(ctx)
	if err != nil || ms == nil || len(pending) > 0 {
		return false, err
	}
	layout, _, err := ms.Meta(ctx, metaIndexLayout)
	if err != nil {
		return false, fmt.Errorf("open engine: %w", err)
	}
	chunks, err := cc.ChunkCount(ctx)
	if err != nil {
		return false, fmt.Errorf("open engine: %w", err)
	}
	var arms []*lexArm
	var vec *vector.Index
	fail := func() (bool, error) {
		for _, a := range arms {
			a.ix.Close()
		}
		if vec != nil {
			vec.Close()
		}
		return false, nil
	}
	for _, spec := range enabledArms(e.opts) {
		if e.staleReason(spec, layout) != "" {
			return fail()
		}
		a := &lexArm{spec: spec, weight: spec.weight(e.opts), dir: filepath.Join(dir, spec.dir)}
		if a.ix, err = bm25.OpenReadOnly(a.dir, spec.options(e)); err != nil {
			return fail() // the full open reports or repairs it
		}
		arms = append(arms, a)
		if a.ix.Len() != chunks {
			return fail()
		}
	}
	if e.opts.Embedder != nil {
		embedder, _, err := ms.Meta(ctx, metaEmbedder)
		if err != nil {
			return fail()
		}
		vecDir := filepath.Join(dir, vectorDirName)
		if embedder != e.opts.Embedder.Name() {
			return fail()
		}
		if vec, err = vector.OpenReadOnly(vecDir, e.vectorOptions(0)); err != nil {
			vec = nil
			return fail()
		}
		if vec.Dim() == 0 || vec.Len() != chunks {
			return fail()
		}
		e.vec, e.vecDir = vec, vecDir
	}
	e.arms = arms
	return true, nil
}

// openVectorsReader opens the dense arm read-only; it reports whether the
// arm must be built in memory instead.
func (e *Engine) openVectorsReader(dir string, st storeState) (rebuild bool, err error) {
	if e.opts.Embedder == nil {
		return false, nil
	}
	if dir == "" {
		return true, nil
	}
	vecDir := filepath.Join(dir, vectorDirName)
	name := e.opts.Embedder.Name()
	if st.embedder != name {
		if len(st.want) > 0 {
			e.log.Warn("searching vectors embedded in memory (from the store's vector cache where it has them); run 'situate index' to store them",
				"index", vecDir, "reason", fmt.Sprintf("made by embedder %q, not %q", st.embedder, name))
		}
		return true, nil
	}
	ix, err := vector.OpenReadOnly(vecDir, e.vectorOptions(0))
	switch {
	case errors.Is(err, vector.ErrCorrupt):
		e.log.Warn("index damaged, searching an in-memory rebuild; run 'situate check' to repair it", "index", vecDir, "err", err)
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("open engine: vector index: %w", err)
	}
	if ix.Dim() == 0 {
		// No vectors on disk yet.
		ix.Close()
		return true, nil
	}
	e.vec, e.vecDir = ix, vecDir
	return false, nil
}

// IndexedDocuments returns, for every index the Engine searches (each
// lexical arm by its directory name, and "vectors" for the dense arm), the
// ids of the documents it holds, sorted. After Open, and after every
// Commit and Delete, each list equals the stored documents that have
// chunks.
func (e *Engine) IndexedDocuments() (map[string][]string, error) {
	e.view.mu.RLock()
	defer e.view.mu.RUnlock()
	out := map[string][]string{}
	for _, a := range e.arms {
		out[a.spec.dir] = a.ix.Groups()
	}
	if e.opts.Embedder != nil {
		e.vecMu.Lock()
		ix := e.vec
		e.vecMu.Unlock()
		var ids []string
		if ix != nil {
			var err error
			if ids, err = ix.Groups(); err != nil {
				return nil, fmt.Errorf("indexed documents: vector index: %w", err)
			}
		}
		out[vectorDirName] = ids
	}
	return out, nil
}
