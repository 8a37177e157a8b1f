package wiring

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/embedcache"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/provider/cohere"
	"github.com/situate/situate/provider/gemini"
	"github.com/situate/situate/provider/glove"
	"github.com/situate/situate/provider/ollama"
	"github.com/situate/situate/provider/openai"
	"github.com/situate/situate/provider/tei"
	"github.com/situate/situate/provider/voyage"
)

// EmbedStore is what an embedder keeps in a store: its vector cache and
// the usage ledger of its calls.
type EmbedStore interface {
	driver.VectorCache
	driver.UsageRecorder
}

// apiKey reads the API key from the environment variable the setting
// names, or def.
func apiKey(s Settings, env Env, setting, def string) string {
	name := s.Value(setting)
	if name == "" {
		name = def
	}
	return env.getenv(name)
}

// NewEmbedder builds the embedder named by --embed (nil when none is),
// wrapped with the store's vector cache so an unchanged text is never
// embedded twice. The second result counts tokens as the provider's client
// checks its input limit, so the engine shortens texts to what the client
// accepts.
func NewEmbedder(ctx context.Context, s Settings, env Env, store EmbedStore) (situate.Embedder, func(string) int, error) {
	spec := s.Value("embed")
	if spec == "" {
		return nil, nil, nil
	}
	provider, model, _ := strings.Cut(spec, ":")
	dims, err := Int(s, "embed-dimensions")
	if err != nil {
		return nil, nil, err
	}
	maxTokens, err := Int(s, "embed-max-tokens")
	if err != nil {
		return nil, nil, err
	}
	base := s.Value("embed-base-url")
	var emb situate.Embedder
	count := voyage.EstimateTokens // voyage, cohere, tei and gemini share it
	switch provider {
	case "openai", "openai-compatible", "vllm", "llamacpp":
		if base == "" {
			base = env.getenv("OPENAI_BASE_URL")
		}
		count = openai.EstimateTokens
		emb, err = openai.NewEmbedder(openai.EmbedOptions{APIKey: apiKey(s, env, "embed-api-key-env", "OPENAI_API_KEY"),
			BaseURL: base, Model: model, Flavor: OpenAIFlavors[provider], Dimensions: dims, MaxInputTokens: maxTokens, Usage: store})
	case "ollama":
		if base == "" {
			if base, err = ollama.BaseURL(env.getenv("OLLAMA_HOST")); err != nil {
				return nil, nil, err
			}
		}
		count = ollama.EstimateTokens
		emb, err = ollama.NewEmbedder(ollama.EmbedOptions{BaseURL: base, Model: model, Dimensions: dims, Usage: store})
	case "tei":
		emb, err = tei.NewEmbedder(ctx, tei.Options{BaseURL: base, APIKey: apiKey(s, env, "embed-api-key-env", "HF_API_TOKEN"), Model: model, MaxInputTokens: maxTokens, Usage: store})
	case "voyage":
		emb, err = voyage.NewEmbedder(voyage.Options{APIKey: apiKey(s, env, "embed-api-key-env", "VOYAGE_API_KEY"), BaseURL: base, Model: model, Dimensions: dims, MaxInputTokens: maxTokens, Usage: store})
	case "cohere":
		emb, err = cohere.NewEmbedder(cohere.Options{APIKey: apiKey(s, env, "embed-api-key-env", "CO_API_KEY"), BaseURL: base, Model: model, Dimensions: dims, MaxInputTokens: maxTokens, Usage: store})
	case "gemini":
		emb, err = gemini.NewEmbedder(gemini.Options{APIKey: apiKey(s, env, "embed-api-key-env", "GEMINI_API_KEY"), BaseURL: base, Model: model, Dimensions: dims, Usage: store})
	case "glove": // offline GloVe word vectors: glove:[mean:|sif:]PATH (scripts/fetch-glove.sh)
		emb, err = glove.New(glove.ParseSpec(model))
	default:
		return nil, nil, usagef("--embed %q: provider must be openai, openai-compatible, vllm, llamacpp, ollama, tei, voyage, cohere, gemini or glove", spec)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--embed %s: %w", spec, err)
	}
	return embedcache.New(emb, store), count, nil
}

// NewReranker builds the reranker named by --rerank (nil when none is).
func NewReranker(ctx context.Context, s Settings, env Env) (situate.Reranker, error) {
	spec := s.Value("rerank")
	if spec == "" {
		return nil, nil
	}
	provider, model, _ := strings.Cut(spec, ":")
	base := s.Value("rerank-base-url")
	var (
		r   situate.Reranker
		err error
	)
	switch provider {
	case "cohere":
		r, err = cohere.NewReranker(cohere.Options{APIKey: apiKey(s, env, "rerank-api-key-env", "CO_API_KEY"), BaseURL: base, Model: model})
	case "voyage":
		r, err = voyage.NewReranker(voyage.Options{APIKey: apiKey(s, env, "rerank-api-key-env", "VOYAGE_API_KEY"), BaseURL: base, Model: model})
	case "tei":
		r, err = tei.NewReranker(ctx, tei.Options{BaseURL: base, APIKey: apiKey(s, env, "rerank-api-key-env", "HF_API_TOKEN"), Model: model})
	case "llamacpp", "jina":
		flavor := openai.FlavorLlamaCpp
		if provider == "jina" {
			flavor = openai.FlavorGeneric
		}
		r, err = openai.NewReranker(openai.RerankOptions{APIKey: apiKey(s, env, "rerank-api-key-env", "JINA_API_KEY"), BaseURL: base, Model: model, Flavor: flavor})
	case "llm":
		models, lerr := NewLLM(s, env)
		if lerr != nil {
			return nil, fmt.Errorf("--rerank llm uses --llm: %w", lerr)
		}
		r = llm.NewReranker(models[0], llm.RerankOptions{})
	default:
		return nil, usagef("--rerank %q: provider must be cohere, voyage, tei, llamacpp, jina or llm", spec)
	}
	if err != nil {
		return nil, fmt.Errorf("--rerank %s: %w", spec, err)
	}
	return r, nil
}
