package situate

import (
	"context"
	"fmt"
	"slices"

	"github.com/situate/situate/analysis"
	"github.com/situate/situate/bm25"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/fusion"
)

// openBackend opens the Engine over Options.Backend: the arms Options
// enables are declared to it, the documents are read from the store, and
// (for a writer) every document the backend does not hold at the store's
// version, or that a crash left pending, is indexed again.
func (e *Engine) openBackend(ctx context.Context) error {
	if e.opts.ContextWeight > 0 {
		return fmt.Errorf("open engine: ContextWeight: an index backend holds one text field; want 0, got %g: %w", e.opts.ContextWeight, ErrInvalid)
	}
	var specs []driver.BackendArm
	for _, s := range enabledArms(e.opts) {
		e.arms = append(e.arms, &lexArm{spec: s, weight: s.weight(e.opts)})
		o := s.options(e)
		an := analysis.Names()
		if o.Analyzer != "" {
			an = []string{o.Analyzer}
		}
		specs = append(specs, driver.BackendArm{Name: s.dir, K1: o.K1, B: o.B, Analyzers: an})
	}
	if err := e.opts.Backend.Init(ctx, specs); err != nil {
		return fmt.Errorf("open engine: index backend: %w", err)
	}
	st, err := e.readState(ctx)
	if err != nil {
		return err
	}
	e.loadDocs(st.records)
	if e.readOnly {
		return nil
	}
	held, err := e.opts.Backend.Versions(ctx)
	if err != nil {
		return fmt.Errorf("open engine: index backend: %w", err)
	}
	var stale, gone []string
	for id, rec := range st.want {
		if v, ok := held[id]; !ok || v != rec.Version || st.pending[id] {
			stale = append(stale, id)
		}
	}
	for id := range held {
		if _, ok := st.want[id]; !ok {
			gone = append(gone, id)
		}
	}
	for id := range st.pending {
		if _, ok := st.want[id]; !ok && !slices.Contains(gone, id) {
			gone = append(gone, id)
		}
	}
	slices.Sort(stale)
	slices.Sort(gone)
	if len(gone) > 0 {
		if err := e.opts.Backend.Delete(ctx, gone); err != nil {
			return fmt.Errorf("open engine: index backend: %w", err)
		}
	}
	for start := 0; start < len(stale); start += 64 {
		var docs []driver.BackendDocument
		for _, id := range stale[start:min(start+64, len(stale))] {
			rec := st.want[id]
			chunks, err := e.store.Chunks(ctx, id)
			if err != nil {
				return fmt.Errorf("open engine: %w", err)
			}
			var vecs [][]float32
			if e.opts.Embedder != nil {
				items, err := e.storedVectors(ctx, rec)
				if err != nil {
					return fmt.Errorf("open engine: %w", err)
				}
				for _, it := range items {
					vecs = append(vecs, it.Vector)
				}
			}
			docs = append(docs, e.backendDocument(rec, chunks, vecs))
		}
		if err := e.opts.Backend.Replace(ctx, docs); err != nil {
			return fmt.Errorf("open engine: index backend: %w", err)
		}
	}
	if len(stale)+len(gone) > 0 {
		e.log.Warn("index backend repaired", "reindexed", len(stale), "removed", len(gone))
	}
	ids := make([]string, 0, len(st.pending))
	for id := range st.pending {
		ids = append(ids, id)
	}
	return e.clearPending(ctx, ids...)
}

// backendDocument analyses a stored document's chunks for every arm, as
// the arm's embedded index would.
func (e *Engine) backendDocument(rec DocumentRecord, chunks []StoredChunk, vecs [][]float32) driver.BackendDocument {
	lang := e.lexicalDocs(rec, chunks)
	out := driver.BackendDocument{Record: rec, Chunks: make([]driver.BackendChunk, len(chunks))}
	for i := range chunks {
		out.Chunks[i].StoredChunk = chunks[i]
		if i < len(vecs) {
			out.Chunks[i].Vector = vecs[i]
		}
	}
	if len(chunks) == 0 {
		return out
	}
	for _, a := range e.arms {
		docs := lang
		if a.spec.docs != nil {
			docs = a.spec.docs(e, lang)
		}
		o := a.spec.options(e)
		for i, d := range docs {
			an := analysis.ForLanguage(d.Lang)
			if o.Analyzer != "" {
				if fa, err := analysis.New(o.Analyzer); err == nil {
					an = fa
				}
			}
			var text string
			for _, t := range d.Fields {
				text = t // one field: fieldText or the pair arm's DefaultField
			}
			toks := an.Analyze(text)
			terms := make([]string, 0, len(toks))
			positions := 0
			for j, t := range toks {
				if t.Term != "" {
					terms = append(terms, t.Term)
					// As bm25 counts a field's norm length.
					if j == 0 || t.Position != toks[j-1].Position {
						positions++
					}
				}
			}
			out.Chunks[i].Terms = append(out.Chunks[i].Terms, driver.ArmTerms{Arm: a.spec.dir, Analyzer: an.Name(), Terms: terms, Positions: positions})
		}
	}
	return out
}

