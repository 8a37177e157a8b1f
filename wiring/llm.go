package wiring

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/ollama"
	"github.com/situate/situate/provider/openai"
)

// OpenAIFlavors maps the provider names that speak OpenAI's API (--llm,
// --embed) to the client's flavor.
var OpenAIFlavors = map[string]string{"openai": openai.FlavorOpenAI, "openai-compatible": openai.FlavorGeneric,
	"vllm": openai.FlavorVLLM, "llamacpp": openai.FlavorLlamaCpp}

// LocalProviders run on the user's own hardware: no price, GPU time.
var LocalProviders = map[string]bool{"llamacpp": true, "vllm": true, "ollama": true}

// NewLLM builds the chat model(s) named by --llm; replicas when several base
// URLs are given.
func NewLLM(s Settings, env Env) ([]driver.LLM, error) {
	spec := s.Value("llm")
	provider, model, _ := strings.Cut(spec, ":")
	var extra map[string]any
	if v := s.Value("llm-extra"); v != "" {
		if err := json.Unmarshal([]byte(v), &extra); err != nil {
			return nil, usagef("--llm-extra (from %s): not a JSON object: %v", s.Origin("llm-extra"), err)
		}
	}
	window, err := Int(s, "llm-context-window")
	if err != nil {
		return nil, err
	}
	maxTokens, err := Int(s, "llm-max-tokens")
	if err != nil {
		return nil, err
	}
	keyEnv := s.Value("llm-api-key-env")
	urls := List(s, "llm-base-url")
	var models []driver.LLM
	switch provider {
	case "anthropic":
		if keyEnv == "" {
			keyEnv = "ANTHROPIC_API_KEY"
		}
		if len(urls) == 0 {
			urls = []string{env.getenv("ANTHROPIC_BASE_URL")}
		}
		if env.getenv(keyEnv) == "" {
			return nil, fmt.Errorf("--llm %s: environment variable %s is empty", spec, keyEnv)
		}
		for _, u := range urls {
			m, err := anthropic.New(anthropic.Options{APIKey: env.getenv(keyEnv), BaseURL: u, Model: model,
				MaxTokens: maxTokens, CacheTTL: s.Value("llm-cache-ttl"), ContextWindow: window})
			if err != nil {
				return nil, fmt.Errorf("--llm %s: %w", spec, err)
			}
			models = append(models, m)
		}
	case "openai", "openai-compatible", "vllm", "llamacpp":
		if keyEnv == "" {
			keyEnv = "OPENAI_API_KEY"
		}
		flavor := OpenAIFlavors[provider]
		if len(urls) == 0 {
			urls = []string{env.getenv("OPENAI_BASE_URL")}
		}
		if provider != "openai" && urls[0] == "" {
			return nil, usagef("--llm %s: needs --llm-base-url", spec)
		}
		salt := ""
		if flavor == openai.FlavorVLLM {
			salt = env.CacheSalt
		}
		for _, u := range urls {
			m, err := openai.New(openai.Options{APIKey: env.getenv(keyEnv), BaseURL: u, Model: model, MaxTokens: maxTokens,
				Flavor: flavor, PromptCacheKey: flavor == openai.FlavorOpenAI, ExtraBody: extra, ContextWindow: window,
				CacheSalt: salt})
			if err != nil {
				return nil, fmt.Errorf("--llm %s: %w", spec, err)
			}
			// LLM() hides token counting where the server cannot count, so
			// the contextualizer estimates instead.
			models = append(models, m.LLM())
		}
	case "ollama":
		if len(urls) == 0 {
			u, err := ollama.BaseURL(env.getenv("OLLAMA_HOST"))
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

// LLMOptions builds the LLM contextualizer's options from the settings; it
// is shared by the contextualizer of an index run (NewContextualizer),
// batch mode and context regeneration. Cache, Usage and Replicas are left
// to the caller; the offline contextualizer is the fallback.
func LLMOptions(s Settings) (llm.Options, error) {
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
	for _, x := range ints {
		n, err := Int(s, x.name)
		if err != nil {
			return o, err
		}
		if n < x.min {
			return o, usagef("--%s (from %s): %d: must be >= %d", x.name, s.Origin(x.name), n, x.min)
		}
		*x.dst = n
	}
	var err error
	if o.MaxCostUSD, err = Float(s, "max-cost"); err != nil {
		return o, err
	}
	if o.MaxCostUSD < 0 {
		return o, usagef("--max-cost (from %s): %g: must be >= 0", s.Origin("max-cost"), o.MaxCostUSD)
	}
	if v := s.Value("llm-timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return o, usagef("--llm-timeout (from %s): %q: want a positive duration such as 90s or 2m", s.Origin("llm-timeout"), v)
		}
		o.CallTimeout = d
	}
	if o.Prices, err = Prices(s); err != nil {
		return o, err
	}
	switch v := s.Value("llm-degenerate"); v {
	case "reject":
	case "keep":
		o.KeepDegenerate = true
	default:
		return o, usagef("--llm-degenerate (from %s): %q: want reject or keep", s.Origin("llm-degenerate"), v)
	}
	switch v := s.Value("llm-one-chunk"); v {
	case "offline":
	case "call":
		o.CallWholeDocuments = true
	default:
		return o, usagef("--llm-one-chunk (from %s): %q: want offline or call", s.Origin("llm-one-chunk"), v)
	}
	o.CacheTTL = s.Value("llm-cache-ttl")
	o.TemplateFile = s.Value("llm-template")
	o.Language = s.Value("llm-language")
	if path := s.Value("llm-glossary"); path != "" {
		terms, err := llm.LoadGlossary(path)
		if err != nil {
			return o, usagef("--llm-glossary (from %s): %v", s.Origin("llm-glossary"), err)
		}
		o.Glossary = llm.StaticGlossary(terms)
		// The file's name for messages, its terms' hash for the settings.
		h := sha256.New()
		for _, t := range terms {
			fmt.Fprintf(h, "%d:%s%d:%s\n", len(t.Term), t.Term, len(t.Definition), t.Definition)
		}
		o.GlossaryID = filepath.Base(path) + "@" + hex.EncodeToString(h.Sum(nil)[:8])
	}
	if v := s.Value("llm-extra"); v != "" {
		var extra map[string]any
		if err := json.Unmarshal([]byte(v), &extra); err != nil {
			return o, usagef("--llm-extra (from %s): not a JSON object: %v", s.Origin("llm-extra"), err)
		}
		if len(extra) > 0 {
			b, _ := json.Marshal(extra) // keys sorted: one text per set of fields
			o.Extra = string(b)
		}
	}
	o.Fallback = offline.New(offline.DefaultOptions())
	return o, nil
}

// Prices is the price table: the built-in one, with the --llm model's
// price overridden by --llm-price.
func Prices(s Settings) (llm.PriceTable, error) {
	t := llm.DefaultPrices()
	v := s.Value("llm-price")
	if v == "" {
		return t, nil
	}
	model := s.Value("llm")
	if model == "" {
		return nil, usagef("--llm-price (from %s): needs --llm PROVIDER:MODEL, the model it prices", s.Origin("llm-price"))
	}
	base, _ := t.Lookup(model)
	p, err := llm.ParsePrice(v, base)
	if err != nil {
		return nil, usagef("--llm-price (from %s): %v", s.Origin("llm-price"), err)
	}
	return t.With(model, p), nil
}

// ContextStore is what the LLM contextualizer keeps in a store: the
// contexts it wrote and the usage of its calls.
type ContextStore interface {
	driver.ContextCache
	driver.UsageRecorder
}

// NewContextualizer wires the LLM contextualizer with the store as its
// context cache and usage recorder (through env.Usage, when set) and the
// offline contextualizer as the fallback for chunks whose calls keep
// failing. It asks a local server which model it serves.
func NewContextualizer(s Settings, env Env, store ContextStore) (*llm.Contextualizer, error) {
	models, err := NewLLM(s, env)
	if err != nil {
		return nil, err
	}
	o, err := LLMOptions(s)
	if err != nil {
		return nil, err
	}
	var usage driver.UsageRecorder = store
	if env.Usage != nil {
		usage = env.Usage(store)
	}
	o.Cache, o.Usage = store, usage
	if len(models) > 1 {
		o.Replicas = models[1:]
	}
	ctxz, err := llm.New(models[0], o)
	if err != nil {
		return nil, UsageError{err}
	}
	if err := identify(s, ctxz); err != nil {
		return nil, err
	}
	return ctxz, nil
}

// IdentifyTimeout bounds asking a local server which model it serves.
const IdentifyTimeout = 30 * time.Second

// identify asks the model's server which model it serves (llama.cpp,
// vLLM, Ollama), so that contexts carry the served model's name and a
// model swapped behind the same URL re-situates what the old one wrote.
func identify(s Settings, ctxz *llm.Contextualizer) error {
	ctx, cancel := context.WithTimeout(context.Background(), IdentifyTimeout)
	defer cancel()
	if err := ctxz.Identify(ctx); err != nil {
		where := ""
		if urls := List(s, "llm-base-url"); len(urls) > 0 {
			where = " at " + strings.Join(urls, ", ")
		}
		return fmt.Errorf("--llm %s: %w (is the server running%s?)", s.Value("llm"), err, where)
	}
	return nil
}

// StoredContextualizer is the contextualizer a store was last indexed
// with, as the Engine records it in the store's meta
// (driver.MetaContextualizer).
type StoredContextualizer struct {
	Name        string        `json:"name"`
	Fingerprint string        `json:"fingerprint,omitempty"`
	LLM         *llm.Settings `json:"llm,omitempty"`
}

// ReadStoredContextualizer reads the contextualizer the store was last
// indexed with; false when none is recorded.
func ReadStoredContextualizer(ctx context.Context, store driver.MetaStore) (StoredContextualizer, bool, error) {
	var sc StoredContextualizer
	v, ok, err := store.Meta(ctx, driver.MetaContextualizer)
	if err != nil || !ok {
		return sc, false, err
	}
	if err := json.Unmarshal([]byte(v), &sc); err != nil {
		return sc, false, fmt.Errorf("store meta %s: %w", driver.MetaContextualizer, err)
	}
	return sc, true, nil
}

// Stub makes a stored contextualizer stand in for the one the store was
// indexed with, for reading ("status"): the engine's processing
// fingerprint is then the index run's. It writes no contexts.
func (s StoredContextualizer) Stub() situate.Contextualizer {
	switch {
	case s.Name == "none":
		return nil
	case s.Fingerprint != "":
		return fingerprintedStub{stubContextualizer{s}}
	}
	return stubContextualizer{s}
}

type stubContextualizer struct{ s StoredContextualizer }

type fingerprintedStub struct{ stubContextualizer }

func (z fingerprintedStub) Fingerprint() string { return z.s.Fingerprint }

func (z stubContextualizer) Name() string { return z.s.Name }
func (z stubContextualizer) Contextualize(context.Context, situate.Document, []situate.Chunk) ([]situate.Context, error) {
	return nil, fmt.Errorf("contextualizer %s as recorded in the store: cannot write contexts: %w", z.s.Name, situate.ErrInvalid)
}
