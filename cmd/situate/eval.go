package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// Evaluation configurations --compare can run. Each is a way of producing
// the contexts that go into the index; everything else is the same.
const (
	configRaw      = "raw"      // no context: the "before" of every comparison
	configOffline  = "offline"  // situate's extractive offline contextualizer
	configProvided = "provided" // contexts shipped with the dataset (--contexts)
	configTitle    = "title"    // the document title as the context
	configLLM      = "llm"      // contexts written by the model named by --llm
)

// A configuration name is a context source optionally followed by search
// stages: "provided+dense", "provided+hybrid+rerank". Without a stage the
// BM25 arm alone is measured.
const (
	stageDense  = "dense"
	stageHybrid = "hybrid"
	stageRerank = "rerank"
)

// parseConfig splits a configuration name into its context source, search
// mode and whether results are reranked.
func parseConfig(name string) (contexts, mode string, rerank bool, err error) {
	parts := strings.Split(name, "+")
	contexts, mode = parts[0], situate.ModeBM25
	for _, p := range parts[1:] {
		switch p {
		case stageDense:
			mode = situate.ModeDense
		case stageHybrid:
			mode = situate.ModeHybrid
		case stageRerank:
			rerank = true
		default:
			return "", "", false, usagef("configuration %q: unknown stage %q (want dense, hybrid or rerank)", name, p)
		}
	}
	return contexts, mode, rerank, nil
}

