package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate"
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

// denseSettings configure the dense arm, fusion and reranking.
var denseSettings = []string{"embed", "embed-base-url", "embed-api-key-env", "embed-dimensions", "embed-max-tokens",
	"fusion", "dense-weight", "lexical-weight", "rerank", "rerank-base-url", "rerank-api-key-env"}

func denseSettingDefs() []*setting {
	d := situate.DefaultOptions()
	return []*setting{
		{name: "embed", usage: "embedding model as PROVIDER:MODEL (openai, openai-compatible, vllm, llamacpp, ollama, tei, voyage, cohere, gemini, glove); enables dense and hybrid search"},
		{name: "embed-base-url", usage: "embedding server URL (self-hosted: vLLM, llama.cpp, TEI, Ollama, LM Studio)"},
		{name: "embed-api-key-env", usage: "environment variable with the embedding API key (default: OPENAI_API_KEY, VOYAGE_API_KEY, CO_API_KEY or GEMINI_API_KEY)"},
		{name: "embed-dimensions", def: "0", usage: "output dimension for models that support it (0: the model's)"},
		{name: "embed-max-tokens", def: "0", usage: "embedding input limit in tokens; longer texts get their context shortened first, then the chunk tail (0: unknown)"},
		{name: "fusion", def: d.Fusion, usage: "hybrid fusion: rrf (k=60, 1-based ranks), cookbook (weighted 1/rank), minmax or relative"},
		{name: "dense-weight", def: fmt.Sprint(d.DenseWeight), usage: "weight of the dense arm in fusion"},
		{name: "lexical-weight", def: fmt.Sprint(d.LexicalWeight), usage: "weight of the BM25 arm in fusion"},
		{name: "rerank", usage: "reranker as PROVIDER:MODEL (cohere, voyage, tei, llamacpp, jina, llm); searches then rerank the fused top 150"},
		{name: "rerank-base-url", usage: "reranker server URL (TEI, llama.cpp, Jina-compatible)"},
		{name: "rerank-api-key-env", usage: "environment variable with the reranker API key (default: CO_API_KEY, VOYAGE_API_KEY, JINA_API_KEY)"},
	}
}

func apiKey(c *config, e *env, setting, def string) string {
	name := c.str(setting)
	if name == "" {
		name = def
	}
	return e.getenv(name)
}

// newEmbedder builds the embedder named by --embed, wrapped with the store's
// vector cache so an unchanged text is never embedded twice.
// The second result counts tokens as the provider's client checks its input
// limit, so the engine shortens texts to what the client accepts.
func newEmbedder(ctx context.Context, c *config, e *env, store embedStore) (situate.Embedder, func(string) int, error) {
	spec := c.str("embed")
	if spec == "" {
		return nil, nil, nil
	}
	provider, model, _ := strings.Cut(spec, ":")
	dims, err := c.int("embed-dimensions")
	if err != nil {
		return nil, nil, err
	}
	maxTokens, err := c.int("embed-max-tokens")
	if err != nil {
		return nil, nil, err
	}
	base := c.str("embed-base-url")
	var emb situate.Embedder
	count := voyage.EstimateTokens // voyage, cohere, tei and gemini share it
	switch provider {
	case "openai", "openai-compatible", "vllm", "llamacpp":
		flavor := openAIFlavors[provider]
		if base == "" {
			base = e.getenv("OPENAI_BASE_URL")
		}
		count = openai.EstimateTokens
		emb, err = openai.NewEmbedder(openai.EmbedOptions{APIKey: apiKey(c, e, "embed-api-key-env", "OPENAI_API_KEY"),
			BaseURL: base, Model: model, Flavor: flavor, Dimensions: dims, MaxInputTokens: maxTokens, Usage: store})
	case "ollama":
		if base == "" {
			if base, err = ollama.BaseURL(e.getenv("OLLAMA_HOST")); err != nil {
				return nil, nil, err
			}
		}
		count = ollama.EstimateTokens
		emb, err = ollama.NewEmbedder(ollama.EmbedOptions{BaseURL: base, Model: model, Dimensions: dims, Usage: store})
	case "tei":
		emb, err = tei.NewEmbedder(ctx, tei.Options{BaseURL: base, APIKey: apiKey(c, e, "embed-api-key-env", "HF_API_TOKEN"), Model: model, MaxInputTokens: maxTokens, Usage: store})
	case "voyage":
		emb, err = voyage.NewEmbedder(voyage.Options{APIKey: apiKey(c, e, "embed-api-key-env", "VOYAGE_API_KEY"), BaseURL: base, Model: model, Dimensions: dims, MaxInputTokens: maxTokens, Usage: store})
	case "cohere":
		emb, err = cohere.NewEmbedder(cohere.Options{APIKey: apiKey(c, e, "embed-api-key-env", "CO_API_KEY"), BaseURL: base, Model: model, Dimensions: dims, MaxInputTokens: maxTokens, Usage: store})
	case "gemini":
		emb, err = gemini.NewEmbedder(gemini.Options{APIKey: apiKey(c, e, "embed-api-key-env", "GEMINI_API_KEY"), BaseURL: base, Model: model, Dimensions: dims, Usage: store})
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

// newReranker builds the reranker named by --rerank.
func newReranker(ctx context.Context, c *config, e *env) (situate.Reranker, error) {
	spec := c.str("rerank")
	if spec == "" {
		return nil, nil
	}
	provider, model, _ := strings.Cut(spec, ":")
	base := c.str("rerank-base-url")
	var (
		r   situate.Reranker
		err error
	)
	switch provider {
	case "cohere":
		r, err = cohere.NewReranker(cohere.Options{APIKey: apiKey(c, e, "rerank-api-key-env", "CO_API_KEY"), BaseURL: base, Model: model})
	case "voyage":
		r, err = voyage.NewReranker(voyage.Options{APIKey: apiKey(c, e, "rerank-api-key-env", "VOYAGE_API_KEY"), BaseURL: base, Model: model})
	case "tei":
		r, err = tei.NewReranker(ctx, tei.Options{BaseURL: base, APIKey: apiKey(c, e, "rerank-api-key-env", "HF_API_TOKEN"), Model: model})
	case "llamacpp", "jina":
		flavor := openai.FlavorLlamaCpp
		if provider == "jina" {
			flavor = openai.FlavorGeneric
		}
		r, err = openai.NewReranker(openai.RerankOptions{APIKey: apiKey(c, e, "rerank-api-key-env", "JINA_API_KEY"), BaseURL: base, Model: model, Flavor: flavor})
	case "llm":
		models, lerr := newLLM(c, e)
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
