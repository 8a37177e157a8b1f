package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/openai"
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
	// Documents that are one chunk get no call (the offline context
	// serves); saved_* is what calling for them would take.
	OneChunkDocs int     `json:"one_chunk_documents"`
	SavedCalls   int     `json:"saved_calls"`
	SavedCostUSD float64 `json:"saved_cost_usd"`
	SavedSeconds float64 `json:"saved_seconds"`
	// Local servers (llama.cpp, vLLM, Ollama): what the server said and
	// what one measured call showed.
	Local            bool    `json:"local,omitempty"`
	Slots            int     `json:"slots,omitempty"`
	PrefillPerSecond float64 `json:"prefill_per_second,omitempty"`
	DecodePerSecond  float64 `json:"decode_per_second,omitempty"`
	OutputPerCall    int     `json:"output_tokens_per_call,omitempty"`
	ServerSeconds    float64 `json:"server_seconds,omitempty"`
	// Parallel: requests the server generates side by side (measured);
	// FixedSeconds: the run's time beside its calls (part of Seconds).
	Parallel     float64 `json:"parallel,omitempty"`
	FixedSeconds float64 `json:"fixed_seconds,omitempty"`
}

// localProviders run on the user's own hardware: no price, GPU time.
var localProviders = map[string]bool{"llamacpp": true, "vllm": true, "ollama": true}

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
	c.flags(fs, llmSettings...)
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
	provider, model, _ := strings.Cut(spec, ":")
	switch {
	case provider == "llamacpp":
		// The server serves the model it loaded; a name is optional.
	case provider == "" || !strings.Contains(spec, ":"):
		return usagef("--llm %q (from %s): want PROVIDER:MODEL (or llamacpp with --llm-base-url)", spec, c.settings["llm"].origin)
	case openAIFlavors[provider] == "" && provider != "anthropic" && provider != "ollama":
		return usagef("--llm %q (from %s): provider must be anthropic, openai, openai-compatible, vllm, llamacpp or ollama", spec, c.settings["llm"].origin)
	case model == "":
		return usagef("--llm %q (from %s): want PROVIDER:MODEL", spec, c.settings["llm"].origin)
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
	dcs, err := splitDocs(ctx, c, docs)
	if err != nil {
		return err
	}
	// An index run reads and chunks the same documents (and writes them):
	// part of the time it spends beside its calls.
	prep := time.Since(prepStart)
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
	eo := llm.EstimateOptions{Options: o, OutputTokens: *outTokens,
		Latency: *latency, RequestsPerMinute: *rpm, InputTokensPerMinute: *itpm}
	var srv localInfo
	if localProviders[provider] {
		if srv, err = askLocalServer(ctx, c, e, dcs, o); err != nil {
			return err
		}
		srv.server.Fixed += prep
		spec = srv.name
		if o.ContextWindow == 0 {
			eo.ContextWindow = srv.window
		}
		eo.Local = &srv.server
		eo.CountTokens = srv.count
		if !explicit["output-tokens"] && srv.outputTokens > 0 {
			eo.OutputTokens = srv.outputTokens
		}
		if !explicit["latency"] && srv.latency > 0 {
			eo.Latency = srv.latency
		}
	}
	est := llm.Estimate(dcs, spec, nil, eo)
	if est.Err != nil {
		return est.Err
	}
	if srv.name != "" {
		return reportLocalCost(e, *asJSON, est, eo, srv, parallel, perDoc, skipped)
	}
	out := costJSON{Model: est.Model, Docs: est.Docs, Chunks: est.Chunks, Calls: est.Calls, TooLarge: est.TooLarge,
		Excerpted: est.Excerpted, ContextWindow: o.ContextWindow, MinCacheTokens: est.Price.MinCacheTokens,
		PromptTokens: est.PromptTokens, InputTokens: est.InputTokens, CacheWriteTokens: est.CacheWriteTokens,
		CacheReadTokens: est.CacheReadTokens, OutputTokens: est.OutputTokens, PriceKnown: est.PriceKnown,
		CostUSD: est.CostUSD, CostNoCacheUSD: est.CostNoCacheUSD, CostBatchUSD: est.CostBatchUSD,
		Seconds: est.Duration.Seconds(), Concurrency: o.Concurrency, Skipped: skipped,
		OneChunkDocs: est.WholeDocuments, SavedCalls: est.SavedCalls, SavedCostUSD: est.SavedCostUSD, SavedSeconds: est.SavedDuration.Seconds()}
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
	if est.WholeDocuments > 0 {
		saved := "no price known"
		if est.PriceKnown {
			saved = fmt.Sprintf("$%.4f", est.SavedCostUSD)
		}
		fmt.Fprintf(w, "one-chunk docs   %d (the chunk is the whole document: no call, the offline context serves; saves %d calls, %s, %s)\n",
			est.WholeDocuments, est.SavedCalls, saved, est.SavedDuration.Round(time.Second))
	}
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
func collectDocs(ctx context.Context, e *env, c *config, paths []string, stdinID string, verbose bool) (_ []situate.Document, _ int, err error) {
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
	// Skipped files are counted by reason on one line, as 'index' does.
	skips := &indexProgress{w: e.stderr, verbose: verbose, skips: map[string]int{}}
	defer func() {
		if s := skips.skipSummary(); s != "" && err == nil {
			fmt.Fprintln(e.stderr, s)
		}
	}()
	report := func(err error) {
		skipped++
		skips.skips[ingest.SkipReason(err)]++
		if verbose {
			fmt.Fprintf(e.stderr, "skip %v\n", err)
		}
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
	out := make([]llm.DocChunks, 0, len(docs))
	for _, d := range docs {
		d.Lang = driver.ResolveLanguage(d)
		chunks, err := situate.Split(d, o)
		if err != nil {
			return nil, err
		}
		out = append(out, llm.DocChunks{Doc: d, Chunks: chunks})
	}
	return out, nil
}

// localInfo is what "cost" learned from a local server.
type localInfo struct {
	name         string // provider:served model
	url          string
	window       int
	server       llm.LocalServer
	outputTokens int           // generated by the measured call
	latency      time.Duration // of the measured call
	note         string        // why the call could not be measured, if so
	// count is the server's tokenizer (llama.cpp, vLLM), nil otherwise.
	count func(string) (int, error)
}

// askLocalServer asks a local server (llama.cpp, vLLM, Ollama) which model
// it serves, its context size and slots, and measures its speed on one
// real call: the first chunk of the corpus, prompted as "index" would.
func askLocalServer(ctx context.Context, c *config, e *env, dcs []llm.DocChunks, o llm.Options) (localInfo, error) {
	models, err := newLLM(c, e)
	if err != nil {
		return localInfo{}, err
	}
	m := models[0]
	provider, _, _ := strings.Cut(c.str("llm"), ":")
	info := localInfo{name: m.Name(), url: strings.Join(c.list("llm-base-url"), ", ")}
	askStart := time.Now()
	ictx, cancel := context.WithTimeout(ctx, identifyLLMTimeout)
	defer cancel()
	fail := func(what string, err error) (localInfo, error) {
		where := ""
		if info.url != "" {
			where = " at " + info.url
		}
		return info, fmt.Errorf("--llm %s: %s: %w (is the server running%s?)", c.str("llm"), what, err, where)
	}
	if mi, ok := m.(driver.ModelIdentifier); ok {
		id, err := mi.ModelIdentity(ictx)
		if err != nil {
			return fail("ask the server which model it serves", err)
		}
		info.name = provider + ":" + id.Name
	}
	if w, ok := m.(driver.ContextWindower); ok {
		n, err := w.ContextWindow(ictx)
		if err != nil {
			return fail("ask the server its context size", err)
		}
		info.window = n
	}
	cl, isOpenAI := m.(*openai.Client)
	if isOpenAI && cl.Flavor() == openai.FlavorLlamaCpp {
		p, err := cl.Props(ictx)
		if err != nil {
			return fail("ask the server its slots", err)
		}
		info.server.Slots = p.TotalSlots
	}
	// A run asks the same questions before its first call.
	info.server.Fixed = time.Since(askStart)
	if tc, ok := m.(driver.TokenCounter); ok {
		info.count = func(text string) (int, error) { return tc.CountTokens(ctx, text) }
	}
	prompt, ok := samplePrompt(dcs, o, info.window)
	if !ok {
		info.note = "no chunk to measure the server's speed on"
		return info, nil
	}
	if isOpenAI && cl.Flavor() == openai.FlavorLlamaCpp {
		// A short call first, not measured: a server that just started or
		// sat idle is slow on its first request (pages of the model read
		// in, buffers allocated).
		warm := prompt
		warm.Prefix = fmt.Sprintf("situate cost warm-up %d\n", time.Now().UnixNano())
		warm.MaxTokens = min(8, max(1, prompt.MaxTokens))
		_, _, _ = cl.CompleteTimings(ctx, warm)
	}
	start := time.Now()
	if isOpenAI && cl.Flavor() == openai.FlavorLlamaCpp {
		comp, t, err := cl.CompleteTimings(ctx, prompt)
		wall := time.Since(start)
		if err != nil || t.PromptMS <= 0 || t.PredictedMS <= 0 {
			info.note = fmt.Sprintf("the measured call failed (%v); time assumes --latency per call", err)
			return info, nil
		}
		info.server.PrefillPerSecond = float64(t.PromptN) / (t.PromptMS / 1000)
		info.server.DecodePerSecond = float64(t.PredictedN) / (t.PredictedMS / 1000)
		info.server.Overhead = max(0, wall-time.Duration((t.PromptMS+t.PredictedMS)*float64(time.Millisecond)))
		info.outputTokens = max(t.PredictedN, comp.Usage.OutputTokens)
		info.latency = wall
		if info.server.Slots > 1 {
			// Two more calls alone: the generation speed is the median of
			// three (one call's few tokens are at the mercy of the load).
			var rates []float64
			info.server.Parallel, rates = measureParallel(ctx, cl, prompt, info.server.Slots)
			if len(rates) > 0 {
				rates = append(rates, info.server.DecodePerSecond)
				slices.Sort(rates)
				info.server.DecodePerSecond = rates[len(rates)/2]
			}
		}
		return info, nil
	}
	comp, err := m.Complete(ctx, prompt)
	if err != nil {
		info.note = fmt.Sprintf("the measured call failed (%v); time assumes --latency per call", err)
		return info, nil
	}
	info.latency = time.Since(start)
	info.outputTokens = comp.Usage.OutputTokens
	return info, nil
}

// measureParallel is how many requests' generation the server runs side
// by side: the tokens per second of slots short calls at once (one per
// slot) against one alone (the mean of two, one after the other). Each is
// the sample's chunk part behind a line of its own (a cold prompt of a
// chunk's size). It also returns the generation speeds (tokens/s) of the
// calls alone. 0 and nil if a call failed.
func measureParallel(ctx context.Context, cl *openai.Client, sample driver.Prompt, slots int) (float64, []float64) {
	// Document IDs that the client pins to slots 0..slots-1.
	ids := make([]string, 0, slots)
	seen := map[int]bool{}
	for i := 0; len(ids) < slots && i < 100*slots; i++ {
		id := fmt.Sprintf("situate-cost-parallel-%d", i)
		if s := openai.Slot(id, slots); !seen[s] {
			seen[s] = true
			ids = append(ids, id)
		}
	}
	var rates []float64
	run := func(ids []string) (float64, bool) {
		start := time.Now()
		tokens := make([]int, len(ids))
		timings := make([]openai.Timings, len(ids))
		errs := make([]error, len(ids))
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := sample
				p.DocID = id
				p.Prefix = fmt.Sprintf("situate cost calibration %d %d\n", time.Now().UnixNano(), i)
				comp, t, err := cl.CompleteTimings(ctx, p)
				tokens[i], timings[i], errs[i] = max(t.PredictedN, comp.Usage.OutputTokens), t, err
			}()
		}
		wg.Wait()
		sum := 0
		for i := range ids {
			if errs[i] != nil {
				return 0, false
			}
			sum += tokens[i]
		}
		if t := timings[0]; len(ids) == 1 && t.PredictedN > 0 && t.PredictedMS > 0 {
			rates = append(rates, float64(t.PredictedN)/(t.PredictedMS/1000))
		}
		return float64(sum) / time.Since(start).Seconds(), sum > 0
	}
	one, ok := run(ids[:1])
	if !ok {
		return 0, nil
	}
	two, ok := run(ids[:1])
	if !ok {
		return 0, nil
	}
	all, ok := run(ids)
	if !ok {
		return 0, nil
	}
	return min(float64(len(ids)), max(1, all/((one+two)/2))), rates
}

