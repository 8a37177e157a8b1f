package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// storeFile is the SQLite database inside the store directory.
const storeFile = "situate.db"

// engineOptions turns the configuration into engine options. store is
// needed by the LLM contextualizer (cache, usage) and may be nil otherwise.
func engineOptions(c *config, e *env, store backingStore, log *slog.Logger) (situate.Options, error) {
	var es embedStore
	if store != nil {
		es = store
	}
	return engineOptionsWith(c, e, store, es, log)
}

// embedStore is what the embedder keeps in the store: its vector cache and
// the usage ledger of its calls.
type embedStore interface {
	driver.VectorCache
	driver.UsageRecorder
}

// readOnlyEmbedStore is a store that cannot be written, as an embedder's
// cache and ledger: cached vectors are read, the query's vector and the
// call's usage are not recorded.
type readOnlyEmbedStore struct{ backingStore }

func (readOnlyEmbedStore) CacheVector(context.Context, string, []float32) error { return nil }
func (readOnlyEmbedStore) RecordUsage(context.Context, situate.Usage) error     { return nil }

// engineOptionsWith is engineOptions with the embedder's store apart (nil:
// no embedder or reranker is built).
func engineOptionsWith(c *config, e *env, store backingStore, es embedStore, log *slog.Logger) (situate.Options, error) {
	o := situate.DefaultOptions()
	o.Logger = log
	var err error
	// The recipe first; the flags given refine it (--recipe lucene
	// --bm25-k1 0.9), the ones left at their defaults do not undo it.
	if o.Recipe, err = situate.RecipeNamed(c.str("recipe")); err != nil {
		return o, usagef("--recipe %q (from %s): must be situate or lucene", c.str("recipe"), c.settings["recipe"].origin)
	}
	if o.ChunkSize, err = c.int("chunk-size"); err != nil {
		return o, err
	}
	if o.ChunkOverlap, err = c.int("chunk-overlap"); err != nil {
		return o, err
	}
	if o.BM25K1, err = c.float("bm25-k1"); err != nil {
		return o, err
	}
	if o.BM25B, err = c.float("bm25-b"); err != nil {
		return o, err
	}
	if o.ContextWeight, err = c.float("context-weight"); err != nil {
		return o, err
	}
	if o.CompoundWeight > 0 || c.settings["compound-weight"].origin != "default" {
		if o.CompoundWeight, err = c.float("compound-weight"); err != nil {
			return o, err
		}
	}
	if o.ParallelDocuments, err = c.int("parallel"); err != nil {
		return o, err
	}
	o.Analyzer = c.str("analyzer")
	name := c.str("contextualizer")
	if c.str("llm") != "" && c.settings["contextualizer"].origin == "default" {
		name = "llm"
	}
	if e.stored && store != nil && name == c.settings["contextualizer"].def && c.settings["contextualizer"].origin == "default" {
		// "status" without --contextualizer or --llm: the one the store
		// was last indexed with.
		sc, ok, err := readStoredContextualizer(context.Background(), store)
		if err != nil {
			return o, err
		}
		if ok {
			name = "stored"
			o.Contextualizer = sc.stub()
		}
	}
	switch name {
	case "stored":
	case "offline":
		o.Contextualizer = offline.New(offline.DefaultOptions())
	case "none":
		o.Contextualizer = nil
	case "llm":
		if c.str("llm") == "" {
			return o, usagef("--contextualizer llm needs --llm PROVIDER:MODEL")
		}
		if store == nil {
			return o, fmt.Errorf("llm contextualizer: no store for its cache")
		}
		ctxz, err := newLLMContextualizer(c, e, store)
		if err != nil {
			return o, err
		}
		o.Contextualizer = ctxz
	default:
		return o, usagef("--contextualizer %q (from %s): must be offline, llm or none", name, c.settings["contextualizer"].origin)
	}
	o.Fusion = c.str("fusion")
	if o.DenseWeight, err = c.float("dense-weight"); err != nil {
		return o, err
	}
	if o.LexicalWeight, err = c.float("lexical-weight"); err != nil {
		return o, err
	}
	if o.EmbedMaxTokens, err = c.int("embed-max-tokens"); err != nil {
		return o, err
	}
	if es != nil {
		if o.Embedder, o.EmbedTokenCounter, err = newEmbedder(context.Background(), c, e, es); err != nil {
			return o, err
		}
		if o.Reranker, err = newReranker(context.Background(), c, e); err != nil {
			return o, err
		}
	}
	if err := o.Validate(); err != nil {
		return o, usageError{err}
	}
	return o, nil
}

