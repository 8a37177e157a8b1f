package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/ollama"
	"github.com/situate/situate/provider/openai"
)

// llmSettings are the settings of the LLM contextualizer.
var llmSettings = []string{"llm", "llm-base-url", "llm-api-key-env", "llm-concurrency", "llm-context-window",
	"llm-max-tokens", "llm-cache-ttl", "llm-template", "llm-language", "llm-extra", "llm-rpm", "llm-tpm",
	"llm-price", "llm-glossary", "llm-timeout", "llm-max-retries", "llm-degenerate", "llm-one-chunk", "max-cost"}

func llmSettingDefs() []*setting {
	d := llm.DefaultOptions()
	return []*setting{
		{name: "llm", usage: "LLM that writes contexts, as PROVIDER:MODEL: anthropic:claude-haiku-4-5, openai:gpt-5-mini, openai-compatible:NAME, vllm:NAME, llamacpp (with --llm-base-url), ollama:qwen3:4b (OLLAMA_HOST)"},
		{name: "llm-base-url", usage: "API base URL; several comma-separated URLs are replicas of one local server (each document goes to one). Defaults: ANTHROPIC_BASE_URL / OPENAI_BASE_URL or the provider's"},
		{name: "llm-api-key-env", usage: "environment variable holding the API key (default ANTHROPIC_API_KEY or OPENAI_API_KEY); keys are never stored"},
		{name: "llm-concurrency", def: fmt.Sprint(d.Concurrency), usage: "calls in flight per document batch"},
		{name: "llm-context-window", def: "0", usage: "model context window in tokens (0: ask the server or use the provider's default)"},
		{name: "llm-max-tokens", def: fmt.Sprint(d.MaxTokens), usage: "output token budget per call"},
		{name: "llm-cache-ttl", def: d.CacheTTL, usage: "Anthropic prompt cache TTL: 5m or 1h"},
		{name: "llm-template", usage: "prompt template file with {{WHOLE_DOCUMENT}} and {{CHUNK_CONTENT}} (default: the reference prompt in the document's language)"},
		{name: "llm-language", usage: "force the prompt language (en, de, es, ru, zh); default: the document's"},
		{name: "llm-extra", usage: "extra request fields as a JSON object, e.g. {\"temperature\":0}"},
		{name: "llm-rpm", def: "0", usage: "rate limit: LLM requests per minute, retries included (0: none)"},
		{name: "llm-tpm", def: "0", usage: "rate limit: LLM input tokens per minute, estimated from the prompt; cache reads are not counted, as with Anthropic (0: none)"},
		{name: "llm-price", usage: "price of the --llm model in USD per million tokens, overriding the built-in table, e.g. input=1,cache-write-5m=1.25,cache-write-1h=2,cache-read=0.1,output=5,batch-discount=0.5,min-cache-tokens=4096 (fields not given keep the table's values)"},
		{name: "llm-glossary", usage: "glossary file (JSON list of {\"term\",\"definition\"} or TOML [[terms]]) shown after the document in every prompt"},
		{name: "llm-timeout", def: d.CallTimeout.String(), usage: "time limit of one LLM call; a call that times out is retried"},
		{name: "llm-max-retries", def: fmt.Sprint(d.MaxRetries), usage: "retries of a failing LLM call (rate limits, overload, server errors, timeouts) before the chunk gets the offline context, flagged"},
		{name: "llm-one-chunk", def: "offline", usage: "a document that fits in one chunk: offline (no call: the chunk is the whole document, the offline context serves) or call (ask the model anyway)"},
		{name: "llm-degenerate", def: "reject", usage: "answers that are not a context (repeated words, character noise, no word of the document, far from 50-100 tokens): reject (ask again with another sample, then the offline context, flagged degenerate:KIND) or keep (keep them, flagged)"},
		{name: "max-cost", def: "0", usage: "stop before the projected spend exceeds this many USD (0: no limit)"},
	}
}

