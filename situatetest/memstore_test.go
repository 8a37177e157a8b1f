package situatetest_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/situatetest"
)

// memStore is a Store written from the interfaces' documentation alone, in
// memory: it passing TestStore shows the suite asks for what the
// interfaces promise, not for what SQLite happens to do.
type memStore struct {
	mu     sync.RWMutex
	docs   map[string]situate.DocumentRecord
	chunks map[string][]situate.StoredChunk
	meta   map[string]string
	ctxs   map[string]situate.Context
	vecs   map[string][]float32
	usage  []situate.Usage
}

func newMemStore() *memStore {
	return &memStore{docs: map[string]situate.DocumentRecord{}, chunks: map[string][]situate.StoredChunk{},
		meta: map[string]string{}, ctxs: map[string]situate.Context{}, vecs: map[string][]float32{}}
}

func (m *memStore) Document(_ context.Context, id string) (situate.DocumentRecord, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	d, ok := m.docs[id]
	if !ok {
		return d, fmt.Errorf("mem: document %q: %w", id, situate.ErrNotFound)
	}
	return d, nil
}

func (m *memStore) Documents(context.Context) ([]situate.DocumentRecord, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []situate.DocumentRecord
	for _, id := range slices.Sorted(maps.Keys(m.docs)) {
		out = append(out, m.docs[id])
	}
	return out, nil
}

func (m *memStore) PutDocument(ctx context.Context, rec situate.DocumentRecord, cs []situate.StoredChunk) error {
	if rec.ID == "" {
		return fmt.Errorf("mem: put: empty id: %w", situate.ErrInvalid)
	}
	cs = slices.Clone(cs)
	for i := range cs {
		if cs[i].DocID != "" && cs[i].DocID != rec.ID {
			return fmt.Errorf("mem: put %q: chunk %d of %q: %w", rec.ID, i, cs[i].DocID, situate.ErrInvalid)
		}
		cs[i].DocID = rec.ID
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	rec.Chunks = len(cs)
	if rec.IndexedAt.IsZero() {
		rec.IndexedAt = time.Now()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.docs[rec.ID], m.chunks[rec.ID] = rec, cs
	return nil
}

func (m *memStore) DeleteDocument(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.docs, id)
	delete(m.chunks, id)
	return nil
}

func (m *memStore) Chunks(_ context.Context, id string) ([]situate.StoredChunk, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if _, ok := m.docs[id]; !ok {
		return nil, fmt.Errorf("mem: chunks of %q: %w", id, situate.ErrNotFound)
	}
	return slices.Clone(m.chunks[id]), nil
}

func (m *memStore) Close() error { return nil }

func (m *memStore) SetMeta(_ context.Context, k, v string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.meta[k] = v
	return nil
}

func (m *memStore) Meta(_ context.Context, k string) (string, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	v, ok := m.meta[k]
	return v, ok, nil
}

func (m *memStore) CachedContext(_ context.Context, k string) (situate.Context, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	c, ok := m.ctxs[k]
	return c, ok, nil
}

func (m *memStore) CacheContext(_ context.Context, k string, c situate.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ctxs[k] = c
	return nil
}

func (m *memStore) CachedVector(_ context.Context, k string) ([]float32, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	v, ok := m.vecs[k]
	return slices.Clone(v), ok, nil
}

func (m *memStore) CacheVector(_ context.Context, k string, v []float32) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.vecs[k] = slices.Clone(v)
	return nil
}

func (m *memStore) RecordUsage(_ context.Context, u situate.Usage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.usage = append(m.usage, u)
	return nil
}

// The in-memory store passes the suite; reopening gives back the same
// store, as a process that never exits would see it.
func TestStoreSuiteOnMemStore(t *testing.T) {
	situatetest.TestStore(t, situatetest.StoreHarness{
		New: func(t *testing.T) (driver.Store, func() (driver.Store, error)) {
			m := newMemStore()
			return m, func() (driver.Store, error) { return m, nil }
		},
	})
}

// mutant is memStore with one bug, chosen by SITUATETEST_MUTANT.
type mutant struct {
	*memStore
	bug string
}

func (m mutant) Documents(ctx context.Context) ([]situate.DocumentRecord, error) {
	out, err := m.memStore.Documents(ctx)
	if m.bug == "unsorted" {
		slices.Reverse(out)
	}
	return out, err
}

func (m mutant) Document(ctx context.Context, id string) (situate.DocumentRecord, error) {
	d, err := m.memStore.Document(ctx, id)
	if m.bug == "plain-not-found" && err != nil {
		return d, fmt.Errorf("no document %q", id)
	}
	return d, err
}

func (m mutant) PutDocument(ctx context.Context, rec situate.DocumentRecord, cs []situate.StoredChunk) error {
	if m.bug == "append-chunks" {
		m.mu.RLock()
		old := m.chunks[rec.ID]
		m.mu.RUnlock()
		cs = append(slices.Clone(old), cs...)
	}
	if m.bug == "lose-flags" {
		cs = slices.Clone(cs)
		for i := range cs {
			cs[i].Context.Flags = nil
		}
	}
	return m.memStore.PutDocument(ctx, rec, cs)
}

func (m mutant) CacheVector(ctx context.Context, k string, v []float32) error {
	if m.bug == "float64-roundtrip" {
		v = slices.Clone(v)
		for i := range v {
			v[i] = float32(float64(v[i]) + 1e-7*float64(v[i]))
		}
	}
	return m.memStore.CacheVector(ctx, k, v)
}

// TestMutantStore runs the suite on the mutant SITUATETEST_MUTANT names;
// TestSuiteCatchesBrokenStores runs it in a child process and expects it
// to fail.
func TestMutantStore(t *testing.T) {
	bug := os.Getenv("SITUATETEST_MUTANT")
	if bug == "" {
		t.Skip("run by TestSuiteCatchesBrokenStores")
	}
	situatetest.TestStore(t, situatetest.StoreHarness{
		New: func(t *testing.T) (driver.Store, func() (driver.Store, error)) {
			m := mutant{newMemStore(), bug}
			return m, func() (driver.Store, error) { return m, nil }
		},
	})
}

// Each broken store fails the suite in the subtest that covers its bug.
func TestSuiteCatchesBrokenStores(t *testing.T) {
	for bug, subtest := range map[string]string{
		"unsorted":          "TestMutantStore/Order",
		"plain-not-found":   "TestMutantStore/NotFound",
		"append-chunks":     "TestMutantStore/Replace",
		"lose-flags":        "TestMutantStore/RoundTrip",
		"float64-roundtrip": "TestMutantStore/VectorCache",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMutantStore$", "-test.short")
		cmd.Env = append(os.Environ(), "SITUATETEST_MUTANT="+bug)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("mutant %s passed the suite", bug)
			continue
		}
		if !strings.Contains(string(out), "--- FAIL: "+subtest) {
			t.Errorf("mutant %s: %s did not fail:\n%s", bug, subtest, out)
		}
	}
}
