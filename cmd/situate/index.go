package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/report"
	"github.com/situate/situate/wiring"
)

func runIndex(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("index", "PATH... | - | FILE.jsonl",
		"Index files and directories (recursively, honouring .gitignore and .situateignore), JSONL files\n"+
			"({\"id\",\"text\",\"title\",\"metadata\"} per line) or stdin ('-'). Unchanged documents are skipped;\n"+
			"a changed document is re-chunked and re-contextualized as a whole.")
	c.flags(fs, "store", "store-url", "config", "chunk-size", "chunk-overlap", "contextualizer", "analyzer",
		"bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe", "parallel", "include", "exclude", "max-file-size")
	c.flags(fs, wiring.LLMSettings...)
	c.flags(fs, wiring.DenseSettings...)
	c.flags(fs, wiring.IndexSettings...)
	groupFlags(fs, "Index backend (--index weaviate)", wiring.IndexSettings...)
	prune := fs.Bool("prune", false, "remove indexed documents that were not found in this run")
	strict := fs.Bool("strict", false, "exit non-zero when any file was skipped (files skipped by earlier runs are read again)")
	allowFallback := fs.Bool("allow-fallback", false, "exit 0 even when chunks got the offline context because their LLM calls failed (the next run retries them)")
	stdinID := fs.String("id", "stdin", "document id for text read from stdin")
	quiet := fs.Bool("quiet", false, "print only errors: no progress bar, no skipped files, no summary")
	verbose := fs.Bool("verbose", false, "list every skipped file with the reason, also those skipped by earlier runs (by default one line counts this run's by reason)")
	batch := fs.Bool("batch", false, "write LLM contexts through Anthropic's Message Batches (half price, may take hours; a restart resumes the batch)")
	batchPoll := fs.Duration("batch-poll", llm.DefaultBatchPoll, "how often --batch polls the batch")
	queue := fs.Bool("queue", false, "with --store-url: contextualize nothing here; store each new or changed document with a job for 'situate worker' processes")
	tenant := fs.String("tenant", "", "with --queue: queue into this tenant of a serve with keys (its schema situate_tenant_NAME)")
	groupFlags(fs, "Which files", "include", "exclude", "max-file-size", "id")
	groupFlags(fs, "Shared store (--store-url): queue for workers", "store-url", "queue", "tenant")
	groupFlags(fs, "Chunks, contexts and BM25", "chunk-size", "chunk-overlap", "contextualizer", "analyzer",
		"bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe", "parallel")
	groupFlags(fs, "With --llm: the model that writes the contexts", append(slices.Clone(wiring.LLMSettings), "batch", "batch-poll", "allow-fallback")...)
	groupFlags(fs, "With --embed: contextual embeddings", wiring.DenseSettings...)
	prof := profileFlags(fs)
	paths, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if err := prof.start(); err != nil {
		return err
	}
	defer func() {
		if perr := prof.stop(); perr != nil {
			fmt.Fprintf(e.stderr, "situate index: %s\n", perr)
		}
	}()
	if len(paths) == 0 {
		return usagef("no PATH given")
	}
	maxSize, err := c.int("max-file-size")
	if err != nil {
		return err
	}
	pdfx := pdf.New(pdf.Options{})
	defer pdfx.Close() // releases PDFium's WebAssembly runtime, if a PDF started it
	ingestOpts := ingest.Options{Include: c.list("include"), Exclude: c.list("exclude"),
		MaxFileSize: int64(maxSize), PDF: pdfx}
	if err := ingestOpts.Validate(); err != nil {
		return usageError{Err: err}
	}

	if *tenant != "" && !*queue {
		return usagef("--tenant works with --queue only")
	}
	if *queue {
		if *batch {
			return usagef("--batch cannot be used with --queue: the workers write the contexts")
		}
		src := ingest.Source(paths, ingest.SourceOptions{Options: ingestOpts, Stdin: e.stdin, StdinID: *stdinID,
			SkipDir: c.storeDir(e), Reread: *verbose || *strict})
		return queueIndex(ctx, e, c, src, *tenant, *prune, *strict, *quiet, *verbose)
	}

	eng, store, err := openEngine(ctx, e, c, true)
	if err != nil {
		return err
	}
	defer store.Close()
	defer eng.Close()

	_, llmConfigured := eng.Options().Contextualizer.(*llm.Contextualizer)
	opts := situate.IndexOptions{Prune: *prune, RetryFallbacks: llmConfigured}
	if *batch {
		if opts.Batch, err = newBatch(c, e, store, *batchPoll, *quiet); err != nil {
			return err
		}
	}
	prog := newIndexProgress(e.stderr, *quiet, *verbose)
	opts.Progress = prog.event
	storeDir := c.storeDir(e)
	src := ingest.Source(paths, ingest.SourceOptions{Options: ingestOpts, Stdin: e.stdin, StdinID: *stdinID, SkipDir: storeDir, Reread: *verbose || *strict})
	res, err := eng.Index(ctx, src, opts)
	prog.done()
	if !*quiet && e.tally != nil && e.tally.Calls() > 0 {
		fmt.Fprintf(e.stderr, "llm: %s\n", e.tally)
	}
	if s := llmSummary(e); s != "" && !*quiet {
		fmt.Fprintf(e.stderr, "llm: %s\n", s)
		// Only documents whose chunks or contexts came out different get a
		// new version.
		fmt.Fprintf(e.stderr, "llm: %d %s got other contexts (new version), %d kept %s (same version)\n",
			res.Updated, report.Plural(res.Updated, "document", "documents"), res.Unchanged, report.Plural(res.Unchanged, "its", "theirs"))
	}
	if s := report.Index(res, err, storeDir); !*quiet && s != "" {
		fmt.Fprintln(e.stderr, s)
	}
	if !*quiet {
		if s := prog.skipSummary(); s != "" {
			fmt.Fprintln(e.stderr, s)
		}
	}
	if res.PruneWithheld {
		fmt.Fprintln(e.stderr, pruneWithheld)
	}
	if err != nil {
		return err
	}
	if res.Fallbacks > 0 && !*allowFallback {
		fmt.Fprintf(e.stderr, "situate index: %d chunks fell back to the offline context (flagged %q); run again to retry them, or pass --allow-fallback to accept them\n", res.Fallbacks, situate.FlagFallback)
		return errAlreadyReported
	}
	if res.Failed > 0 || res.PruneWithheld || (*strict && len(res.Skipped)+res.SkippedBefore > 0) {
		return errAlreadyReported
	}
	return nil
}

// pruneWithheld is the error of an index --prune run that could not list a
// directory under its paths (IndexResult.PruneWithheld).
const pruneWithheld = "situate index: --prune removed nothing: a directory could not be read (see the skipped files), so which documents are gone is unknown"
