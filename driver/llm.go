package driver

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
	// Sample, when > 0, asks for another sample than the earlier requests
	// of the same prompt (the contextualizer rejected their answer):
	// providers that can vary the seed or raise the temperature do so.
	Sample int
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

// ModelIdentity is what a server says about the model it serves, so that
// contexts written by different models (or model files behind one URL) are
// told apart.
type ModelIdentity struct {
	// Name is the model's own name: the served model id, alias or file
	// name ("qwen3-8b-q4_k_m.gguf", "Qwen/Qwen3-8B").
	Name string
	// Digest tells apart models of the same name where the server says
	// more (a file's hash or path, parameter count, size); may be empty.
	Digest string
}

// ModelIdentifier is implemented by LLMs that can ask their server which
// model it serves (llama.cpp /props and /v1/models, vLLM /v1/models, Ollama
// /api/show).
type ModelIdentifier interface {
	ModelIdentity(ctx context.Context) (ModelIdentity, error)
}