// newLLM builds the chat model(s) named by --llm; replicas when several base
// URLs are given.
func newLLM(c *config, e *env) ([]driver.LLM, error) {
	spec := c.str("llm")
	provider, model, _ := strings.Cut(spec, ":")
	var extra map[string]any
	if s := c.str("llm-extra"); s != "" {
		if err := json.Unmarshal([]byte(s), &extra); err != nil {
			return nil, usagef("--llm-extra (from %s): not a JSON object: %v", c.settings["llm-extra"].origin, err)
		}
	}
	window, err := c.int("llm-context-window")
	if err != nil {
		return nil, err
	}
	maxTokens, err := c.int("llm-max-tokens")
	if err != nil {
		return nil, err
	}
	keyEnv := c.str("llm-api-key-env")
	urls := c.list("llm-base-url")
	var models []driver.LLM
	switch provider {
	case "anthropic":
		if keyEnv == "" {
			keyEnv = "ANTHROPIC_API_KEY"
		}
		if len(urls) == 0 {
			urls = []string{e.getenv("ANTHROPIC_BASE_URL")}
		}
		if e.getenv(keyEnv) == "" {
			return nil, fmt.Errorf("--llm %s: environment variable %s is empty", spec, keyEnv)
		}
		for _, u := range urls {
			m, err := anthropic.New(anthropic.Options{APIKey: e.getenv(keyEnv), BaseURL: u, Model: model,
				MaxTokens: maxTokens, CacheTTL: c.str("llm-cache-ttl"), ContextWindow: window})
			if err != nil {
				return nil, fmt.Errorf("--llm %s: %w", spec, err)
			}
			models = append(models, m)
		}
	case "openai", "openai-compatible", "vllm", "llamacpp":
		if keyEnv == "" {
			keyEnv = "OPENAI_API_KEY"
		}
		flavor := openAIFlavors[provider]
		if len(urls) == 0 {
			urls = []string{e.getenv("OPENAI_BASE_URL")}
		}
		if provider != "openai" && urls[0] == "" {
			return nil, usagef("--llm %s: needs --llm-base-url", spec)
		}
		for _, u := range urls {
			m, err := openai.New(openai.Options{APIKey: e.getenv(keyEnv), BaseURL: u, Model: model, MaxTokens: maxTokens,
				Flavor: flavor, PromptCacheKey: flavor == openai.FlavorOpenAI, ExtraBody: extra, ContextWindow: window,
				CacheSalt: cacheSalt(e, flavor)})
			if err != nil {
				return nil, fmt.Errorf("--llm %s: %w", spec, err)
			}
			// LLM() hides token counting where the server cannot count, so
			// the contextualizer estimates instead.
			models = append(models, m.LLM())
		}
	case "ollama":
		if len(urls) == 0 {
			u, err := ollama.BaseURL(e.getenv("OLLAMA_HOST"))
			if err != nil {
				return nil, usagef("--llm %s: %v", spec, err)
			}
			urls = []string{u}
		}
		for _, u := range urls {
			m, err := ollama.New(ollama.Options{BaseURL: u, Model: model, MaxTokens: maxTokens, MaxNumCtx: window, ExtraOptions: extra})
			if err != nil {
				return nil, fmt.Errorf("--llm %s: %w", spec, err)
			}
			models = append(models, m)
		}
	default:
		return nil, usagef("--llm %q: provider must be anthropic, openai, openai-compatible, vllm, llamacpp or ollama", spec)
	}
	return models, nil
}

// llmOptions builds the LLM contextualizer's options from the settings; it
// is shared by the contextualizer of "situate index" (newLLMContextualizer)
// and batch mode. Cache, Usage and Replicas are left to the caller; the
// offline contextualizer is the fallback.
func llmOptions(c *config) (llm.Options, error) {
	o := llm.DefaultOptions()
	ints := []struct {
		name string
		dst  *int
		min  int
	}{
		{"llm-concurrency", &o.Concurrency, 1},
		{"llm-context-window", &o.ContextWindow, 0},
		{"llm-max-tokens", &o.MaxTokens, 1},
		{"llm-rpm", &o.RequestsPerMinute, 0},
		{"llm-tpm", &o.InputTokensPerMinute, 0},
		{"llm-max-retries", &o.MaxRetries, 0},
	}
	for _, s := range ints {
		n, err := c.int(s.name)
		if err != nil {
			return o, err
		}
		if n < s.min {
			return o, usagef("--%s (from %s): %d: must be >= %d", s.name, c.settings[s.name].origin, n, s.min)
		}
		*s.dst = n
	}
	var err error
	if o.MaxCostUSD, err = c.float("max-cost"); err != nil {
		return o, err
	}
	if o.MaxCostUSD < 0 {
		return o, usagef("--max-cost (from %s): %g: must be >= 0", c.settings["max-cost"].origin, o.MaxCostUSD)
	}
	if s := c.settings["llm-timeout"]; s.value != "" {
		d, err := time.ParseDuration(s.value)
		if err != nil || d <= 0 {
			return o, usagef("--llm-timeout (from %s): %q: want a positive duration such as 90s or 2m", s.origin, s.value)
		}
		o.CallTimeout = d
	}
	if o.Prices, err = llmPrices(c); err != nil {
		return o, err
	}
	switch v := c.str("llm-degenerate"); v {
	case "reject":
	case "keep":
		o.KeepDegenerate = true
	default:
		return o, usagef("--llm-degenerate (from %s): %q: want reject or keep", c.settings["llm-degenerate"].origin, v)
	}
	switch v := c.str("llm-one-chunk"); v {
	case "offline":
	case "call":
		o.CallWholeDocuments = true
	default:
		return o, usagef("--llm-one-chunk (from %s): %q: want offline or call", c.settings["llm-one-chunk"].origin, v)
	}
	o.CacheTTL = c.str("llm-cache-ttl")
	o.TemplateFile = c.str("llm-template")
	o.Language = c.str("llm-language")
	if path := c.str("llm-glossary"); path != "" {
		terms, err := llm.LoadGlossary(path)
		if err != nil {
			return o, usagef("--llm-glossary (from %s): %v", c.settings["llm-glossary"].origin, err)
		}
		o.Glossary = llm.StaticGlossary(terms)
		// The file's name for messages, its terms' hash for the settings.
		h := sha256.New()
		for _, t := range terms {
			fmt.Fprintf(h, "%d:%s%d:%s\n", len(t.Term), t.Term, len(t.Definition), t.Definition)
		}
		o.GlossaryID = filepath.Base(path) + "@" + hex.EncodeToString(h.Sum(nil)[:8])
	}
	if s := c.str("llm-extra"); s != "" {
		var extra map[string]any
		if err := json.Unmarshal([]byte(s), &extra); err != nil {
			return o, usagef("--llm-extra (from %s): not a JSON object: %v", c.settings["llm-extra"].origin, err)
		}
		if len(extra) > 0 {
			b, _ := json.Marshal(extra) // keys sorted: one text per set of fields
			o.Extra = string(b)
		}
	}
	o.Fallback = offline.New(offline.DefaultOptions())
	return o, nil
}