// openEngine opens (creating when asked) the store and the engine over it
// for writing: it waits for, or names, another writer. Over a shared store
// (--store-url) the engine's indexes are this process's and are brought up
// to the store on open.
func openEngine(ctx context.Context, e *env, c *config, create bool) (*situate.Engine, backingStore, error) {
	log := warnLogger(e.stderr)
	store, dir, shared, err := openBacking(ctx, e, c, create)
	if err != nil {
		return nil, nil, err
	}
	opts, err := engineOptions(c, e, store, log)
	if err == nil {
		err = withBackend(ctx, c, e, &opts, "", false)
	}
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	// Over a shared store another process of this machine (serve, mcp)
	// may keep the local indexes: then the engine writes the store only.
	opts.SharedStore, opts.OpenMode = shared, situate.OpenAuto
	eng, err := situate.Open(ctx, dir, store, opts)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	if create {
		if err := noteContextualizer(ctx, e, store, eng, opts.Contextualizer); err != nil {
			eng.Close()
			store.Close()
			return nil, nil, err
		}
	}
	return eng, store, nil
}

// openReader opens the store and a read-only engine over it, for the
// commands that only read (search, status, show): it takes no lock, writes
// no index, and sees the last commit, so it runs beside a writer. A store
// that cannot be written (a read-only directory or file system) is opened
// read-only. Over a shared store (--store-url) it syncs this process's
// indexes when no other process of this machine holds them, and otherwise
// searches indexes built in memory from the store.
func openReader(ctx context.Context, e *env, c *config) (*situate.Engine, backingStore, error) {
	return openReaderWith(ctx, e, c, sqlite.Options{}, false)
}

// openSearcher is openReader for one search: it skips the database's
// integrity check on open (what a search reads is still checked, and
// "situate check" checks everything), so a search costs what it reads.
func openSearcher(ctx context.Context, e *env, c *config) (*situate.Engine, backingStore, error) {
	return openReaderWith(ctx, e, c, sqlite.Options{SkipOpenCheck: true}, true)
}

// openReaderWith opens a reader. For a command that does not search
// (status, show, ls), arms the store was indexed without (it was indexed
// with --recipe lucene) are left out rather than refused.
func openReaderWith(ctx context.Context, e *env, c *config, so sqlite.Options, search bool) (*situate.Engine, backingStore, error) {
	log := warnLogger(e.stderr)
	if c.str("store-url") != "" {
		store, dir, _, err := openBacking(ctx, e, c, false)
		if err != nil {
			return nil, nil, err
		}
		opts, err := engineOptionsWith(c, e, store, readOnlyEmbedStore{store}, log)
		if err != nil {
			store.Close()
			return nil, nil, err
		}
		opts.SharedStore, opts.OpenMode = true, situate.OpenReader
		eng, err := situate.Open(ctx, dir, store, opts)
		if err != nil {
			store.Close()
			return nil, nil, err
		}
		return eng, store, nil
	}
	dir := c.storeDir(e)
	dbPath := filepath.Join(dir, storeFile)
	if _, err := os.Stat(dbPath); err != nil {
		return nil, nil, fmt.Errorf("no store at %s (run 'situate index PATH' first, or pass --store): %w", dir, err)
	}
	var es embedStore
	var store backingStore
	sq, err := sqlite.OpenWith(ctx, dbPath, so)
	if err == nil {
		store, es = sq, sq
	} else {
		ro, rerr := sqlite.OpenReadOnly(ctx, dbPath)
		if rerr != nil {
			if errors.Is(err, sqlite.ErrCorrupt) && errors.Is(rerr, sqlite.ErrCorrupt) {
				// Both opens met the same damage: say it once.
				return nil, nil, err
			}
			return nil, nil, errors.Join(err, rerr)
		}
		store, es = ro, readOnlyEmbedStore{ro}
	}
	opts, err := engineOptionsWith(c, e, store, es, log)
	if err == nil {
		err = withBackend(ctx, c, e, &opts, "", false)
	}
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	opts.OpenMode = situate.OpenReader
	eng, err := situate.Open(ctx, dir, store, opts)
	if errors.Is(err, situate.ErrNeedsRebuild) && !search {
		opts.CodeArmWeight, opts.DocumentWeight, opts.PairArmWeight, opts.DefsArmWeight = 0, 0, 0, 0
		eng, err = situate.Open(ctx, dir, store, opts)
	}
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return eng, store, nil
}
