package wiring

import (
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/provider/anthropic"
)

// CheckLLMSpec refuses an --llm value (from origin) that names no model
// of a known provider; llamacpp needs no model name (the server serves
// the model it loaded).
func CheckLLMSpec(spec, origin string) error {
	provider, model, _ := strings.Cut(spec, ":")
	switch {
	case provider == "llamacpp":
	case provider == "" || !strings.Contains(spec, ":"):
		return usagef("--llm %q (from %s): want PROVIDER:MODEL (or llamacpp with --llm-base-url)", spec, origin)
	case OpenAIFlavors[provider] == "" && provider != "anthropic" && provider != "ollama":
		return usagef("--llm %q (from %s): provider must be anthropic, openai, openai-compatible, vllm, llamacpp or ollama", spec, origin)
	case model == "":
		return usagef("--llm %q (from %s): want PROVIDER:MODEL", spec, origin)
	}
	return nil
}

// EstimateOptions are the LLM options an estimate of an index run with
// these settings assumes: --parallel documents at once, each with perDoc
// (--llm-concurrency) calls in flight, the model's window (an Anthropic
// model's as its client reports it), the prompt settings, prices and the
// configured rate limits.
func EstimateOptions(s Settings) (o llm.Options, parallel, perDoc int, err error) {
	o = llm.DefaultOptions()
	if perDoc, err = Int(s, "llm-concurrency"); err != nil {
		return o, 0, 0, err
	}
	if parallel, err = Int(s, "parallel"); err != nil {
		return o, 0, 0, err
	}
	if parallel < 1 {
		return o, 0, 0, usagef("--parallel %d: must be >= 1", parallel)
	}
	o.Concurrency = perDoc * parallel
	if o.ContextWindow, err = Int(s, "llm-context-window"); err != nil {
		return o, 0, 0, err
	}
	if o.MaxTokens, err = Int(s, "llm-max-tokens"); err != nil {
		return o, 0, 0, err
	}
	if provider, model, _ := strings.Cut(s.Value("llm"), ":"); o.ContextWindow == 0 && provider == "anthropic" {
		o.ContextWindow = anthropic.ModelContextWindow(model, nil)
	}
	o.CacheTTL = s.Value("llm-cache-ttl")
	o.TemplateFile = s.Value("llm-template")
	o.Language = s.Value("llm-language")
	if o.Prices, err = Prices(s); err != nil {
		return o, 0, 0, err
	}
	if o.RequestsPerMinute, err = Int(s, "llm-rpm"); err != nil {
		return o, 0, 0, err
	}
	if o.InputTokensPerMinute, err = Int(s, "llm-tpm"); err != nil {
		return o, 0, 0, err
	}
	if err := o.Validate(); err != nil {
		return o, 0, 0, UsageError{err}
	}
	return o, parallel, perDoc, nil
}

// Split chunks documents exactly as an engine with these settings would
// (chunk size and overlap, each document's language resolved first),
// without a store or an engine (situate.Split).
func Split(s Settings, docs []situate.Document) ([]llm.DocChunks, error) {
	o := situate.DefaultOptions()
	var err error
	if o.ChunkSize, err = Int(s, "chunk-size"); err != nil {
		return nil, err
	}
	if o.ChunkOverlap, err = Int(s, "chunk-overlap"); err != nil {
		return nil, err
	}
	o.Contextualizer = nil
	if err := o.Validate(); err != nil {
		return nil, UsageError{err}
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
