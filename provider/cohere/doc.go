// Package cohere is situate's client for Cohere: Embedder (POST /v2/embed)
// implements situate.Embedder, Reranker (POST /v2/rerank) implements
// situate.Reranker.
//
// Embedder sends input_type "search_document" or "search_query"
// (situate.InputType), embedding_types ["float"], truncate "NONE" and
// output_dimension when Options.Dimensions is set (embed-v4.0), in batches
// of at most 96 texts (MaxBatchTexts). A text above Options.MaxInputTokens
// (default ModelMaxInputTokens: 128K for embed-v4.0, 512 for the v3
// models; estimated with EstimateTokens) is refused with an *Error
// wrapping situate.ErrPromptTooLarge naming the text, and with truncate
// "NONE" Cohere refuses what the estimate lets through: nothing is
// silently truncated. Answers are checked (embeddings.float count, one
// dimension across batches and calls, finite values, no all-zero vector)
// and a failure names provider, model, operation and batch.
//
// Reranker sends top_n equal to the batch size so every text gets a score,
// maps results back to input order by their index (checked for range and
// repeats) and splits more than MaxRerankDocuments texts over requests.
//
// Errors are *Error values: Cohere's {"id","message"} bodies give Message
// and RequestID; Retryable covers 408, 409, 429, 5xx, connection failures,
// timeouts and truncated answers; RetryAfter reads retry-after;
// RateLimited marks 429s. Usage records InputTokens from
// meta.billed_units.input_tokens (embed) or meta.tokens.input_tokens
// (rerank, when present; Cohere bills rerank in search units).
//
// Reading CO_API_KEY is the caller's job. Package coheretest is a fake
// server speaking the same wire format.
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
package cohere
