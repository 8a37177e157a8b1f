package situate

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
)

// DocumentsMatching returns the records of the indexed documents f admits
// (the documents a search with f may return), ordered by id.
func (e *Engine) DocumentsMatching(f Filter) ([]DocumentRecord, error) {
	e.refreshReader()
	allowed, err := e.allowedDocs(f)
	if err != nil {
		return nil, err
	}
	docs := e.Documents()
	if allowed == nil {
		return docs, nil
	}
	return slices.DeleteFunc(docs, func(r DocumentRecord) bool { return !allowed[r.ID] }), nil
}

// allowedDocs returns the documents f admits among those the Engine holds,
// the set every arm restricts its scoring to; nil means every document (a
// zero Filter). An invalid filter is an error wrapping ErrInvalid. Without
// Docs the set costs a pass over every document, so the sets of recent
// filters are kept until the documents change.
func (e *Engine) allowedDocs(f Filter) (map[string]bool, error) {
	if f.IsZero() {
		return nil, nil
	}
	df, err := f.Compile()
	if err != nil {
		return nil, err
	}
	if err := e.ensureDocs(context.Background()); err != nil {
		return nil, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if f.Docs != nil {
		allowed := make(map[string]bool, len(f.Docs))
		for _, id := range f.Docs {
			if rec, ok := e.docs[id]; ok && df.Allows(rec.Access, rec.Metadata) {
				allowed[id] = true
			}
		}
		return allowed, nil
	}
	key := filterCacheKey(f)
	if set, ok := e.allowed.get(key, e.docsGen); ok {
		return set, nil
	}
	allowed := make(map[string]bool, len(e.docs))
	for id, rec := range e.docs {
		if df.Allows(rec.Access, rec.Metadata) {
			allowed[id] = true
		}
	}
	e.allowed.put(key, e.docsGen, allowed)
	return allowed, nil
}

// filterCache holds the document sets of the last few filters searched,
// for one generation of the Engine's documents. The sets are shared by
// every search that gets them and never modified.
type filterCache struct {
	mu      sync.Mutex
	gen     uint64
	sets    map[string]map[string]bool
	entries int // over all sets
}

// maxCachedEntries bounds the document ids filterCache holds over all its
// sets (about 40 MB at most).
const maxCachedEntries = 1 << 20

func (c *filterCache) get(key string, gen uint64) (map[string]bool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil, false
	}
	set, ok := c.sets[key]
	return set, ok
}

func (c *filterCache) put(key string, gen uint64, set map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.sets == nil {
		c.gen, c.sets, c.entries = gen, map[string]map[string]bool{}, 0
	}
	if len(set) > maxCachedEntries/4 {
		return
	}
	for k, old := range c.sets { // evict any until the new set fits
		if c.entries+len(set) <= maxCachedEntries {
			break
		}
		delete(c.sets, k)
		c.entries -= len(old)
	}
	c.sets[key] = set
	c.entries += len(set)
}

// filterCacheKey identifies a filter without Docs.
func filterCacheKey(f Filter) string {
	b, _ := json.Marshal(struct {
		P []string
		M map[string]string
		W []Condition
	}{f.Principals, f.Metadata, f.Where})
	return string(b)
}
