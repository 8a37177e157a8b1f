package situate_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/driver"
)

// memBackend is a driver.IndexBackend (with TermLookup) written from the
// driver package's documentation alone, in memory, as database/sql's
// fakedb_test.go stands in for a database: it stands in for Weaviate in
// the root's tests, which need no Weaviate server. It keeps what Weaviate
// keeps (per arm and analyzer, each chunk's terms and positions; per
// chunk, its record and vector) and scores a term query as the Weaviate
// backend rescores its candidates, with bm25.DocScore from the
// collection's statistics; it passes situatetest.TestIndexBackend
// (TestIndexBackendSuiteOnMemBackend), so an Engine over it ranks as the
// embedded engine does.
//
// One memNamespace is the backend's data (Weaviate's collections and
// tenant); each memBackend is one open client of it, closed by the Engine
// that owns it. fail, when set, is asked before each operation and makes
// it fail with what it returns (a backend that went away).
type memBackend struct {
	ns     *memNamespace
	mu     sync.Mutex
	closed bool
	fail   func(op string) error
}

type memNamespace struct {
	mu   sync.RWMutex
	arms []driver.BackendArm // as the first Init declared them
	docs map[string]driver.BackendDocument
}

var (
	_ driver.IndexBackend = (*memBackend)(nil)
	_ driver.TermLookup   = (*memBackend)(nil)
)

func newMemBackend() *memBackend {
	return &memBackend{ns: &memNamespace{docs: map[string]driver.BackendDocument{}}}
}

// reopen is another client of b's namespace.
func (b *memBackend) reopen() *memBackend { return &memBackend{ns: b.ns} }

// check fails an operation on a closed client or when fail says so.
func (b *memBackend) check(op string) error {
	b.mu.Lock()
	closed, fail := b.closed, b.fail
	b.mu.Unlock()
	if closed {
		return fmt.Errorf("mem backend: %s: closed", op)
	}
	if fail != nil {
		if err := fail(op); err != nil {
			return fmt.Errorf("mem backend: %s: %w", op, err)
		}
	}
	return nil
}

func (b *memBackend) setFail(fail func(op string) error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fail = fail
}

func (b *memBackend) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

func (b *memBackend) Init(_ context.Context, arms []driver.BackendArm) error {
	if err := b.check("init"); err != nil {
		return err
	}
	b.ns.mu.Lock()
	defer b.ns.mu.Unlock()
	if b.ns.arms == nil {
		b.ns.arms = slices.Clone(arms)
		return nil
	}
	// Built with other settings: fail, as Weaviate's Init does when a
	// collection's BM25 parameters differ.
	for _, a := range arms {
		i := slices.IndexFunc(b.ns.arms, func(h driver.BackendArm) bool { return h.Name == a.Name })
		if i >= 0 && (b.ns.arms[i].K1 != a.K1 || b.ns.arms[i].B != a.B) {
			return fmt.Errorf("mem backend: init: arm %s holds k1=%g b=%g, want k1=%g b=%g: %w",
				a.Name, b.ns.arms[i].K1, b.ns.arms[i].B, a.K1, a.B, driver.ErrInvalid)
		}
		if i < 0 {
			b.ns.arms = append(b.ns.arms, a)
		}
	}
	return nil
}

func (b *memBackend) Replace(_ context.Context, docs []driver.BackendDocument) error {
	if err := b.check("replace"); err != nil {
		return err
	}
	b.ns.mu.Lock()
	defer b.ns.mu.Unlock()
	for _, d := range docs {
		for _, ch := range d.Chunks {
			for _, at := range ch.Terms {
				if !slices.ContainsFunc(b.ns.arms, func(a driver.BackendArm) bool { return a.Name == at.Arm }) {
					return fmt.Errorf("mem backend: replace %s: chunk %d: arm %s was not declared to Init: %w", d.Record.ID, ch.Index, at.Arm, driver.ErrInvalid)
				}
			}
		}
	}
	for _, d := range docs {
		if len(d.Chunks) == 0 {
			delete(b.ns.docs, d.Record.ID)
			continue
		}
		d.Chunks = slices.Clone(d.Chunks)
		b.ns.docs[d.Record.ID] = d
	}
	return nil
}

func (b *memBackend) Delete(_ context.Context, ids []string) error {
	if err := b.check("delete"); err != nil {
		return err
	}
	b.ns.mu.Lock()
	defer b.ns.mu.Unlock()
	for _, id := range ids {
		delete(b.ns.docs, id)
	}
	return nil
}

func (b *memBackend) Versions(context.Context) (map[string]int, error) {
	if err := b.check("versions"); err != nil {
		return nil, err
	}
	b.ns.mu.RLock()
	defer b.ns.mu.RUnlock()
	out := make(map[string]int, len(b.ns.docs))
	for id, d := range b.ns.docs {
		out[id] = d.Record.Version
	}
	return out, nil
}

// allowed returns the filter's test of a document.
func allowed(f driver.Filter) (func(driver.DocumentRecord) bool, error) {
	cf, err := f.Compile()
	if err != nil {
		return nil, err
	}
	return func(r driver.DocumentRecord) bool {
		return (f.Docs == nil || slices.Contains(f.Docs, r.ID)) && cf.Allows(r.Access, r.Metadata)
	}, nil
}

