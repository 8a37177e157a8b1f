package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/questions"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/wiring"
)

// generateRequested says whether "eval" was asked to generate questions
// (--generate N) rather than to run a dataset.
func generateRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "generate" {
			return true
		}
	}
	return false
}

// runGenerate is "situate eval --generate N": reference questions for the
// user's own documents, written in the answers format that
// "situate eval --format answers" reads. The work is questions.Generate.
func runGenerate(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("eval --generate", "N --llm PROVIDER:MODEL [PATH | --store DIR]",
		"Generate reference questions for your own documents: sample N chunks (stratified by language and\n"+
			"format, reproducible with --seed), ask the model for one question each in the document's language,\n"+
			"drop those that fail a check, and write them as an answers dataset:\n"+
			"  situate eval --format answers --docs PATH --queries OUT --compare")
	c.flags(fs, "store", "config", "chunk-size", "chunk-overlap", "include", "exclude", "max-file-size")
	c.flags(fs, wiring.LLMSettings...)
	n := fs.Int("generate", 0, "number of chunks to sample (each gives at most one question)")
	seed := fs.Uint64("seed", 1, "sampling seed: the same seed, documents and model outputs give the same file")
	out := fs.String("out", "questions.jsonl", "dataset file to write (JSONL, answers format)")
	reportPath := fs.String("gen-report", "", "Markdown report of the generation (default: OUT with .md)")
	maxOverlap := fs.Float64("max-overlap", questions.DefaultMaxOverlap, "drop questions sharing more than this share of their terms with the chunk")
	review := fs.Bool("review", false, "list the kept questions and accept (y) or drop (n) each from stdin before writing")
	paths, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if *n <= 0 {
		return usagef("--generate: must be a positive number of questions, got %d", *n)
	}
	if c.str("llm") == "" {
		return usagef("--generate needs --llm PROVIDER:MODEL")
	}
	if len(paths) > 1 {
		return usagef("--generate takes one folder (its documents' ids are paths relative to it), got %d", len(paths))
	}
	if len(paths) == 1 {
		// The dataset names documents relative to this folder, which is
		// what "eval --format answers --docs" takes.
		if info, err := os.Stat(paths[0]); err != nil {
			return fmt.Errorf("generate: %w", err)
		} else if !info.IsDir() {
			return usagef("--generate: %s is not a folder (the dataset's documents are paths relative to a folder)", paths[0])
		}
	}
	models, err := wiring.NewLLM(c, e.wiring())
	if err != nil {
		return err
	}
	var store *sqlite.Store
	if s, err := openStoreOnly(ctx, e, c); err == nil {
		store = s
		defer store.Close()
	} else if len(paths) == 0 {
		return err
	}
	var docs []situate.Document
	if len(paths) == 1 {
		if docs, _, err = collectDocs(ctx, e, c, paths, "", false); err != nil {
			return err
		}
	} else {
		if docs, err = wiring.StoredDocuments(ctx, store, func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }); err != nil {
			return err
		}
	}
	if len(docs) == 0 {
		return fmt.Errorf("generate: no documents to ask about")
	}
	dcs, err := wiring.Split(c, docs)
	if err != nil {
		return err
	}
	srcs := make([]questions.Source, len(dcs))
	for i, d := range dcs {
		srcs[i] = questions.Source{Doc: d.Doc, Chunks: d.Chunks, Lang: d.Doc.Lang}
	}
	opts := questions.Options{N: *n, Seed: *seed, MaxOverlap: *maxOverlap}
	if opts.Concurrency, err = c.int("llm-concurrency"); err != nil {
		return err
	}
	if opts.MaxTokens, err = c.int("llm-max-tokens"); err != nil {
		return err
	}
	if opts.MaxCostUSD, err = c.float("max-cost"); err != nil {
		return err
	}
	prices, err := wiring.Prices(c)
	if err != nil {
		return err
	}
	if p, ok := prices.Lookup(c.str("llm")); ok {
		ttl := c.str("llm-cache-ttl")
		opts.Price = func(u situate.Usage) float64 { return p.Cost(u, ttl) }
	} else if opts.MaxCostUSD > 0 {
		return usagef("--max-cost: no price for %s (give one with --llm-price)", c.str("llm"))
	}
	if store != nil {
		opts.Usage = store // "situate usage" and "situate cost" see the calls
	}
	opts.Progress = func(done, total int) {
		if done%25 == 0 || done == total {
			fmt.Fprintf(e.stderr, "generate: %d/%d calls\n", done, total)
		}
	}
	gen, all, err := wiring.ProjectGeneration(c, dcs, srcs, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "generate: projected %d calls, %d input tokens (%d read from the prompt cache), $%.4f%s\n",
		gen.Calls, gen.PromptTokens, gen.CacheReadTokens, gen.CostUSD, wiring.PriceNote(gen))
	if opts.MaxCostUSD > 0 && gen.CostUSD > opts.MaxCostUSD {
		return fmt.Errorf("generate: projected cost $%.4f exceeds --max-cost $%.4f (ask for fewer questions with --generate)", gen.CostUSD, opts.MaxCostUSD)
	}
	res, genErr := questions.Generate(ctx, models[0], srcs, opts)
	if res == nil {
		return genErr
	}
	if genErr != nil {
		fmt.Fprintf(e.stderr, "generate: stopped early: %v (writing what was generated)\n", genErr)
	}
	if *review {
		if res.Items, err = reviewItems(e.stdin, e.stderr, res.Items); err != nil {
			return err
		}
	}
	outPath := *out
	if !filepath.IsAbs(outPath) {
		outPath = filepath.Join(e.workDir, outPath)
	}
	if err := questions.WriteDatasetFile(outPath, res.Items); err != nil {
		return err
	}
	rp := *reportPath
	if rp == "" {
		rp = strings.TrimSuffix(outPath, filepath.Ext(outPath)) + ".md"
	} else if !filepath.IsAbs(rp) {
		rp = filepath.Join(e.workDir, rp)
	}
	f, err := os.Create(rp)
	if err != nil {
		return fmt.Errorf("generate: report: %w", err)
	}
	werr := questions.WriteReport(f, res)
	if werr == nil {
		_, werr = fmt.Fprintf(f, "\nProjected before the run: $%.4f for the generation%s. Contextualizing the whole corpus (%d documents, %d chunks) with `%s` would take %d calls, %d prompt tokens of which %d read from the prompt cache, and cost $%.4f (without caching $%.4f), as `situate cost` estimates it.\n",
			gen.CostUSD, wiring.PriceNote(gen), all.Docs, all.Chunks, c.str("llm"), all.Calls, all.PromptTokens, all.CacheReadTokens, all.CostUSD, all.CostNoCacheUSD)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("generate: report %s: %w", rp, werr)
	}
	docsDir := "PATH"
	if len(paths) == 1 {
		docsDir = paths[0]
	}
	fmt.Fprintf(e.stdout, "%d questions kept of %d generated (%d chunks sampled of %d); cost $%.4f\n",
		len(res.Items), len(res.All), res.Sampled, res.Chunks, res.CostUSD)
	for _, why := range questions.Reasons {
		if k := res.Dropped[why]; k > 0 {
			fmt.Fprintf(e.stdout, "  dropped %-20s %d\n", why, k)
		}
	}
	fmt.Fprintf(e.stdout, "dataset: %s\nreport: %s\nnext: situate eval --format answers --docs %s --queries %s --compare\n",
		outPath, rp, docsDir, outPath)
	return genErr
}

// reviewItems accepts or drops each generated question (questions.Review).
var reviewItems = questions.Review