// llmPrices is the price table: the built-in one, with the --llm model's
// price overridden by --llm-price.
func llmPrices(c *config) (llm.PriceTable, error) {
	t := llm.DefaultPrices()
	s := c.settings["llm-price"]
	if s.value == "" {
		return t, nil
	}
	model := c.str("llm")
	if model == "" {
		return nil, usagef("--llm-price (from %s): needs --llm PROVIDER:MODEL, the model it prices", s.origin)
	}
	base, _ := t.Lookup(model)
	p, err := llm.ParsePrice(s.value, base)
	if err != nil {
		return nil, usagef("--llm-price (from %s): %v", s.origin, err)
	}
	return t.With(model, p), nil
}

// newLLMContextualizer wires the LLM contextualizer with the store as its
// context cache and usage recorder and the offline contextualizer as the
// fallback for chunks whose calls keep failing.
func newLLMContextualizer(c *config, e *env, store backingStore) (situate.Contextualizer, error) {
	models, err := newLLM(c, e)
	if err != nil {
		return nil, err
	}
	o, err := llmOptions(c)
	if err != nil {
		return nil, err
	}
	e.tally = &usageTally{next: store}
	e.llmDocs = &docTally{next: e.tally}
	o.Cache, o.Usage = store, e.llmDocs
	if len(models) > 1 {
		o.Replicas = models[1:]
	}
	ctxz, err := llm.New(models[0], o)
	if err != nil {
		return nil, usageError{err}
	}
	if err := identifyLLM(c, ctxz); err != nil {
		return nil, err
	}
	return ctxz, nil
}

// identifyLLMTimeout bounds asking a local server which model it serves.
const identifyLLMTimeout = 30 * time.Second

// identifyLLM asks the model's server which model it serves (llama.cpp,
// vLLM, Ollama), so that contexts carry the served model's name and a
// model swapped behind the same URL re-situates what the old one wrote.
func identifyLLM(c *config, ctxz *llm.Contextualizer) error {
	ctx, cancel := context.WithTimeout(context.Background(), identifyLLMTimeout)
	defer cancel()
	if err := ctxz.Identify(ctx); err != nil {
		where := ""
		if urls := c.list("llm-base-url"); len(urls) > 0 {
			where = " at " + strings.Join(urls, ", ")
		}
		return fmt.Errorf("--llm %s: %w (is the server running%s?)", c.str("llm"), err, where)
	}
	return nil
}

// llmSettingsKey is the store meta key holding the llm.Settings (JSON) the
// store was last indexed with; "status" reads it to tell stale from fresh
// without asking the model's server.
const llmSettingsKey = "llm-settings"

// storedContextualizer is the contextualizer a store was last indexed with,
// as recorded in its meta.
type storedContextualizer struct {
	Name        string        `json:"name"`
	Fingerprint string        `json:"fingerprint,omitempty"`
	LLM         *llm.Settings `json:"llm,omitempty"`
}

func readStoredContextualizer(ctx context.Context, store driver.MetaStore) (storedContextualizer, bool, error) {
	var sc storedContextualizer
	v, ok, err := store.Meta(ctx, driver.MetaContextualizer)
	if err != nil || !ok {
		return sc, false, err
	}
	if err := json.Unmarshal([]byte(v), &sc); err != nil {
		return sc, false, fmt.Errorf("store meta %s: %w", driver.MetaContextualizer, err)
	}
	return sc, true, nil
}