// samplePrompt is the prompt of the first chunk of the corpus, as the
// contextualizer renders it (a document longer than the window is cut).
func samplePrompt(dcs []llm.DocChunks, o llm.Options, window int) (driver.Prompt, bool) {
	for _, d := range dcs {
		if len(d.Chunks) == 0 {
			continue
		}
		tmpl := llm.BuiltinTemplate(driver.ResolveLanguage(d.Doc))
		if o.Language != "" {
			tmpl = llm.BuiltinTemplate(o.Language)
		}
		if o.TemplateFile != "" {
			t, err := llm.LoadTemplate(o.TemplateFile)
			if err != nil {
				return driver.Prompt{}, false
			}
			tmpl = t
		}
		text := d.Doc.Text
		if limit := 2 * (window - o.MaxTokens); window > 0 && len(text) > limit {
			text = text[:max(0, limit)]
		}
		// A line of its own first: no prefix the server keeps from an
		// earlier call is reused (the speed is a cold prompt's), and the
		// run that follows finds no document prefix left by this call.
		nonce := fmt.Sprintf("situate cost calibration %d\n", time.Now().UnixNano())
		return driver.Prompt{DocID: "situate-cost-calibration", Prefix: nonce + tmpl.Prefix(text, ""), Suffix: tmpl.Suffix(d.Chunks[0].Text), MaxTokens: o.MaxTokens}, true
	}
	return driver.Prompt{}, false
}

