// Package openai is situate's client for OpenAI's Chat Completions API and
// every server that speaks it: api.openai.com, vLLM, llama.cpp's
// llama-server, LM Studio, TGI, LiteLLM. Client implements situate.LLM,
// situate.ContextWindower and (for llama.cpp and vLLM) situate.TokenCounter;
// Embedder implements situate.Embedder over POST /embeddings; Reranker
// implements situate.Reranker over the llama.cpp/Jina POST /rerank.
//
// Each prompt is ONE user message whose content is the single string
// Prefix+Suffix. The chat template puts only a fixed header before it, so
// the document's bytes open every chunk's prompt and each server's prefix
// cache can reuse them: OpenAI caches prompts of 1024+ tokens in 128-token
// increments (prompt_cache_key = DocID helps routing, Options.PromptCacheKey);
// vLLM reuses hashed 16-token blocks (scoped by cache_salt,
// Options.CacheSalt); llama.cpp reuses the longest common token prefix of
// the slot's previous prompt, so the client sends cache_prompt:true and
// pins every document to one slot (id_slot = FNV-1a(DocID) mod
// /props total_slots, see Slot). Per slot, the client runs one request at
// a time and, when several wait, serves the slot's current document first.
// Two content parts are not used: vLLM and llama.cpp join text parts with
// a newline of their own.
//
// Measured against a real llama-server (TestCacheEfficiency, see
// bench/provider-openai-llamacpp-cache-*.txt), in prompt tokens evaluated
// relative to the minimum: with llama.cpp's host-memory prompt cache
// (--cache-ram, on by default in this version) the server restores any
// earlier prefix, so the contextualizer's order and a shuffled order both
// evaluate 0.98x; with --cache-ram 0 a slot holds one prefix, and the
// contextualizer (which starts a new document while the previous one's
// last chunks are still queued in its own scheduler) evaluates 1.27x and
// a shuffled order 2.09x. Letting the server pick slots (SlotsServer) is
// worse: 1.42x and 1.79x. llama-server sends the first stream chunk after
// it has processed the prompt, so Prompt.Started means the prefix is in
// the slot's cache.
// Keep --cache-ram on.
//
// The answer is streamed (SSE data: lines, [DONE], stream_options
// include_usage) so Prompt.Started fires on the first chunk. Usage maps
// prompt_tokens - prompt_tokens_details.cached_tokens to InputTokens,
// cached_tokens to CacheReadTokens and completion_tokens to OutputTokens.
// llama.cpp's timings (prompt_n: tokens actually evaluated; cache_n:
// reused) come back from CompleteTimings and are summed by Timings.
//
// Flavors (Options.Flavor) select the request fields: openai sends
// max_completion_tokens and prompt_cache_key; vllm max_tokens and
// cache_salt; llamacpp max_tokens, cache_prompt and id_slot; generic only
// the standard fields. ExtraBody adds any other field from configuration
// (a llama.cpp "grammar", "temperature", "chat_template_kwargs").
// ContextWindow comes from Options, llama.cpp's /props
// (default_generation_settings.n_ctx, which is already per slot), or vLLM's
// /v1/models max_model_len. CountTokens uses POST /tokenize on llama.cpp
// and vLLM; hand Client.LLM to the contextualizer so that other flavors
// are estimated instead of failing.
//
// Errors are *Error values naming the flavor, model, operation (and batch
// for embeddings) and status, with the server's error type and code.
// Retryable reports 408/409/429/5xx, connection failures, timeouts and
// broken streams (not a 429 insufficient_quota); RetryAfter reads
// retry-after-ms, retry-after and OpenAI's x-ratelimit-reset-requests/-tokens;
// RateLimited marks 429s. Prompts too large for the context (OpenAI
// context_length_exceeded, vLLM "maximum context length", llama.cpp
// exceed_context_size_error) wrap situate.ErrPromptTooLarge. The client
// never retries a failed call itself (package llm owns the policy); it
// only lets net/http re-send a request whose reused keep-alive connection
// was closed before any answer.
//
// The client is plain net/http and encoding/json: openai-go is a large
// module for three endpoints. Package openaitest is a fake server speaking
// the same wire format with each flavor's caching rule.
//
// This package imports only package driver (the interfaces it implements
// and the nouns they share), internal/apiclient and internal/batch; it
// must not import the root package or other adapters (llm, sqlite,
// provider/...).
//
// Refusals are typed: a 401 or 403 matches situate.ErrUnauthorized and an
// unknown model (404) situate.ErrModelNotFound, neither retryable, so a
// run stops at the first; no error text or usage record carries the key
// or anything like a credential. The client passes the conformance suites
// of package situatetest (conformance_test.go).
package openai
