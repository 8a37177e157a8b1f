package embedcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync/atomic"

	"github.com/situate/situate/driver"
)

// Embedder is a situate.Embedder in front of a cache.
type Embedder struct {
	e     driver.Embedder
	cache driver.VectorCache
	hits  atomic.Int64
	sent  atomic.Int64
}

var _ driver.Embedder = (*Embedder)(nil)

// New wraps e with cache. The result is an *Embedder.
func New(e driver.Embedder, cache driver.VectorCache) driver.Embedder {
	return &Embedder{e: e, cache: cache}
}

// Name is the wrapped embedder's name: cached and fresh vectors are the
// same vectors.
func (c *Embedder) Name() string { return c.e.Name() }

// Stats reports the texts served from the cache and the texts sent to the
// wrapped embedder since New.
func (c *Embedder) Stats() (hits, sent int64) { return c.hits.Load(), c.sent.Load() }

// Key is the cache key of text embedded by the embedder named name.
func Key(name string, input driver.InputType, text string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s\x00%d\x00", len(name), name, input)
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// Embed returns one vector per text, from the cache where present.
func (c *Embedder) Embed(ctx context.Context, texts []string, input driver.InputType) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	name := c.e.Name()
	out := make([][]float32, len(texts))
	keys := make([]string, len(texts))
	var missTexts []string
	missAt := map[string][]int{} // key -> indexes waiting for it
	for i, t := range texts {
		keys[i] = Key(name, input, t)
		if at, ok := missAt[keys[i]]; ok {
			missAt[keys[i]] = append(at, i)
			continue
		}
		v, ok, err := c.cache.CachedVector(ctx, keys[i])
		if err != nil {
			return nil, fmt.Errorf("embedcache %s: read text %d: %w", name, i, err)
		}
		if ok && len(v) > 0 {
			out[i] = v
			c.hits.Add(1)
			continue
		}
		missAt[keys[i]] = []int{i}
		missTexts = append(missTexts, t)
	}
	if len(missTexts) > 0 {
		vecs, err := c.e.Embed(ctx, missTexts, input)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(missTexts) {
			return nil, fmt.Errorf("embedcache %s: embedder returned %d vectors for %d texts", name, len(vecs), len(missTexts))
		}
		c.sent.Add(int64(len(missTexts)))
		j := 0
		for i := range texts {
			at, ok := missAt[keys[i]]
			if !ok || at[0] != i {
				continue
			}
			v := vecs[j]
			j++
			if err := c.cache.CacheVector(ctx, keys[i], v); err != nil {
				return nil, fmt.Errorf("embedcache %s: store text %d: %w", name, i, err)
			}
			for _, k := range at {
				out[k] = v
			}
		}
	}
	dim := len(out[0])
	for i, v := range out {
		if len(v) != dim {
			return nil, fmt.Errorf("embedcache %s: text %d has a vector of dimension %d, text 0 of %d (stale cache entry for another model?): %w",
				name, i, len(v), dim, driver.ErrInvalid)
		}
	}
	return out, nil
}

// CacheOnly is an embedder that answers from cache alone, under the name
// of the embedder the vectors were made with: rebuilding a vector index
// from a store's vector cache calls no provider. A text the cache lacks
// is an error saying which embedder to configure to re-embed it.
func CacheOnly(name string, cache driver.VectorCache) driver.Embedder {
	return cacheOnly{name: name, cache: cache}
}

type cacheOnly struct {
	name  string
	cache driver.VectorCache
}

func (c cacheOnly) Name() string { return c.name }

func (c cacheOnly) Embed(ctx context.Context, texts []string, input driver.InputType) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok, err := c.cache.CachedVector(ctx, Key(c.name, input, t))
		if err != nil {
			return nil, err
		}
		if !ok || len(v) == 0 {
			return nil, fmt.Errorf("the vector cache has no vector of embedder %s for a stored chunk: pass --embed with the settings the store was indexed with to re-embed it", c.name)
		}
		out[i] = v
	}
	return out, nil
}
