package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/postgres"
	"github.com/situate/situate/sqlite"
)

// Store is what the front ends need of a store: the engine's store with
// its metadata, caches and usage ledger, and the service's job queue and
// keys. The SQLite store in the --store directory and a shared PostgreSQL
// store (--store-url) both are one.
type Store interface {
	driver.Store
	driver.MetaStore
	driver.ContextCache
	driver.VectorCache
	driver.UsageRecorder
	driver.JobStore
	driver.KeyStore
}

var (
	_ Store = (*sqlite.Store)(nil)
	_ Store = (*postgres.Store)(nil)
)

const (
	// StoreFile is the SQLite database inside the store directory.
	StoreFile = "situate.db"
	// SharedDir is the directory, inside the --store directory, that holds
	// the local indexes of shared stores, one subdirectory per database.
	SharedDir = "shared"
	// defaultContextualizer is the "contextualizer" setting's default.
	defaultContextualizer = "offline"
)

// OpenStore opens the configured store: the PostgreSQL database of
// --store-url (shared with other processes; the indexes then live in
// STORE/shared/HOST_PORT_DB and are this process's own, see
// situate.Options.SharedStore), or the SQLite database in the --store
// directory (created when create is set). dir is where the engine keeps
// its indexes.
func OpenStore(ctx context.Context, s Settings, env Env, create bool) (store Store, dir string, shared bool, err error) {
	dir = StoreDir(s, env)
	if url := s.Value("store-url"); url != "" {
		pg, err := postgres.Open(ctx, url)
		if err != nil {
			return nil, "", false, fmt.Errorf("--store-url (from %s): %w", s.Origin("store-url"), err)
		}
		dir = filepath.Join(dir, SharedDir, SharedName(pg.Where()))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			pg.Close()
			return nil, "", false, fmt.Errorf("create index directory %s: %w", dir, err)
		}
		return pg, dir, true, nil
	}
	dbPath := filepath.Join(dir, StoreFile)
	if _, err := os.Stat(dbPath); err != nil {
		if !create {
			return nil, "", false, noStore(dir, err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", false, fmt.Errorf("create store %s: %w", dir, err)
		}
	}
	st, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return nil, "", false, err
	}
	return st, dir, false, nil
}

