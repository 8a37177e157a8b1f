package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/sqlite"
)

// costJSON is "situate cost --json".
type costJSON struct {
	Model            string  `json:"model"`
	Docs             int     `json:"docs"`
	Chunks           int     `json:"chunks"`
	Calls            int     `json:"calls"`
	TooLarge         int     `json:"too_large"`
	Excerpted        int     `json:"excerpted"`
	ContextWindow    int     `json:"context_window"`
	MinCacheTokens   int     `json:"min_cache_tokens"`
	PromptTokens     int     `json:"prompt_tokens"`
	InputTokens      int     `json:"input_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens"`
	CacheReadTokens  int     `json:"cache_read_tokens"`
	OutputTokens     int     `json:"output_tokens"`
	CacheReadShare   float64 `json:"cache_read_share"`
	PriceKnown       bool    `json:"price_known"`
	CostUSD          float64 `json:"cost_usd"`
	CostNoCacheUSD   float64 `json:"cost_no_cache_usd"`
	CostBatchUSD     float64 `json:"cost_batch_usd"`
	Seconds          float64 `json:"seconds"`
	Concurrency      int     `json:"concurrency"`
	Skipped          int     `json:"skipped_files"`
}

func runCost(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("cost", "PATH... | - | FILE.jsonl",
		"Estimate, before any call, what contextualizing PATH with the LLM named by --llm would take:\n"+
			"calls, tokens (counted offline, with the estimate margin), prompt-cache writes and reads given the\n"+
			"model's minimum cacheable length, cost with and without caching and with batch mode, and time at\n"+
			"the configured concurrency and rate limits. Nothing is sent anywhere and no store is written.")
	c.flags(fs, "store", "config", "chunk-size", "chunk-overlap", "parallel", "include", "exclude", "max-file-size")
	c.flags(fs, llmSettings...)
	asJSON := fs.Bool("json", false, "print the estimate as JSON")
	providerFlag := fs.String("provider", "", "provider, with --model: the same as --llm PROVIDER:MODEL")
	modelFlag := fs.String("model", "", "model, with --provider")
	stdinID := fs.String("id", "stdin", "document id for text read from stdin")
	rpm := fs.Int("rpm", 0, "provider limit in requests per minute (0: none)")
	itpm := fs.Int("itpm", 0, "provider limit in input tokens per minute, cache reads excluded (0: none)")
	latency := fs.Duration("latency", llm.DefaultEstimateLatency, "expected time of one call")
	outTokens := fs.Int("output-tokens", llm.DefaultEstimateOutputTokens, "expected length of one context in tokens")
	paths, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("no PATH given")
	}
	spec := c.str("llm")
	if *providerFlag != "" || *modelFlag != "" {
		if *providerFlag == "" || *modelFlag == "" {
			return usagef("--provider and --model go together")
		}
		spec = *providerFlag + ":" + *modelFlag
		c.settings["llm"].value, c.settings["llm"].origin = spec, "flag"
	}
	if spec == "" {
		return usagef("--llm PROVIDER:MODEL is required (e.g. anthropic:claude-haiku-4-5)")
	}
	provider, model, ok := strings.Cut(spec, ":")
	if !ok || provider == "" || model == "" {
		return usagef("--llm %q (from %s): want PROVIDER:MODEL", spec, c.settings["llm"].origin)
	}
	if *rpm < 0 || *itpm < 0 || *latency < 0 || *outTokens < 0 {
		return usagef("--rpm, --itpm, --latency and --output-tokens must be >= 0")
	}
	docs, skipped, err := collectDocs(ctx, e, c, paths, *stdinID)
	if err != nil {
		return err
	}
	dcs, err := splitDocs(ctx, c, docs)
	if err != nil {
		return err
	}
	o := llm.DefaultOptions()
	if o.Concurrency, err = c.int("llm-concurrency"); err != nil {
		return err
	}
	parallel, err := c.int("parallel")
	if err != nil {
		return err
	}
	if parallel < 1 {
		return usagef("--parallel %d: must be >= 1", parallel)
	}
	perDoc := o.Concurrency
	// "situate index" contextualizes --parallel documents at once, each
	// with up to --llm-concurrency calls in flight.
	o.Concurrency *= parallel
	if o.ContextWindow, err = c.int("llm-context-window"); err != nil {
		return err
	}
	if o.MaxTokens, err = c.int("llm-max-tokens"); err != nil {
		return err
	}
	if o.ContextWindow == 0 && provider == "anthropic" {
		// What the Anthropic client reports for the model.
		o.ContextWindow = anthropic.ModelContextWindow(model, nil)
	}
	o.CacheTTL = c.str("llm-cache-ttl")
	o.TemplateFile = c.str("llm-template")
	o.Language = c.str("llm-language")
	if o.Prices, err = llmPrices(c); err != nil {
		return err
	}
	// Without --rpm/--itpm, time is estimated at the configured limits.
	if o.RequestsPerMinute, err = c.int("llm-rpm"); err != nil {
		return err
	}
	if o.InputTokensPerMinute, err = c.int("llm-tpm"); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return usageError{err}
	}
	est := llm.Estimate(dcs, spec, nil, llm.EstimateOptions{Options: o, OutputTokens: *outTokens,
		Latency: *latency, RequestsPerMinute: *rpm, InputTokensPerMinute: *itpm})
	if est.Err != nil {
		return est.Err
	}
	out := costJSON{Model: est.Model, Docs: est.Docs, Chunks: est.Chunks, Calls: est.Calls, TooLarge: est.TooLarge,
		Excerpted: est.Excerpted, ContextWindow: o.ContextWindow, MinCacheTokens: est.Price.MinCacheTokens,
		PromptTokens: est.PromptTokens, InputTokens: est.InputTokens, CacheWriteTokens: est.CacheWriteTokens,
		CacheReadTokens: est.CacheReadTokens, OutputTokens: est.OutputTokens, PriceKnown: est.PriceKnown,
		CostUSD: est.CostUSD, CostNoCacheUSD: est.CostNoCacheUSD, CostBatchUSD: est.CostBatchUSD,
		Seconds: est.Duration.Seconds(), Concurrency: o.Concurrency, Skipped: skipped}
	if est.PromptTokens > 0 {
		out.CacheReadShare = float64(est.CacheReadTokens) / float64(est.PromptTokens)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := e.stdout
	fmt.Fprintf(w, "estimate for %s (offline token counts, +%.0f%% margin; nothing was sent)\n", est.Model, o.EstimateMargin*100)
	fmt.Fprintf(w, "documents        %d (%d files skipped)\n", est.Docs, skipped)
	fmt.Fprintf(w, "chunks           %d\n", est.Chunks)
	fmt.Fprintf(w, "calls            %d (%d too large for the window, %d with a document excerpt; window %d tokens)\n",
		est.Calls, est.TooLarge, est.Excerpted, o.ContextWindow)
	fmt.Fprintf(w, "prompt tokens    %d\n", est.PromptTokens)
	fmt.Fprintf(w, "  input          %d\n", est.InputTokens)
	fmt.Fprintf(w, "  cache write    %d (%s TTL; prefixes under %d tokens are not cached)\n", est.CacheWriteTokens, o.CacheTTL, est.Price.MinCacheTokens)
	fmt.Fprintf(w, "  cache read     %d (%.1f%% of prompt tokens)\n", est.CacheReadTokens, 100*out.CacheReadShare)
	fmt.Fprintf(w, "output tokens    %d (%d per call)\n", est.OutputTokens, *outTokens)
	if est.PriceKnown {
		fmt.Fprintf(w, "cost             $%.4f with prompt caching\n", est.CostUSD)
		fmt.Fprintf(w, "                 $%.4f without caching\n", est.CostNoCacheUSD)
		fmt.Fprintf(w, "                 $%.4f with batch mode (%.0f%% off, caching not counted on)\n", est.CostBatchUSD, 100*est.Price.BatchDiscount)
	} else {
		fmt.Fprintf(w, "cost             unknown: no price for %q in the price table\n", spec)
	}
	fmt.Fprintf(w, "time             %s at %d calls in flight (%d documents x %d), %s per call", est.Duration.Round(time.Second), o.Concurrency, parallel, perDoc, *latency)
	if *rpm > 0 || *itpm > 0 {
		fmt.Fprintf(w, ", %d requests/min, %d input tokens/min", *rpm, *itpm)
	}
	fmt.Fprintln(w)
	return nil
}