// reportLocalCost prints the estimate for a local server: tokens computed
// and read from the server's prefix cache, time from the measured speed,
// and server (GPU) time instead of dollars.
func reportLocalCost(e *env, asJSON bool, est llm.CostEstimate, eo llm.EstimateOptions, srv localInfo, parallel, perDoc, skipped int) error {
	out := costJSON{Model: est.Model, Docs: est.Docs, Chunks: est.Chunks, Calls: est.Calls, TooLarge: est.TooLarge,
		Excerpted: est.Excerpted, ContextWindow: eo.ContextWindow, PromptTokens: est.PromptTokens, InputTokens: est.InputTokens,
		CacheWriteTokens: est.CacheWriteTokens, CacheReadTokens: est.CacheReadTokens, OutputTokens: est.OutputTokens,
		Seconds: est.Duration.Seconds(), Concurrency: est.Concurrency, Skipped: skipped, Local: true, Slots: srv.server.Slots,
		PrefillPerSecond: srv.server.PrefillPerSecond, DecodePerSecond: srv.server.DecodePerSecond,
		OutputPerCall: eo.OutputTokens, ServerSeconds: (est.Duration - srv.server.Fixed).Seconds(),
		Parallel: srv.server.Parallel, FixedSeconds: srv.server.Fixed.Seconds(),
		OneChunkDocs: est.WholeDocuments, SavedCalls: est.SavedCalls, SavedSeconds: est.SavedDuration.Seconds()}
	if est.PromptTokens > 0 {
		out.CacheReadShare = float64(est.CacheReadTokens) / float64(est.PromptTokens)
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := e.stdout
	counts := fmt.Sprintf("token counts offline, +%.0f%% margin", eo.EstimateMargin*100)
	if srv.count != nil {
		counts = "token counts by the server's tokenizer"
	}
	fmt.Fprintf(w, "estimate for %s at %s (local server: asked for its model, context and slots; %s)\n", est.Model, srv.url, counts)
	fmt.Fprintf(w, "documents        %d (%d files skipped)\n", est.Docs, skipped)
	fmt.Fprintf(w, "chunks           %d\n", est.Chunks)
	fmt.Fprintf(w, "calls            %d (%d too large for the window, %d with a document excerpt; window %d tokens per slot)\n",
		est.Calls, est.TooLarge, est.Excerpted, eo.ContextWindow)
	if est.WholeDocuments > 0 {
		fmt.Fprintf(w, "one-chunk docs   %d (the chunk is the whole document: no call, the offline context serves; saves %d calls, %s of server time)\n",
			est.WholeDocuments, est.SavedCalls, est.SavedDuration.Round(time.Second))
	}
	fmt.Fprintf(w, "prompt tokens    %d\n", est.PromptTokens)
	fmt.Fprintf(w, "  computed       %d (each document's prefix once, and every chunk with its instruction)\n", est.InputTokens+est.CacheWriteTokens)
	fmt.Fprintf(w, "  cache read     %d (%.1f%% of prompt tokens: the document prefix kept in the server's slot)\n", est.CacheReadTokens, 100*out.CacheReadShare)
	fmt.Fprintf(w, "output tokens    %d (%d per call", est.OutputTokens, eo.OutputTokens)
	if srv.outputTokens > 0 {
		fmt.Fprintf(w, ", as the measured call")
	}
	fmt.Fprintln(w, ")")
	slots := "unknown"
	if srv.server.Slots > 0 {
		slots = fmt.Sprint(srv.server.Slots)
	}
	if srv.server.PrefillPerSecond > 0 {
		fmt.Fprintf(w, "speed            prompt %.0f tokens/s, generation %.1f tokens/s per request, %s overhead per call (one measured call)\n",
			srv.server.PrefillPerSecond, srv.server.DecodePerSecond, srv.server.Overhead.Round(time.Millisecond))
		if srv.server.Parallel > 0 {
			fmt.Fprintf(w, "                 %.1f requests generate side by side (%d slots: measured, %d short calls at once against one; generation: the median of 3 calls alone)\n",
				srv.server.Parallel, srv.server.Slots, srv.server.Slots)
		}
	} else if srv.latency > 0 {
		fmt.Fprintf(w, "speed            %s per call (one measured call)\n", srv.latency.Round(time.Millisecond))
	}
	if srv.note != "" {
		fmt.Fprintf(w, "note             %s\n", srv.note)
	}
	fmt.Fprintf(w, "time             %s at %d calls in flight (server slots %s; --parallel %d x --llm-concurrency %d), %s of it beside the calls\n",
		roundDur(est.Duration), est.Concurrency, slots, parallel, perDoc, roundDur(srv.server.Fixed))
	fmt.Fprintf(w, "cost             no price for a local server: %s of server (GPU) time\n", roundDur(est.Duration-srv.server.Fixed))
	return nil
}

// roundDur rounds to the second, or to 0.1 s under a minute.
func roundDur(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