// backendQuery is an arm's query terms per analyzer: the analyzers of the
// indexed documents' languages, or the arm's one analyzer. Under an
// analyzer that matches compounds (German) and a CompoundWeight, the terms
// are expanded as the embedded index expands them (bm25.ExpandCompounds)
// against the backend's vocabulary, when it is a TermLookup; the added
// terms' weights go to weights.
func (e *Engine) backendQuery(ctx context.Context, a *lexArm, text string) (terms map[string][]string, weights map[string]map[string]float64, err error) {
	o := a.spec.options(e)
	var names []string
	if o.Analyzer != "" {
		names = []string{o.Analyzer}
	} else {
		e.mu.RLock()
		for n := range e.analyzers {
			names = append(names, n)
		}
		e.mu.RUnlock()
		slices.Sort(names)
	}
	terms = map[string][]string{}
	for _, n := range names {
		an, err := analysis.New(n)
		if err != nil {
			continue
		}
		var ts []string
		for _, t := range an.Analyze(text) {
			if t.Term != "" {
				ts = append(ts, t.Term)
			}
		}
		if len(ts) == 0 {
			continue
		}
		terms[n] = ts
		c, ok := an.(analysis.Compounder)
		lookup, ok2 := e.opts.Backend.(driver.TermLookup)
		if !ok || !ok2 || o.CompoundWeight <= 0 {
			continue
		}
		w, err := expandBackendQuery(ctx, c, text, ts, o.CompoundWeight, func(ask []string) (map[string]bool, error) {
			return lookup.KnownTerms(ctx, a.spec.dir, n, ask)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("%s arm: %s compounds: %w", a.spec.dir, n, err)
		}
		if len(w) > 0 {
			if weights == nil {
				weights = map[string]map[string]float64{}
			}
			weights[n] = w
			for t := range w {
				terms[n] = append(terms[n], t)
			}
			slices.Sort(terms[n][len(ts):])
		}
	}
	return terms, weights, nil
}

// maxLookupRounds bounds expandBackendQuery's round trips.
const maxLookupRounds = 8

// expandBackendQuery runs bm25.ExpandCompounds over terms with a
// vocabulary that lookup answers in batches: each round expands with what
// is known so far, asks about the terms the expansion wanted to know and
// did not, and stops when it wanted nothing new. It returns the added terms
// with their weights.
func expandBackendQuery(ctx context.Context, c analysis.Compounder, text string, terms []string, weight float64, lookup func([]string) (map[string]bool, error)) (map[string]float64, error) {
	var uniq []string
	var counts []float32
	at := map[string]int{}
	for _, t := range terms {
		if i, ok := at[t]; ok {
			counts[i]++
			continue
		}
		at[t] = len(uniq)
		uniq, counts = append(uniq, t), append(counts, 1)
	}
	known := map[string]bool{}
	var out []string
	var ws []float32
	for range maxLookupRounds {
		var ask []string
		asked := map[string]bool{}
		out, ws = bm25.ExpandCompounds(c, text, uniq, counts, float32(weight), func(t string) bool {
			v, ok := known[t]
			if !ok && !asked[t] {
				asked[t] = true
				ask = append(ask, t)
			}
			return v
		})
		if len(ask) == 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		got, err := lookup(ask)
		if err != nil {
			return nil, err
		}
		for _, t := range ask {
			known[t] = got[t]
		}
	}
	added := map[string]float64{}
	for i := len(uniq); i < len(out); i++ {
		added[out[i]] = float64(ws[i])
	}
	return added, nil
}

// nativeCandidates is the ranking of a backend that ranks natively
// (driver.NativeRanker): its own hybrid search, one list.
func (e *Engine) nativeCandidates(ctx context.Context, nr driver.NativeRanker, text, mode string, n int, f Filter) (candidates, error) {
	var c candidates
	var qv []float32
	if mode != ModeBM25 {
		var err error
		if qv, err = e.embedQuery(ctx, text); err != nil {
			return c, fmt.Errorf("search: %w", err)
		}
	}
	hits, err := nr.SearchNative(ctx, driver.NativeQuery{Text: text, Vector: qv, Mode: mode, K: n, Filter: f,
		DenseWeight: e.opts.DenseWeight, LexicalWeight: e.opts.LexicalWeight})
	if err != nil {
		return c, fmt.Errorf("search: index backend: %w", err)
	}
	for i, h := range hits {
		c.ranked = append(c.ranked, fusion.Result{ID: chunkKey(h.DocID, h.Chunk), Score: h.Score, Ranks: []int{i + 1}})
	}
	return c, nil
}
