package situate

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/eval"
)

// Evaluation context sources: how a configuration makes the contexts that
// go into its index; everything else is the same.
const (
	EvalRaw      = "raw"      // no context: the "before" of every comparison
	EvalOffline  = "offline"  // the offline contextualizer
	EvalProvided = "provided" // contexts shipped with the dataset
	EvalTitle    = "title"    // the document title as the context
	EvalLLM      = "llm"      // contexts written by a model
)

// Evaluation search stages a configuration name may add to its source:
// "provided+dense", "offline+hybrid+rerank". Without one, BM25 alone.
const (
	EvalDense  = "dense"
	EvalHybrid = "hybrid"
	EvalRerank = "rerank"
)

// DefaultEvalDepth is how many results an evaluation retrieves per query.
const DefaultEvalDepth = 100

// EvalConfig is one configuration an evaluation measures.
type EvalConfig struct {
	// Name is the configuration as written: source[+stage...].
	Name string
	// Contexts is the context source (Eval* source constants).
	Contexts string
	// Mode is the search mode (ModeBM25, ModeDense, ModeHybrid).
	Mode   string
	Rerank bool
}

// ParseEvalConfig parses a configuration name: a context source optionally
// followed by search stages ("provided+hybrid+rerank").
func ParseEvalConfig(name string) (EvalConfig, error) {
	parts := strings.Split(name, "+")
	cfg := EvalConfig{Name: name, Contexts: parts[0], Mode: ModeBM25}
	switch cfg.Contexts {
	case EvalRaw, EvalOffline, EvalProvided, EvalTitle, EvalLLM:
	default:
		return cfg, fmt.Errorf("configuration %q: unknown context source %q (want raw, offline, provided, title or llm): %w", name, cfg.Contexts, ErrInvalid)
	}
	for _, p := range parts[1:] {
		switch p {
		case EvalDense:
			cfg.Mode = ModeDense
		case EvalHybrid:
			cfg.Mode = ModeHybrid
		case EvalRerank:
			cfg.Rerank = true
		default:
			return cfg, fmt.Errorf("configuration %q: unknown stage %q (want dense, hybrid or rerank): %w", name, p, ErrInvalid)
		}
	}
	return cfg, nil
}

// EvalAvailable says what an evaluation can use beyond the offline
// contextualizer.
type EvalAvailable struct {
	LLM, Embedder, Reranker bool
}

// EvalConfigs lists the configurations that apply to ds, in the order a
// comparison shows them: raw, offline, llm, title (when documents have
// titles), provided (when the dataset ships contexts); with an embedder the
// cookbook's comparison (basic embeddings, contextual embeddings, + BM25
// hybrid, + rerank) on the best context source.
func EvalConfigs(ds *eval.Dataset, av EvalAvailable) []string {
	provided := HasProvidedContexts(ds)
	titled := slices.ContainsFunc(ds.Docs, func(d eval.Doc) bool { return d.Title != "" && len(d.Chunks) > 0 })
	out := []string{EvalRaw, EvalOffline}
	if av.LLM {
		out = append(out, EvalLLM)
	}
	if titled {
		out = append(out, EvalTitle)
	}
	if provided {
		out = append(out, EvalProvided)
	}
	if av.Embedder {
		best := EvalOffline
		if av.LLM {
			best = EvalLLM
		}
		if provided {
			best = EvalProvided
		}
		out = append(out, EvalRaw+"+"+EvalDense, best+"+"+EvalDense, best+"+"+EvalHybrid)
		if av.Reranker {
			out = append(out, best+"+"+EvalHybrid+"+"+EvalRerank)
		}
	}
	return out
}

// HasProvidedContexts reports whether ds ships contexts with its chunks.
func HasProvidedContexts(ds *eval.Dataset) bool {
	for _, d := range ds.Docs {
		for _, ch := range d.Chunks {
			if ch.Context != "" {
				return true
			}
		}
	}
	return false
}

// EvalOptions configure Evaluate.
type EvalOptions struct {
	// Depth is how many results are retrieved per query (default
	// DefaultEvalDepth).
	Depth int
	// DocFormat is the format of documents that do not say (default
	// FormatText).
	DocFormat string
	// NewStore opens an empty store in dir, a fresh temporary directory
	// per configuration; the engine's indexes live beside it, as in a
	// store that situate index builds.
	NewStore func(ctx context.Context, dir string) (Store, error)
	// EngineOptions returns the engine options of a configuration over its
	// store: the same as indexing and searching use. Evaluate drops the
	// contextualizer for the raw, provided and title sources and the
	// embedder for BM25-only configurations.
	EngineOptions func(cfg EvalConfig, store Store) (Options, error)
	// Read parses a dataset document that names a file (answers sets).
	Read func(ctx context.Context, path, id string) (Document, error)
	// Skip, when set, receives every document that could not be indexed.
	Skip func(docID string, err error)
	// TempDir is where temporary stores are made (default os.TempDir()).
	TempDir string
}

// EvalRun is one configuration's measurement.
type EvalRun struct {
	Result   eval.Result
	PerQuery []eval.QueryResult
}