func runEval(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("eval", "",
		"Measure retrieval on reference questions. Builds a temporary index per configuration, runs every query\n"+
			"and reports Pass@k (cookbook), recall@k, hit@k, MRR@10, nDCG@10, MAP and P@30.\n\n"+
			"Datasets:\n"+
			"  --format anthropic --chunks codebase_chunks.json --queries evaluation_set.jsonl [--contexts contexts.json]\n"+
			"  --format trec --docs DIR|TAR.GZ|JSONL --topics F --qrels F\n"+
			"  --format squad --file xquad.en.json [--lang en]\n"+
			"  --format answers --docs DIR --queries queries.jsonl")
	c.flags(fs, append([]string{"config", "chunk-size", "chunk-overlap", "contextualizer", "analyzer", "bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe", "parallel"}, llmSettings...)...)
	c.flags(fs, denseSettings...)
	format := fs.String("format", "", "dataset format: anthropic, trec, squad or answers")
	chunksPath := fs.String("chunks", "", "anthropic: codebase_chunks.json")
	queriesPath := fs.String("queries", "", "anthropic: evaluation_set.jsonl; answers: queries JSONL")
	contextsPath := fs.String("contexts", "", "anthropic: contexts file (contexts_claude3haiku.json shape)")
	docsPath := fs.String("docs", "", "trec: documents (directory, .tar.gz or JSONL); answers: document directory")
	topicsPath := fs.String("topics", "", "trec: topics file")
	qrelsPath := fs.String("qrels", "", "trec: qrels file")
	filePath := fs.String("file", "", "squad: SQuAD v1.1 JSON file")
	lang := fs.String("lang", "", "language of the dataset's documents (default: detect per document)")
	docFormat := fs.String("doc-format", "", "format of pre-chunked documents for the contextualizer (anthropic default: code)")
	compare := fs.Bool("compare", false, "run every configuration that applies to the dataset side by side (raw, offline, title, provided)")
	configList := fs.String("configs", "", "comma-separated configurations to run side by side: raw, offline, title, provided, llm; with --embed also SOURCE+dense, SOURCE+hybrid, SOURCE+hybrid+rerank")
	depth := fs.Int("depth", 0, "results retrieved per query (default 100; trec 1000)")
	half := fs.String("half", "", "evaluate only one half of the queries: tune or report (deterministic split)")
	asJSON := fs.Bool("json", false, "print {\"configs\":[{name, settings, metrics}]}")
	perQuery := fs.Bool("per-query", false, "print every query's golden and retrieved ids, and what was missed")
	missedOnly := fs.Bool("missed", false, "with --per-query: only queries that missed a golden item")
	reportDir := fs.String("report", "", "write report.md, failure.svg and results.json into this directory")
	if _, err := c.parse(e, fs, args); err != nil {
		return err
	}
	start := time.Now()
	ds, err := loadDataset(*format, *chunksPath, *queriesPath, *contextsPath, *docsPath, *topicsPath, *qrelsPath, *filePath, *lang)
	if err != nil {
		return err
	}
	if *format == "answers" {
		// Every document of the folder is indexed, not only those the
		// questions name: the others compete for the top ranks, as in use.
		if err := allDocuments(ctx, e, ds, *docsPath, *queriesPath); err != nil {
			return err
		}
	}
	for _, s := range ds.Skipped {
		fmt.Fprintf(e.stderr, "skipped %s\n", s)
	}
	switch *half {
	case "":
	case "tune", "report":
		tune, report := eval.Split(ds.Queries, "situate")
		if *half == "tune" {
			ds = ds.WithQueries(tune)
		} else {
			ds = ds.WithQueries(report)
		}
	default:
		return usagef("--half %q: must be tune or report", *half)
	}
	if *docFormat == "" && *format == "anthropic" {
		*docFormat = situate.FormatCode
	}

	configs, err := evalConfigs(c, ds, *configList, *compare)
	if err != nil {
		return err
	}
	if *depth <= 0 {
		*depth = 100
		if *format == "trec" {
			*depth = 1000
		}
	}
	var results []eval.Result
	for _, name := range configs {
		res, perQ, err := evalOne(ctx, e, c, ds, name, *docFormat, *depth)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results = append(results, res)
		if *perQuery {
			fmt.Fprintf(e.stdout, "== %s\n", name)
			if err := eval.WritePerQuery(e.stdout, perQ, *missedOnly); err != nil {
				return err
			}
		}
	}
	if *asJSON {
		if err := eval.WriteJSON(e.stdout, results); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "dataset %s: %d documents, %d chunks, %d queries (%d skipped records)\n\n",
			ds.Name, len(ds.Docs), ds.NumChunks(), len(ds.Queries), len(ds.Skipped))
		if err := eval.WriteTable(e.stdout, results); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout)
		if err := eval.WriteMetricsTable(e.stdout, results, nil); err != nil {
			return err
		}
	}
	if *reportDir != "" {
		notes := []string{
			fmt.Sprintf("dataset: %s (%d documents, %d queries%s)", ds.Name, len(ds.Docs), len(ds.Queries), halfNote(*half)),
			"command: situate eval " + strings.Join(args, " "),
			fmt.Sprintf("go: %s, %s/%s, %d CPUs", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU()),
			"no LLM was called: token and cost figures do not apply",
		}
		if err := eval.WriteReport(*reportDir, eval.Report{Title: "situate eval: " + ds.Name, Notes: notes, Results: results}); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "report written to %s\n", filepath.Join(*reportDir, eval.ReportFile))
	}
	fmt.Fprintf(e.stderr, "eval finished in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func halfNote(h string) string {
	if h == "" {
		return ""
	}
	return ", " + h + " half"
}

func loadDataset(format, chunks, queries, contexts, docs, topics, qrels, file, lang string) (*eval.Dataset, error) {
	need := func(pairs ...string) error {
		for i := 0; i < len(pairs); i += 2 {
			if pairs[i+1] == "" {
				return usagef("--format %s needs --%s", format, pairs[i])
			}
		}
		return nil
	}
	switch format {
	case "anthropic":
		if err := need("chunks", chunks, "queries", queries); err != nil {
			return nil, err
		}
		return eval.LoadAnthropic(chunks, queries, contexts)
	case "trec":
		if err := need("docs", docs, "topics", topics, "qrels", qrels); err != nil {
			return nil, err
		}
		return eval.LoadTREC(docs, topics, qrels)
	case "squad":
		if err := need("file", file); err != nil {
			return nil, err
		}
		return eval.LoadSQuAD(file, lang)
	case "answers":
		if err := need("docs", docs, "queries", queries); err != nil {
			return nil, err
		}
		return eval.LoadAnswers(docs, queries)
	case "":
		return nil, usagef("--format: required (anthropic, trec, squad or answers)")
	default:
		return nil, usagef("--format %q: must be anthropic, trec, squad or answers", format)
	}
}

func hasProvidedContexts(ds *eval.Dataset) bool {
	for _, d := range ds.Docs {
		for _, ch := range d.Chunks {
			if ch.Context != "" {
				return true
			}
		}
	}
	return false
}