// collectDocs reads documents from paths as "situate index" does: files
// and directories through ingest.Walk, JSONL files, or stdin ('-'). Files
// that cannot be read are reported on stderr and counted.
func collectDocs(ctx context.Context, e *env, c *config, paths []string, stdinID string) ([]situate.Document, int, error) {
	maxSize, err := c.int("max-file-size")
	if err != nil {
		return nil, 0, err
	}
	pdfx := pdf.New(pdf.Options{})
	defer pdfx.Close() // releases PDFium's WebAssembly runtime, if a PDF started it
	opts := ingest.Options{Include: c.list("include"), Exclude: c.list("exclude"),
		MaxFileSize: int64(maxSize), PDF: pdfx}
	if err := opts.Validate(); err != nil {
		return nil, 0, usageError{err}
	}
	var (
		docs    []situate.Document
		skipped int
	)
	report := func(err error) {
		skipped++
		fmt.Fprintf(e.stderr, "skip %v\n", err)
	}
	collect := func(doc situate.Document, err error) error {
		if err != nil {
			var fe *ingest.FileError
			if errors.As(err, &fe) {
				report(err)
				return nil
			}
			return err
		}
		docs = append(docs, doc)
		return nil
	}
	storeDir := c.storeDir(e)
	for _, p := range paths {
		switch {
		case p == "-":
			doc, err := ingest.ParseReader(ctx, e.stdin, stdinID, stdinID, opts)
			if err := collect(doc, err); err != nil {
				return nil, skipped, err
			}
		case strings.HasSuffix(strings.ToLower(p), ".jsonl"):
			f, err := os.Open(p)
			if err != nil {
				report(&ingest.FileError{Op: "open", Path: p, Err: err})
				continue
			}
			err = ingest.JSONL(ctx, f, p, collect)
			f.Close()
			if err != nil {
				return nil, skipped, err
			}
		default:
			if abs, _ := filepath.Abs(p); abs == storeDir {
				continue
			}
			if err := ingest.Walk(ctx, []string{p}, opts, collect); err != nil {
				return nil, skipped, err
			}
		}
	}
	return docs, skipped, nil
}