// Evaluate measures one configuration on ds through the product path: a
// fresh store and index in a temporary directory, the dataset indexed with
// Engine.Index, every query searched with Engine.Search, then scored by
// package eval. The temporary directory is removed afterwards.
func Evaluate(ctx context.Context, ds *eval.Dataset, cfg EvalConfig, opts EvalOptions) (EvalRun, error) {
	if opts.NewStore == nil || opts.EngineOptions == nil {
		return EvalRun{}, fmt.Errorf("evaluate: NewStore and EngineOptions are required: %w", ErrInvalid)
	}
	if opts.Depth <= 0 {
		opts.Depth = DefaultEvalDepth
	}
	if opts.DocFormat == "" {
		opts.DocFormat = FormatText
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "situate-eval-")
	if err != nil {
		return EvalRun{}, fmt.Errorf("evaluate %s: %w", cfg.Name, err)
	}
	defer os.RemoveAll(tmp)
	store, err := opts.NewStore(ctx, tmp)
	if err != nil {
		return EvalRun{}, fmt.Errorf("evaluate %s: %w", cfg.Name, err)
	}
	defer store.Close()
	eo, err := opts.EngineOptions(cfg, store)
	if err != nil {
		return EvalRun{}, err
	}
	if cfg.Mode == ModeBM25 {
		eo.Embedder = nil // nothing to embed for the BM25 arm alone
	}
	if cfg.Rerank && eo.Reranker == nil {
		return EvalRun{}, fmt.Errorf("configuration %q needs a reranker: %w", cfg.Name, ErrInvalid)
	}
	switch cfg.Contexts {
	case EvalRaw, EvalProvided, EvalTitle:
		eo.Contextualizer = nil
	}
	eng, err := Open(ctx, tmp, store, eo)
	if err != nil {
		return EvalRun{}, err
	}
	defer eng.Close()

	indexStart := time.Now()
	res, err := eng.Index(ctx, evalSource(ds, cfg, opts), IndexOptions{})
	if err != nil {
		return EvalRun{}, err
	}
	if opts.Skip != nil {
		for _, f := range res.Failures {
			opts.Skip(f.DocID, f.Err)
		}
	}
	indexTime := time.Since(indexStart)

	searchStart := time.Now()
	run, err := searchAll(ctx, eng, ds, opts.Depth, cfg)
	if err != nil {
		return EvalRun{}, err
	}
	result, perQ := eval.Evaluate(ds, run)
	result.Name = cfg.Name
	result.Settings = map[string]any{
		"contexts":        cfg.Contexts,
		"mode":            cfg.Mode,
		"rerank":          cfg.Rerank,
		"analyzer":        cmpOr(eo.Analyzer, "per language"),
		"bm25-k1":         eo.BM25K1,
		"bm25-b":          eo.BM25B,
		"context-weight":  eo.ContextWeight,
		"compound-weight": eo.CompoundWeight,
		"depth":           opts.Depth,
		"index-seconds":   indexTime.Seconds(),
		"search-seconds":  time.Since(searchStart).Seconds(),
	}
	if len(ds.Docs) > 0 && len(ds.Docs[0].Chunks) == 0 {
		result.Settings["chunk-size"] = eo.ChunkSize
		result.Settings["chunk-overlap"] = eo.ChunkOverlap
	}
	return EvalRun{Result: result, PerQuery: perQ}, nil
}

func cmpOr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// evalSource feeds a dataset's documents to Index: pre-chunked ones with
// the configuration's contexts, file ones read with opts.Read.
func evalSource(ds *eval.Dataset, cfg EvalConfig, opts EvalOptions) Source {
	return func(ctx context.Context, f *Feed) error {
		for _, d := range ds.Docs {
			doc := Document{ID: d.ID, Title: d.Title, Text: d.Text, Lang: d.Lang, Format: opts.DocFormat}
			var err error
			switch {
			case len(d.Chunks) > 0:
				chunks := make([]Chunk, len(d.Chunks))
				for j, ch := range d.Chunks {
					chunks[j] = Chunk{DocID: d.ID, Index: ch.Index, Start: max(ch.Start, 0), End: max(ch.End, 0), Text: ch.Text}
				}
				var contexts []Context
				switch cfg.Contexts {
				case EvalRaw:
					contexts = make([]Context, len(chunks))
				case EvalProvided:
					contexts = make([]Context, len(chunks))
					for j, ch := range d.Chunks {
						contexts[j] = Context{Text: ch.Context, Source: EvalProvided}
					}
				case EvalTitle:
					contexts = make([]Context, len(chunks))
					for j := range d.Chunks {
						contexts[j] = Context{Text: d.Title, Source: EvalTitle}
					}
				}
				err = f.AddChunks(doc, chunks, contexts)
			case d.Path != "":
				if opts.Read == nil {
					f.Skip(fmt.Errorf("document %s: %s: no reader for files: %w", d.ID, d.Path, ErrInvalid))
					continue
				}
				doc, rerr := opts.Read(ctx, d.Path, d.ID)
				if rerr != nil {
					if opts.Skip != nil {
						opts.Skip(d.ID, rerr)
					}
					continue
				}
				if d.Lang != "" {
					doc.Lang = d.Lang
				}
				err = f.Add(doc, "")
			default:
				err = f.Add(doc, "")
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// searchAll runs every query of ds with the configuration's mode.
func searchAll(ctx context.Context, eng *Engine, ds *eval.Dataset, depth int, cfg EvalConfig) (eval.Run, error) {
	run := make(eval.Run, len(ds.Queries))
	var mu sync.Mutex
	var firstErr error
	work := make(chan int)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				q := ds.Queries[i]
				hits, err := eng.Search(ctx, Query{Text: q.Text, K: depth, Mode: cfg.Mode, Rerank: cfg.Rerank})
				ranked := make([]eval.Ranked, len(hits))
				for j, h := range hits {
					ranked[j] = eval.Ranked{DocID: h.DocID, Chunk: h.Chunk, Text: h.Text}
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("query %s: %w", q.ID, err)
				}
				run[q.ID] = ranked
				mu.Unlock()
			}
		}()
	}
	for i := range ds.Queries {
		work <- i
	}
	close(work)
	wg.Wait()
	return run, firstErr
}