// noteContextualizer says, for an LLM whose settings changed since the
// store was last indexed, what changed: every document is re-processed (the
// engine's processing fingerprint changed) and the chunks whose prompt
// changed get a new call; runIndex reports how many documents were
// re-situated. The Engine itself records the contextualizer at its first
// commit (driver.MetaContextualizer).
func noteContextualizer(ctx context.Context, e *env, store driver.MetaStore, eng *situate.Engine, cz situate.Contextualizer) error {
	l, ok := cz.(*llm.Contextualizer)
	if !ok {
		return nil
	}
	cur := l.Settings()
	old, found, err := readStoredContextualizer(ctx, store)
	if err != nil {
		return err
	}
	if found && old.LLM != nil && len(eng.Documents()) > 0 {
		if changes := cur.Changes(*old.LLM); len(changes) > 0 {
			e.llmChange = strings.Join(changes, "; ")
			e.llmBefore = map[string]bool{}
			for _, r := range eng.Documents() {
				e.llmBefore[r.ID] = true
			}
			fmt.Fprintf(e.stderr, "llm: %s since this store was indexed: its documents are re-situated (chunks whose prompt is unchanged reuse their cached context)\n", e.llmChange)
		}
	}
	return nil
}

// Name, Fingerprint and Contextualize make a stored contextualizer stand in
// for the one the store was indexed with, for "status": the engine's
// processing fingerprint is then the index run's.
func (s storedContextualizer) stub() situate.Contextualizer {
	switch {
	case s.Name == "none":
		return nil
	case s.Fingerprint != "":
		return fingerprintedStub{stubContextualizer{s}}
	}
	return stubContextualizer{s}
}

type stubContextualizer struct{ s storedContextualizer }

type fingerprintedStub struct{ stubContextualizer }

func (z fingerprintedStub) Fingerprint() string { return z.s.Fingerprint }

func (z stubContextualizer) Name() string { return z.s.Name }
func (z stubContextualizer) Contextualize(context.Context, situate.Document, []situate.Chunk) ([]situate.Context, error) {
	return nil, fmt.Errorf("contextualizer %s as recorded in the store: cannot write contexts: %w", z.s.Name, situate.ErrInvalid)
}

// docTally counts the documents that made at least one context call in
// this run (for "re-situated N documents: <reason>").
type docTally struct {
	next driver.UsageRecorder
	mu   sync.Mutex
	docs map[string]bool
}

func (d *docTally) RecordUsage(ctx context.Context, u situate.Usage) error {
	d.note(u)
	if d.next == nil {
		return nil
	}
	return d.next.RecordUsage(ctx, u)
}

// BeginUsage notes the document as RecordUsage does and passes the
// attempt on (driver.AttemptRecorder).
func (d *docTally) BeginUsage(ctx context.Context, u situate.Usage) (int64, error) {
	d.note(u)
	return beginUsage(ctx, d.next, u)
}

// FinishUsage passes the attempt's completed record on.
func (d *docTally) FinishUsage(ctx context.Context, id int64, u situate.Usage) error {
	d.note(u)
	return finishUsage(ctx, d.next, id, u)
}

func (d *docTally) note(u situate.Usage) {
	if strings.HasPrefix(u.Operation, "context") {
		d.mu.Lock()
		if d.docs == nil {
			d.docs = map[string]bool{}
		}
		d.docs[u.DocID] = true
		d.mu.Unlock()
	}
}

// resituated counts the documents among ids that made a context call.
func (d *docTally) resituated(ids map[string]bool) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for id := range d.docs {
		if ids[id] {
			n++
		}
	}
	return n
}

// openAIFlavors maps the provider names that speak OpenAI's API (--llm,
// --embed) to the client's flavor.
var openAIFlavors = map[string]string{"openai": openai.FlavorOpenAI, "openai-compatible": openai.FlavorGeneric,
	"vllm": openai.FlavorVLLM, "llamacpp": openai.FlavorLlamaCpp}

// cacheSalt is the vLLM cache_salt of this run: vLLM only shares cached
// prompt blocks between requests with the same salt.
func cacheSalt(e *env, flavor string) string {
	if flavor != openai.FlavorVLLM {
		return ""
	}
	return e.cacheSalt
}

// llmSummary is the line "situate index" prints after a run whose LLM
// settings changed: "re-situated 12 documents: prompt template changed".
func llmSummary(e *env) string {
	if e.llmChange == "" || e.llmDocs == nil {
		return ""
	}
	return fmt.Sprintf("re-situated %d documents: %s", e.llmDocs.resituated(e.llmBefore), e.llmChange)
}