// sortHits orders by score, ties by chunk key (situate's tie order).
func sortHits(h []driver.BackendHit) {
	slices.SortStableFunc(h, func(a, b driver.BackendHit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.DocID+"#"+strconv.Itoa(a.Chunk), b.DocID+"#"+strconv.Itoa(b.Chunk))
	})
}

func (b *memBackend) SearchTerms(_ context.Context, q driver.TermQuery) ([]driver.BackendHit, error) {
	if err := b.check("search terms"); err != nil {
		return nil, err
	}
	pass, err := allowed(q.Filter)
	if err != nil {
		return nil, fmt.Errorf("mem backend: search %s: %w", q.Arm, err)
	}
	b.ns.mu.RLock()
	defer b.ns.mu.RUnlock()
	i := slices.IndexFunc(b.ns.arms, func(a driver.BackendArm) bool { return a.Name == q.Arm })
	if i < 0 {
		return nil, fmt.Errorf("mem backend: search %s: arm not declared to Init: %w", q.Arm, driver.ErrInvalid)
	}
	arm := b.ns.arms[i]
	var out []driver.BackendHit
	for an, terms := range q.Terms {
		// One collection per arm and analyzer: its objects are the
		// chunks with terms under it.
		type object struct {
			doc   driver.DocumentRecord
			chunk int
			terms driver.ArmTerms
		}
		var objs []object
		var sumTTF int64
		df := map[string]int64{}
		for _, d := range b.ns.docs {
			for _, ch := range d.Chunks {
				for _, at := range ch.Terms {
					if at.Arm != q.Arm || at.Analyzer != an || len(at.Terms) == 0 {
						continue
					}
					objs = append(objs, object{d.Record, ch.Index, at})
					sumTTF += int64(len(at.Terms))
					seen := map[string]bool{}
					for _, t := range at.Terms {
						if !seen[t] {
							seen[t] = true
							df[t]++
						}
					}
				}
			}
		}
		var uniq []string
		boost := map[string]float64{}
		for _, t := range terms {
			if boost[t] == 0 {
				uniq = append(uniq, t)
			}
			boost[t]++
		}
		for t, w := range q.Weights[an] {
			boost[t] = w
		}
		stats := make([]bm25.TermStat, len(uniq))
		for _, o := range objs {
			if !pass(o.doc) {
				continue
			}
			matched := false
			for j, t := range uniq {
				stats[j] = bm25.TermStat{Boost: boost[t], DF: df[t]}
				for _, ot := range o.terms.Terms {
					if ot == t {
						stats[j].TF++
					}
				}
				matched = matched || stats[j].TF > 0
			}
			if !matched {
				continue
			}
			score := bm25.DocScore(arm.K1, arm.B, int64(len(objs)), sumTTF, uint32(o.terms.Positions), stats)
			out = append(out, driver.BackendHit{DocID: o.doc.ID, Chunk: o.chunk, Score: score})
		}
	}
	sortHits(out)
	return out[:min(len(out), max(q.K, 0))], nil
}

func (b *memBackend) SearchVector(_ context.Context, v []float32, k int, f driver.Filter) ([]driver.BackendHit, error) {
	if err := b.check("search vector"); err != nil {
		return nil, err
	}
	pass, err := allowed(f)
	if err != nil {
		return nil, fmt.Errorf("mem backend: vector search: %w", err)
	}
	b.ns.mu.RLock()
	defer b.ns.mu.RUnlock()
	var out []driver.BackendHit
	for _, d := range b.ns.docs {
		if !pass(d.Record) {
			continue
		}
		for _, ch := range d.Chunks {
			if len(ch.Vector) != len(v) || len(v) == 0 {
				continue
			}
			var dot, nv, nc float64
			for i := range v {
				dot += float64(v[i]) * float64(ch.Vector[i])
				nv += float64(v[i]) * float64(v[i])
				nc += float64(ch.Vector[i]) * float64(ch.Vector[i])
			}
			if nv == 0 || nc == 0 {
				continue
			}
			out = append(out, driver.BackendHit{DocID: d.Record.ID, Chunk: ch.Index, Score: dot / math.Sqrt(nv*nc)})
		}
	}
	sortHits(out)
	return out[:min(len(out), max(k, 0))], nil
}

func (b *memBackend) KnownTerms(_ context.Context, arm, analyzer string, terms []string) (map[string]bool, error) {
	if err := b.check("known terms"); err != nil {
		return nil, err
	}
	b.ns.mu.RLock()
	defer b.ns.mu.RUnlock()
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	out := map[string]bool{}
	for _, d := range b.ns.docs {
		for _, ch := range d.Chunks {
			for _, at := range ch.Terms {
				if at.Arm != arm || at.Analyzer != analyzer {
					continue
				}
				for _, t := range at.Terms {
					if want[t] {
						out[t] = true
					}
				}
			}
		}
	}
	return out, nil
}

func (b *memBackend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return fmt.Errorf("mem backend: close: closed twice")
	}
	b.closed = true
	return nil
}