// evalConfigs resolves which configurations to run. Without --compare the
// configured contextualizer runs, or the provided contexts when there are.
func evalConfigs(c *config, ds *eval.Dataset, compare string, all bool) ([]string, error) {
	provided := hasProvidedContexts(ds)
	titled := false
	for _, d := range ds.Docs {
		if d.Title != "" && len(d.Chunks) > 0 {
			titled = true
			break
		}
	}
	applicable := []string{configRaw, configOffline}
	if c.str("llm") != "" {
		applicable = append(applicable, configLLM)
	}
	if titled {
		applicable = append(applicable, configTitle)
	}
	if provided {
		applicable = append(applicable, configProvided)
	}
	if c.str("embed") != "" {
		// The cookbook's comparison: basic embeddings, contextual embeddings,
		// + contextual BM25 (hybrid), + rerank.
		best := configOffline
		if c.str("llm") != "" {
			best = configLLM
		}
		if provided {
			best = configProvided
		}
		applicable = append(applicable, configRaw+"+"+stageDense, best+"+"+stageDense, best+"+"+stageHybrid)
		if c.str("rerank") != "" {
			applicable = append(applicable, best+"+"+stageHybrid+"+"+stageRerank)
		}
	}
	if all {
		return applicable, nil
	}
	if compare == "" {
		if provided && c.settings["contextualizer"].origin == "default" {
			return []string{configProvided}, nil
		}
		name := c.str("contextualizer")
		if c.str("llm") != "" && c.settings["contextualizer"].origin == "default" {
			name = configLLM
		}
		if name == "none" {
			name = configRaw
		}
		return []string{name}, nil
	}
	var out []string
	for _, name := range splitList(compare) {
		base, _, _, err := parseConfig(name)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(applicable, base) || (name != base && c.str("embed") == "") {
			return nil, usagef("--configs %s: not available for this dataset (available: %s)", name, strings.Join(applicable, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// evalOne builds a temporary store and in-memory index for one
// configuration, indexes the dataset and runs every query.
func evalOne(ctx context.Context, e *env, c *config, ds *eval.Dataset, name, docFormat string, depth int) (eval.Result, []eval.QueryResult, error) {
	contexts, mode, rerank, err := parseConfig(name)
	if err != nil {
		return eval.Result{}, nil, err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tmp, err := os.MkdirTemp("", "situate-eval-")
	if err != nil {
		return eval.Result{}, nil, err
	}
	defer os.RemoveAll(tmp)
	store, err := sqlite.Open(ctx, filepath.Join(tmp, storeFile))
	if err != nil {
		return eval.Result{}, nil, err
	}
	defer store.Close()
	opts, err := engineOptions(c, e, store, log)
	if err != nil {
		return eval.Result{}, nil, err
	}
	if mode == situate.ModeBM25 {
		opts.Embedder = nil // nothing to embed for the BM25 arm alone
	}
	if rerank && opts.Reranker == nil {
		return eval.Result{}, nil, usagef("configuration %q needs --rerank", name)
	}
	switch contexts {
	case configRaw, configProvided, configTitle:
		opts.Contextualizer = nil
	case configOffline:
		opts.Contextualizer = offline.New(offline.DefaultOptions())
	case configLLM:
		// engineOptions built the LLM contextualizer from --llm.
	default:
		return eval.Result{}, nil, usagef("unknown configuration %q", name)
	}
	eng, err := situate.Open(ctx, "", store, opts)
	if err != nil {
		return eval.Result{}, nil, err
	}
	defer eng.Close()

	indexStart := time.Now()
	if err := indexDataset(ctx, e, eng, ds, contexts, docFormat); err != nil {
		return eval.Result{}, nil, err
	}
	indexTime := time.Since(indexStart)

	searchStart := time.Now()
	run, err := searchAll(ctx, eng, ds, depth, mode, rerank)
	if err != nil {
		return eval.Result{}, nil, err
	}
	res, perQ := eval.Evaluate(ds, run)
	res.Name = name
	res.Settings = map[string]any{
		"contexts":        contexts,
		"mode":            mode,
		"rerank":          rerank,
		"analyzer":        orDefault(opts.Analyzer, "per language"),
		"bm25-k1":         opts.BM25K1,
		"bm25-b":          opts.BM25B,
		"context-weight":  opts.ContextWeight,
		"compound-weight": opts.CompoundWeight,
		"recipe":          c.str("recipe"),
		"depth":           depth,
		"index-seconds":   indexTime.Seconds(),
		"search-seconds":  time.Since(searchStart).Seconds(),
	}
	if len(ds.Docs) > 0 && len(ds.Docs[0].Chunks) == 0 {
		res.Settings["chunk-size"] = opts.ChunkSize
		res.Settings["chunk-overlap"] = opts.ChunkOverlap
	}
	return res, perQ, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func indexDataset(ctx context.Context, e *env, eng *situate.Engine, ds *eval.Dataset, config, docFormat string) error {
	parallel := eng.Options().ParallelDocuments
	work := make(chan int)
	errs := make(chan error, parallel)
	var wg sync.WaitGroup
	pdfx := pdf.New(pdf.Options{})
	defer pdfx.Close() // releases PDFium's WebAssembly runtime, if a PDF started it
	ingestOpts := ingest.Options{PDF: pdfx}
	var failMu sync.Mutex
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				d := ds.Docs[i]
				doc := situate.Document{ID: d.ID, Title: d.Title, Text: d.Text, Lang: d.Lang, Format: docFormat}
				var err error
				switch {
				case len(d.Chunks) > 0:
					chunks := make([]situate.Chunk, len(d.Chunks))
					for j, ch := range d.Chunks {
						chunks[j] = situate.Chunk{DocID: d.ID, Index: ch.Index, Start: max(ch.Start, 0), End: max(ch.End, 0), Text: ch.Text}
					}
					var contexts []situate.Context
					switch config {
					case configRaw:
						contexts = make([]situate.Context, len(chunks))
					case configProvided:
						contexts = make([]situate.Context, len(chunks))
						for j, ch := range d.Chunks {
							contexts[j] = situate.Context{Text: ch.Context, Source: "provided"}
						}
					case configTitle:
						contexts = make([]situate.Context, len(chunks))
						for j := range d.Chunks {
							contexts[j] = situate.Context{Text: d.Title, Source: "title"}
						}
					}
					if doc.Format == "" {
						doc.Format = situate.FormatText
					}
					_, err = eng.PutChunks(ctx, doc, chunks, contexts)
				case d.Path != "":
					doc, err = ingest.ParseFile(ctx, d.Path, d.ID, ingestOpts)
					if err == nil {
						if d.Lang != "" {
							doc.Lang = d.Lang
						}
						_, err = eng.Put(ctx, doc)
					}
				default:
					if doc.Format == "" {
						doc.Format = situate.FormatText
					}
					_, err = eng.Put(ctx, doc)
				}
				if err != nil {
					failMu.Lock()
					fmt.Fprintf(e.stderr, "skip document %s: %v\n", d.ID, err)
					failMu.Unlock()
				}
			}
		}()
	}
	for i := range ds.Docs {
		select {
		case work <- i:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	return ctx.Err()
}

func searchAll(ctx context.Context, eng *situate.Engine, ds *eval.Dataset, depth int, mode string, rerank bool) (eval.Run, error) {
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
				hits, err := eng.Search(ctx, situate.Query{Text: q.Text, K: depth, Mode: mode, Rerank: rerank})
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

// allDocuments replaces an answers dataset's documents with every file under
// dir that "situate index" would index (ignore files honoured), leaving out
// the queries file itself.
func allDocuments(ctx context.Context, e *env, ds *eval.Dataset, dir, queries string) error {
	qabs, _ := filepath.Abs(queries)
	var docs []eval.Doc
	err := ingest.Walk(ctx, []string{dir}, ingest.Options{}, func(doc situate.Document, err error) error {
		if err != nil {
			fmt.Fprintf(e.stderr, "skip %v\n", err)
			return nil
		}
		if abs, _ := filepath.Abs(doc.Path); abs == qabs {
			return nil
		}
		docs = append(docs, eval.Doc{ID: doc.ID, Path: doc.Path})
		return nil
	})
	if err != nil {
		return fmt.Errorf("answers: walk %s: %w", dir, err)
	}
	ds.Docs = docs
	return nil
}
