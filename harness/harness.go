package harness

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/eval"
)

// Evaluation context sources: how a configuration makes the contexts that
// go into its index; everything else is the same.
const (
	Raw      = "raw"      // no context: the "before" of every comparison
	Offline  = "offline"  // the offline contextualizer
	Provided = "provided" // contexts shipped with the dataset
	Title    = "title"    // the document title as the context
	LLM      = "llm"      // contexts written by a model
)

// Evaluation search stages a configuration name may add to its source:
// "provided+dense", "offline+hybrid+rerank". Without one, BM25 alone.
const (
	Dense  = "dense"
	Hybrid = "hybrid"
	Rerank = "rerank"
)

// DefaultDepth is how many results an evaluation retrieves per query.
const DefaultDepth = 100

// Config is one configuration an evaluation measures.
type Config struct {
	// Name is the configuration as written: source[+stage...].
	Name string
	// Contexts is the context source (Eval* source constants).
	Contexts string
	// Mode is the search mode (situate.ModeBM25, situate.ModeDense, situate.ModeHybrid).
	Mode   string
	Rerank bool
}

// ParseConfig parses a configuration name: a context source optionally
// followed by search stages ("provided+hybrid+rerank").
func ParseConfig(name string) (Config, error) {
	parts := strings.Split(name, "+")
	cfg := Config{Name: name, Contexts: parts[0], Mode: situate.ModeBM25}
	switch cfg.Contexts {
	case Raw, Offline, Provided, Title, LLM:
	default:
		return cfg, fmt.Errorf("configuration %q: unknown context source %q (want raw, offline, provided, title or llm): %w", name, cfg.Contexts, situate.ErrInvalid)
	}
	for _, p := range parts[1:] {
		switch p {
		case Dense:
			cfg.Mode = situate.ModeDense
		case Hybrid:
			cfg.Mode = situate.ModeHybrid
		case Rerank:
			cfg.Rerank = true
		default:
			return cfg, fmt.Errorf("configuration %q: unknown stage %q (want dense, hybrid or rerank): %w", name, p, situate.ErrInvalid)
		}
	}
	return cfg, nil
}

// Available says what an evaluation can use beyond the offline
// contextualizer.
type Available struct {
	LLM, Embedder, Reranker bool
}