// splitDocs chunks documents exactly as the engine would (same options,
// language resolved first), through an engine over a throw-away store.
func splitDocs(ctx context.Context, c *config, docs []situate.Document) ([]llm.DocChunks, error) {
	o := situate.DefaultOptions()
	var err error
	if o.ChunkSize, err = c.int("chunk-size"); err != nil {
		return nil, err
	}
	if o.ChunkOverlap, err = c.int("chunk-overlap"); err != nil {
		return nil, err
	}
	o.Contextualizer = nil
	if err := o.Validate(); err != nil {
		return nil, usageError{err}
	}
	tmp, err := os.MkdirTemp("", "situate-cost-")
	if err != nil {
		return nil, fmt.Errorf("cost: temporary store: %w", err)
	}
	defer os.RemoveAll(tmp)
	store, err := sqlite.Open(ctx, filepath.Join(tmp, storeFile))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	eng, err := situate.Open(ctx, "", store, o)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	out := make([]llm.DocChunks, 0, len(docs))
	for _, d := range docs {
		d.Lang = situate.ResolveLanguage(d)
		chunks, err := eng.Split(d)
		if err != nil {
			return nil, err
		}
		out = append(out, llm.DocChunks{Doc: d, Chunks: chunks})
	}
	return out, nil
}
