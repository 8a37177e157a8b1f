// Package gemini is situate's embedding client for the Gemini API
// (generativelanguage.googleapis.com). Embedder implements situate.Embedder
// with POST /v1beta/models/{model}:batchEmbedContents, one embedContent
// request per text: {"model": "models/<model>", "content": {"parts":
// [{"text": ...}]}, "taskType": "RETRIEVAL_DOCUMENT" or "RETRIEVAL_QUERY"
// (situate.InputType), "outputDimensionality" when Options.Dimensions is
// set}, at most 100 per call (MaxBatchTexts), key in x-goog-api-key.
//
// The API truncates input above the model's limit (2048 tokens for
// gemini-embedding-001) without saying so and has no switch to refuse it.
// This client therefore refuses, by estimate (EstimateTokens), any text
// above Options.MaxInputTokens with an *Error wrapping
// situate.ErrPromptTooLarge naming the text; the engine applies its
// shortening policy. Set MaxInputTokens lower if a corpus tokenizes
// unusually densely.
//
// gemini-embedding-001 returns unit vectors only at its full 3072
// dimensions; Options.Normalize L2-normalizes smaller ones. Answers are
// checked (one embedding per text, in order; one dimension across batches
// and calls; finite values; no all-zero vector) and a failure names
// provider, model, operation and batch.
//
// Errors are *Error values carrying Google's {"error": {"code", "message",
// "status", "details"}}: Retryable covers 408, 409, 429
// RESOURCE_EXHAUSTED, 5xx, connection failures, timeouts and truncated
// answers; RetryAfter reads the google.rpc.RetryInfo retryDelay detail (or
// retry-after); RateLimited marks 429s. The API reports no token counts
// for embeddings, so usage records have InputTokens 0.
//
// Reading GEMINI_API_KEY is the caller's job. Package geminitest is a fake
// server speaking the same wire format. There is no Gemini reranker.
//
// This package imports only package driver, internal/apiclient
// and internal/batch (HTTP plumbing, batching and response checks shared
// with the other embedding adapters).
//
// Refusals are typed: a 401 or 403 matches situate.ErrUnauthorized and an
// unknown model (404) situate.ErrModelNotFound, neither retryable, so a
// run stops at the first; no error text or usage record carries the key
// or anything like a credential. The client passes the conformance suites
// of package situatetest (conformance_test.go).
package gemini
