// Package ollama is situate's client for Ollama's native API. Client
// implements situate.LLM and situate.ContextWindower over POST /api/chat;
// Embedder implements situate.Embedder over POST /api/embed. BaseURL turns
// an OLLAMA_HOST value ("host:port" without a scheme is allowed) into the
// server's URL with Ollama's own rules.
//
// Each prompt is one user message whose content is Prefix+Suffix, so the
// runner's KV cache of the previous prompt covers the document when the
// next chunk of the same document follows. The answer is streamed as
// NDJSON (Prompt.Started fires on the first line); usage comes from the
// last line: prompt_eval_count (tokens Ollama evaluated, excluding its
// prefix cache) is InputTokens and eval_count is OutputTokens.
//
// Ollama silently drops the start of a prompt longer than num_ctx, and
// its default num_ctx is small. So options.num_ctx is ALWAYS sent, sized
// from an estimate of the prompt (EstimateTokens, conservative, +10% and
// a template allowance) plus the answer budget, rounded up to a power of
// two, never below DefaultMinNumCtx, and never decreasing (Ollama reloads
// the model whenever num_ctx changes), capped at the model's
// context_length from POST /api/show (or Options.MaxNumCtx). A prompt
// whose estimate does not fit is never sent: Complete returns an *Error
// wrapping situate.ErrPromptTooLarge. Embeddings are sent with
// "truncate": false for the same reason.
//
// Errors are *Error values (Ollama answers {"error": "..."}): Retryable
// for 408/429/5xx, connection failures, timeouts, broken streams and an
// error line inside a stream; RateLimited for 429 and 503 (Ollama's full
// queue); an unknown model wraps situate.ErrModelNotFound.
//
// Package ollamatest is a fake Ollama server speaking the same NDJSON
// wire format, with Ollama's silent truncation and reload-on-num_ctx
// behaviour, so tests can prove the client avoids both.
//
// This package imports only package driver (the interfaces it implements
// and the nouns they share), internal/apiclient and internal/batch; it
// must not import the root package or other adapters.
//
// Refusals are typed: a 401 or 403 matches situate.ErrUnauthorized and an
// unknown model (404) situate.ErrModelNotFound, neither retryable, so a
// run stops at the first; no error text or usage record carries the key
// or anything like a credential. The client passes the conformance suites
// of package situatetest (conformance_test.go).
package ollama
