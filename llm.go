package situate

import "context"

// Prompt is one contextualization request to a chat model, already split at
// the cache boundary. Prefix is the document part: byte-identical for every
// chunk of a document (nothing per chunk may appear in it), so provider prompt
// caches and server prefix caches pay for it once. Suffix holds the chunk and
// the instruction.
type Prompt struct {
	// DocID keys provider-side caching (OpenAI prompt_cache_key, llama.cpp
	// slot pinning, replica selection). It never appears in the text.
	DocID     string
	Prefix    string
	Suffix    string
	MaxTokens int
	// Started, if set, is called once when the provider starts answering:
	// from then on the prefix is in the provider's cache, and the scheduler
	// may fan out the document's other chunks.
	Started func()
}

// Completion is a model's answer with what it cost.
type Completion struct {
	Text  string
	Usage Usage
}

// LLM is a chat model that completes prompts. Providers implement it; the
// contextualizer built on it implements Contextualizer.
type LLM interface {
	// Name is "provider:model".
	Name() string
	Complete(ctx context.Context, p Prompt) (Completion, error)
}

// TokenCounter is implemented by LLMs that can count a text's tokens exactly
// (Anthropic count_tokens, llama.cpp /tokenize). Others are estimated.
type TokenCounter interface {
	CountTokens(ctx context.Context, text string) (int, error)
}

// ContextWindower is implemented by LLMs that know their context window in
// tokens (llama.cpp /props, Ollama num_ctx, a configured value).
type ContextWindower interface {
	ContextWindow(ctx context.Context) (int, error)
}
