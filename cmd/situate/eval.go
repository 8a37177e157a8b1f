package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/situate/situate/harness"

	"github.com/situate/situate"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/wiring"
)

func runEval(ctx context.Context, e *env, args []string) error {
	if generateRequested(args) { // --generate N: make the questions (generate.go)
		return runGenerate(ctx, e, args)
	}
	c := newConfig()
	fs := newFlagSet("eval", "",
		"Measure retrieval on reference questions. Builds a temporary index per configuration, runs every query\n"+
			"and reports Pass@k (cookbook), recall@k, hit@k, MRR@10, nDCG@10, MAP and P@30.\n\n"+
			"Datasets:\n"+
			"  --format anthropic --chunks codebase_chunks.json --queries evaluation_set.jsonl [--contexts contexts.json]\n"+
			"  --format trec --docs DIR|TAR.GZ|JSONL --topics F --qrels F\n"+
			"  --format squad --file xquad.en.json [--lang en]\n"+
			"  --format answers --docs DIR --queries queries.jsonl [--include GLOB] [--exclude GLOB]\n"+
			"  --generate N --llm PROVIDER:MODEL [--seed S] [--out FILE] PATH|--store DIR  (write reference questions for your documents)")
	c.flags(fs, append([]string{"config", "chunk-size", "chunk-overlap", "contextualizer", "analyzer", "bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe", "parallel", "include", "exclude"}, wiring.LLMSettings...)...)
	c.flags(fs, wiring.DenseSettings...)
	c.flags(fs, wiring.IndexSettings...)
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
		opts := ingest.Options{Include: c.list("include"), Exclude: c.list("exclude")}
		if err := opts.Validate(); err != nil {
			return usageError{Err: err}
		}
		if err := allDocuments(ctx, e, ds, *docsPath, *queriesPath, opts); err != nil {
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

	configs, err := wiring.EvalConfigs(c, ds, *configList, *compare)
	if err != nil {
		return err
	}
	if *depth <= 0 {
		*depth = 100
		if *format == "trec" {
			*depth = 1000
		}
	}
	pdfx := pdf.New(pdf.Options{})
	defer pdfx.Close() // releases PDFium's WebAssembly runtime, if a PDF started it
	var results []eval.Result
	for _, name := range configs {
		cfg, err := harness.ParseConfig(name)
		if err != nil {
			return usageError{Err: err}
		}
		run, err := harness.Evaluate(ctx, ds, cfg, wiring.EvalOptions(c, e.wiring(), pdfx, *docFormat, *depth, warnLogger(e.stderr), func(id string, err error) { fmt.Fprintf(e.stderr, "skip document %s: %v\n", id, err) }))
		if err != nil {
			if errors.Is(err, situate.ErrInvalid) {
				return usageError{Err: fmt.Errorf("%s: %w", name, err)}
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		run.Result.Settings["recipe"] = c.str("recipe")
		results = append(results, run.Result)
		if *perQuery {
			fmt.Fprintf(e.stdout, "== %s\n", name)
			if err := eval.WritePerQuery(e.stdout, run.PerQuery, *missedOnly); err != nil {
				return err
			}
		}
	}
	if *asJSON {
		if err := eval.WriteJSON(e.stdout, results); err != nil {
			return err
		}
	} else {
		// A dataset of whole documents (answers, squad, trec) is chunked by
		// each configuration: it has no chunks of its own to count.
		chunks := "chunked by situate"
		if n := ds.NumChunks(); n > 0 {
			chunks = fmt.Sprintf("%d chunks", n)
		}
		fmt.Fprintf(e.stdout, "dataset %s: %d documents, %s, %d queries (%d skipped records)\n\n",
			ds.Name, len(ds.Docs), chunks, len(ds.Queries), len(ds.Skipped))
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

// allDocuments replaces an answers dataset's documents with every file under
// dir that "situate index" would index with the same --include and --exclude
// globs (ingest.EvalDocuments). A question whose document is not among them
// is a usage error: it could never be answered.
func allDocuments(ctx context.Context, e *env, ds *eval.Dataset, dir, queries string, opts ingest.Options) error {
	err := ingest.EvalDocuments(ctx, ds, dir, queries, opts, func(err error) { fmt.Fprintf(e.stderr, "skip %v\n", err) })
	if errors.Is(err, situate.ErrInvalid) {
		return usageError{Err: err}
	}
	return err
}