func noStore(dir string, err error) error {
	return fmt.Errorf("no store at %s (run 'situate index PATH' first, or pass --store): %w", dir, err)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SharedName turns a database's host:port/name into a directory name.
func SharedName(where string) string {
	return unsafeName.ReplaceAllString(where, "_")
}

// ReadOnlyEmbedStore is a store that cannot be written, as an embedder's
// cache and ledger: cached vectors are read, the query's vector and the
// call's usage are not recorded.
type ReadOnlyEmbedStore struct{ EmbedStore }

func (ReadOnlyEmbedStore) CacheVector(context.Context, string, []float32) error { return nil }
func (ReadOnlyEmbedStore) RecordUsage(context.Context, situate.Usage) error     { return nil }

// exactZero is what a BM25 parameter of 0 becomes: the bm25 package reads
// 0 as "the default" and computes in float32, where the smallest float64
// rounds to exactly 0, so --bm25-b 0 means b = 0 (no length
// normalisation), as --bm25-k1 0 means k1 = 0.
const exactZero = math.SmallestNonzeroFloat64

// EngineOptions turns the settings into engine options. store is needed
// by the LLM contextualizer (cache, usage) and by Env.Stored, and may be
// nil otherwise; es is the embedder's store (nil: no embedder or reranker
// is built).
func EngineOptions(s Settings, env Env, store Store, es EmbedStore, log *slog.Logger) (situate.Options, error) {
	o := situate.DefaultOptions()
	o.Logger = log
	var err error
	// The recipe first; the settings given refine it (--recipe lucene
	// --bm25-k1 0.9), the ones left at their defaults do not undo it.
	if o.Recipe, err = situate.RecipeNamed(s.Value("recipe")); err != nil {
		return o, usagef("--recipe %q (from %s): must be situate or lucene", s.Value("recipe"), s.Origin("recipe"))
	}
	for _, x := range []struct {
		name string
		dst  *int
	}{{"chunk-size", &o.ChunkSize}, {"chunk-overlap", &o.ChunkOverlap}, {"parallel", &o.ParallelDocuments}, {"embed-max-tokens", &o.EmbedMaxTokens}} {
		if *x.dst, err = Int(s, x.name); err != nil {
			return o, err
		}
	}
	floats := []struct {
		name string
		dst  *float64
	}{{"bm25-k1", &o.BM25K1}, {"bm25-b", &o.BM25B}, {"context-weight", &o.ContextWeight},
		{"dense-weight", &o.DenseWeight}, {"lexical-weight", &o.LexicalWeight}}
	if o.CompoundWeight > 0 || s.Origin("compound-weight") != "default" {
		floats = append(floats, struct {
			name string
			dst  *float64
		}{"compound-weight", &o.CompoundWeight})
	}
	for _, x := range floats {
		if *x.dst, err = Float(s, x.name); err != nil {
			return o, err
		}
	}
	if o.BM25K1 == 0 {
		o.BM25K1 = exactZero
	}
	if o.BM25B == 0 {
		o.BM25B = exactZero
	}
	o.Analyzer = s.Value("analyzer")
	name := s.Value("contextualizer")
	chosen := s.Origin("contextualizer") != "default"
	if s.Value("llm") != "" && !chosen {
		name = "llm"
	}
	if env.Stored && store != nil && name == defaultContextualizer && !chosen {
		// "status" without --contextualizer or --llm: the one the store
		// was last indexed with.
		sc, ok, err := ReadStoredContextualizer(context.Background(), store)
		if err != nil {
			return o, err
		}
		if ok {
			name = "stored"
			o.Contextualizer = sc.Stub()
		}
	}
	switch name {
	case "stored":
	case "offline":
		o.Contextualizer = offline.New(offline.DefaultOptions())
	case "none":
		o.Contextualizer = nil
	case "llm":
		if s.Value("llm") == "" {
			return o, usagef("--contextualizer llm needs --llm PROVIDER:MODEL")
		}
		if store == nil {
			return o, fmt.Errorf("llm contextualizer: no store for its cache")
		}
		ctxz, err := NewContextualizer(s, env, store)
		if err != nil {
			return o, err
		}
		o.Contextualizer = ctxz
	default:
		return o, usagef("--contextualizer %q (from %s): must be offline, llm or none", name, s.Origin("contextualizer"))
	}
	o.Fusion = s.Value("fusion")
	if es != nil {
		if o.Embedder, o.EmbedTokenCounter, err = NewEmbedder(context.Background(), s, env, es); err != nil {
			return o, err
		}
		if o.Reranker, err = NewReranker(context.Background(), s, env); err != nil {
			return o, err
		}
	}
	if err := o.Validate(); err != nil {
		return o, UsageError{err}
	}
	return o, nil
}

// WithBackend sets o.Backend to the index backend --index names, for the
// store of tenant ("": --weaviate-tenant); temporary drops the backend's
// tenant when the engine closes.
func WithBackend(ctx context.Context, s Settings, env Env, o *situate.Options, tenant string, temporary bool) error {
	b, err := NewIndexBackend(ctx, s, env, tenant, temporary)
	if err != nil {
		return err
	}
	if b != nil {
		o.Backend = b
	}
	return nil
}

// OpenWriter opens (creating when asked) the store and the engine over it
// for writing: it waits for, or names, another writer. Over a shared store
// (--store-url) the engine's indexes are this process's and are brought up
// to the store on open; when another process of this machine keeps them,
// the engine writes the store only (situate.OpenAuto).
func OpenWriter(ctx context.Context, s Settings, env Env, create bool, log *slog.Logger) (*situate.Engine, Store, error) {
	store, dir, shared, err := OpenStore(ctx, s, env, create)
	if err != nil {
		return nil, nil, err
	}
	opts, err := EngineOptions(s, env, store, store, log)
	if err == nil {
		err = WithBackend(ctx, s, env, &opts, "", false)
	}
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	opts.SharedStore, opts.OpenMode = shared, situate.OpenAuto
	eng, err := situate.Open(ctx, dir, store, opts)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return eng, store, nil
}

// OpenReader opens the store and a read-only engine over it, for the
// commands that only read (search, status, show): it takes no lock, writes
// no index, and sees the last commit, so it runs beside a writer. A store
// that cannot be written (a read-only directory or file system) is opened
// read-only. Over a shared store (--store-url) it syncs this process's
// indexes when no other process of this machine holds them, and otherwise
// searches indexes built in memory from the store.
//
// forSearch skips the database's integrity check on open (what a search
// reads is still checked, and "situate check" checks everything), so a
// search costs what it reads. Without it (status, show, ls), arms the
// store was indexed without (--recipe lucene) are left out rather than
// refused.
func OpenReader(ctx context.Context, s Settings, env Env, forSearch bool, log *slog.Logger) (*situate.Engine, Store, error) {
	if s.Value("store-url") != "" {
		store, dir, _, err := OpenStore(ctx, s, env, false)
		if err != nil {
			return nil, nil, err
		}
		opts, err := EngineOptions(s, env, store, ReadOnlyEmbedStore{store}, log)
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
	dir := StoreDir(s, env)
	dbPath := filepath.Join(dir, StoreFile)
	if _, err := os.Stat(dbPath); err != nil {
		return nil, nil, noStore(dir, err)
	}
	var es EmbedStore
	var store Store
	sq, err := sqlite.OpenWith(ctx, dbPath, sqlite.Options{SkipOpenCheck: forSearch})
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
		store, es = ro, ReadOnlyEmbedStore{ro}
	}
	opts, err := EngineOptions(s, env, store, es, log)
	if err == nil {
		err = WithBackend(ctx, s, env, &opts, "", false)
	}
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	opts.OpenMode = situate.OpenReader
	eng, err := situate.Open(ctx, dir, store, opts)
	if errors.Is(err, situate.ErrNeedsRebuild) && !forSearch {
		opts.CodeArmWeight, opts.DocumentWeight, opts.PairArmWeight, opts.DefsArmWeight = 0, 0, 0, 0
		eng, err = situate.Open(ctx, dir, store, opts)
	}
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return eng, store, nil
}

// ContextStats counts contexts by source and flagged contexts: the SQLite
// store in one query, another store by reading every document's chunks.
func ContextStats(ctx context.Context, store Store, docs []situate.DocumentRecord) (sqlite.Stats, error) {
	if s, ok := store.(*sqlite.Store); ok {
		return s.Stats(ctx)
	}
	st := sqlite.Stats{ContextsBySource: map[string]int{}}
	for _, d := range docs {
		chunks, err := store.Chunks(ctx, d.ID)
		if err != nil {
			return st, err
		}
		for _, ch := range chunks {
			st.ContextsBySource[ch.Context.Source]++
			if len(ch.Context.Flags) > 0 {
				st.FlaggedContexts++
			}
		}
	}
	return st, nil
}