// Configs lists the configurations that apply to ds, in the order a
// comparison shows them: raw, offline, llm, title (when documents have
// titles), provided (when the dataset ships contexts); with an embedder the
// cookbook's comparison (basic embeddings, contextual embeddings, + BM25
// hybrid, + rerank) on the best context source.
func Configs(ds *eval.Dataset, av Available) []string {
	provided := HasProvidedContexts(ds)
	titled := slices.ContainsFunc(ds.Docs, func(d eval.Doc) bool { return d.Title != "" && len(d.Chunks) > 0 })
	out := []string{Raw, Offline}
	if av.LLM {
		out = append(out, LLM)
	}
	if titled {
		out = append(out, Title)
	}
	if provided {
		out = append(out, Provided)
	}
	if av.Embedder {
		best := Offline
		if av.LLM {
			best = LLM
		}
		if provided {
			best = Provided
		}
		out = append(out, Raw+"+"+Dense, best+"+"+Dense, best+"+"+Hybrid)
		if av.Reranker {
			out = append(out, best+"+"+Hybrid+"+"+Rerank)
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

// Options configure Evaluate.
type Options struct {
	// Depth is how many results are retrieved per query (default
	// DefaultDepth).
	Depth int
	// DocFormat is the format of documents that do not say (default
	// situate.FormatText).
	DocFormat string
	// NewStore opens an empty store in dir, a fresh temporary directory
	// per configuration; the engine's indexes live beside it, as in a
	// store that situate index builds.
	NewStore func(ctx context.Context, dir string) (driver.Store, error)
	// EngineOptions returns the engine options of a configuration over its
	// store: the same as indexing and searching use. Evaluate drops the
	// contextualizer for the raw, provided and title sources and the
	// embedder for BM25-only configurations.
	EngineOptions func(cfg Config, store driver.Store) (situate.Options, error)
	// Read parses a dataset document that names a file (answers sets).
	Read func(ctx context.Context, path, id string) (situate.Document, error)
	// Skip, when set, receives every document that could not be indexed.
	Skip func(docID string, err error)
	// TempDir is where temporary stores are made (default os.TempDir()).
	TempDir string
}

// Run is one configuration's measurement.
type Run struct {
	Result   eval.Result
	PerQuery []eval.QueryResult
}

// Evaluate measures one configuration on ds through the product path: a
// fresh store and index in a temporary directory, the dataset indexed with
// situate.Engine.Index, every query searched with situate.Engine.Search, then scored by
// package eval. The temporary directory is removed afterwards.
func Evaluate(ctx context.Context, ds *eval.Dataset, cfg Config, opts Options) (Run, error) {
	if opts.NewStore == nil || opts.EngineOptions == nil {
		return Run{}, fmt.Errorf("evaluate: NewStore and EngineOptions are required: %w", situate.ErrInvalid)
	}
	if opts.Depth <= 0 {
		opts.Depth = DefaultDepth
	}
	if opts.DocFormat == "" {
		opts.DocFormat = situate.FormatText
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "situate-eval-")
	if err != nil {
		return Run{}, fmt.Errorf("evaluate %s: %w", cfg.Name, err)
	}
	defer os.RemoveAll(tmp)
	store, err := opts.NewStore(ctx, tmp)
	if err != nil {
		return Run{}, fmt.Errorf("evaluate %s: %w", cfg.Name, err)
	}
	defer store.Close()
	eo, err := opts.EngineOptions(cfg, store)
	if err != nil {
		return Run{}, err
	}
	if cfg.Mode == situate.ModeBM25 {
		eo.Embedder = nil // nothing to embed for the BM25 arm alone
	}
	if cfg.Rerank && eo.Reranker == nil {
		return Run{}, fmt.Errorf("configuration %q needs a reranker: %w", cfg.Name, situate.ErrInvalid)
	}
	switch cfg.Contexts {
	case Raw, Provided, Title:
		eo.Contextualizer = nil
	}
	eng, err := situate.Open(ctx, tmp, store, eo)
	if err != nil {
		return Run{}, err
	}
	defer eng.Close()

	indexStart := time.Now()
	res, err := eng.Index(ctx, evalSource(ds, cfg, opts), situate.IndexOptions{})
	if err != nil {
		return Run{}, err
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
		return Run{}, err
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
	return Run{Result: result, PerQuery: perQ}, nil
}

func cmpOr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// evalSource feeds a dataset's documents to Index: pre-chunked ones with
// the configuration's contexts, file ones read with opts.Read.
func evalSource(ds *eval.Dataset, cfg Config, opts Options) situate.Source {
	return func(ctx context.Context, f *situate.Feed) error {
		for _, d := range ds.Docs {
			doc := situate.Document{ID: d.ID, Title: d.Title, Text: d.Text, Lang: d.Lang, Format: opts.DocFormat}
			var err error
			switch {
			case len(d.Chunks) > 0:
				chunks := make([]situate.Chunk, len(d.Chunks))
				for j, ch := range d.Chunks {
					chunks[j] = situate.Chunk{DocID: d.ID, Index: ch.Index, Start: max(ch.Start, 0), End: max(ch.End, 0), Text: ch.Text}
				}
				var contexts []situate.Context
				switch cfg.Contexts {
				case Raw:
					contexts = make([]situate.Context, len(chunks))
				case Provided:
					contexts = make([]situate.Context, len(chunks))
					for j, ch := range d.Chunks {
						contexts[j] = situate.Context{Text: ch.Context, Source: Provided}
					}
				case Title:
					contexts = make([]situate.Context, len(chunks))
					for j := range d.Chunks {
						contexts[j] = situate.Context{Text: d.Title, Source: Title}
					}
				}
				err = f.AddChunks(doc, chunks, contexts)
			case d.Path != "":
				if opts.Read == nil {
					f.Skip(fmt.Errorf("document %s: %s: no reader for files: %w", d.ID, d.Path, situate.ErrInvalid))
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
func searchAll(ctx context.Context, eng *situate.Engine, ds *eval.Dataset, depth int, cfg Config) (eval.Run, error) {
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
				hits, err := eng.Search(ctx, situate.Query{Text: q.Text, K: depth, Mode: cfg.Mode, Rerank: cfg.Rerank})
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
