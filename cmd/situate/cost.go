package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/report"
	"github.com/situate/situate/wiring"
)

// costJSON is "situate cost --json" (llm.CostReport).
type costJSON = llm.CostReport

func runCost(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("cost", "PATH... | - | FILE.jsonl",
		"Estimate, before any call, what contextualizing PATH with the LLM named by --llm would take:\n"+
			"calls, tokens (counted offline, with the estimate margin), prompt-cache writes and reads given the\n"+
			"model's minimum cacheable length, cost with and without caching and with batch mode, and time at\n"+
			"the configured concurrency and rate limits. Nothing is sent to a hosted provider and no store is written.\n"+
			"For a local server (--llm llamacpp, vllm:MODEL, ollama:MODEL) cost asks the server which model it serves,\n"+
			"its context size and slots, makes a few real calls to measure its speed and answer length (the corpus's\n"+
			"first chunk; with several slots also its chunk part alone twice and once per slot at once, to see how\n"+
			"many requests it really runs side by side), models its prefix cache (each document's prefix computed once), caps the calls in flight\n"+
			"at its slots, and reports server (GPU) time instead of dollars.")
	c.flags(fs, "store", "config", "chunk-size", "chunk-overlap", "parallel", "include", "exclude", "max-file-size")
	c.flags(fs, wiring.LLMSettings...)
	asJSON := fs.Bool("json", false, "print the estimate as JSON")
	providerFlag := fs.String("provider", "", "provider, with --model: the same as --llm PROVIDER:MODEL")
	modelFlag := fs.String("model", "", "model, with --provider")
	stdinID := fs.String("id", "stdin", "document id for text read from stdin")
	verbose := fs.Bool("verbose", false, "list every skipped file with the reason (by default one line counts them by reason)")
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
		return usagef("--llm PROVIDER:MODEL is required (e.g. anthropic:claude-haiku-4-5, or llamacpp with --llm-base-url)")
	}
	provider, _, _ := strings.Cut(spec, ":")
	if err := wiring.CheckLLMSpec(spec, c.Origin("llm")); err != nil {
		return err
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if *rpm < 0 || *itpm < 0 || *latency < 0 || *outTokens < 0 {
		return usagef("--rpm, --itpm, --latency and --output-tokens must be >= 0")
	}
	prepStart := time.Now()
	docs, skipped, err := collectDocs(ctx, e, c, paths, *stdinID, *verbose)
	if err != nil {
		return err
	}
	dcs, err := wiring.Split(c, docs)
	if err != nil {
		return err
	}
	// An index run reads and chunks the same documents (and writes them):
	// part of the time it spends beside its calls.
	prep := time.Since(prepStart)
	o, parallel, perDoc, err := wiring.EstimateOptions(c)
	if err != nil {
		return err
	}
	eo := llm.EstimateOptions{Options: o, OutputTokens: *outTokens,
		Latency: *latency, RequestsPerMinute: *rpm, InputTokensPerMinute: *itpm}
	var srv wiring.LocalServer
	if wiring.LocalProviders[provider] {
		if srv, err = wiring.ProbeLocalServer(ctx, c, e.wiring(), dcs, o); err != nil {
			return err
		}
		srv.Server.Fixed += prep
		spec = srv.Name
		if o.ContextWindow == 0 {
			eo.ContextWindow = srv.Window
		}
		eo.Local = &srv.Server
		eo.CountTokens = srv.Count
		if !explicit["output-tokens"] && srv.OutputTokens > 0 {
			eo.OutputTokens = srv.OutputTokens
		}
		if !explicit["latency"] && srv.Latency > 0 {
			eo.Latency = srv.Latency
		}
	}
	est := llm.Estimate(dcs, spec, nil, eo)
	if est.Err != nil {
		return est.Err
	}
	switch {
	case *asJSON:
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(est.Report(eo, skipped))
	case srv.Name != "":
		srv.WriteCostText(e.stdout, est, eo, parallel, perDoc, skipped)
	default:
		est.WriteText(e.stdout, eo, skipped, parallel, perDoc)
	}
	return nil
}

// collectDocs reads documents from paths as "situate index" does
// (wiring.ReadDocuments). Files that cannot be read are reported on stderr
// and counted.
func collectDocs(ctx context.Context, e *env, c *config, paths []string, stdinID string, verbose bool) ([]situate.Document, int, error) {
	skipped, skips := 0, map[string]int{}
	docs, err := wiring.ReadDocuments(ctx, c, e.wiring(), paths, e.stdin, stdinID, func(err error) {
		skipped++
		skips[ingest.SkipReason(err)]++
		if verbose {
			fmt.Fprintf(e.stderr, "skip %v\n", err)
		}
	})
	if err != nil {
		return nil, skipped, err
	}
	// Skipped files are counted by reason on one line, as 'index' does.
	hint := ""
	if !verbose {
		hint = " (--verbose lists them)"
	}
	if s := report.Skips(skips, hint); s != "" {
		fmt.Fprintln(e.stderr, s)
	}
	return docs, skipped, nil
}
