// Package tei is situate's client for Hugging Face Text Embeddings
// Inference (TEI), the server that runs open embedding and reranker models
// (bge, e5, gte, multilingual-e5, bge-reranker...) on the user's own
// hardware. Embedder (POST /embed) implements situate.Embedder, Reranker
// (POST /rerank) implements situate.Reranker; both speak TEI's native API,
// not its OpenAI-compatible route, because only the native API has
// truncate:false and /rerank.
//
// A TEI server serves one model. Unless Options.Model, MaxInputTokens and
// BatchSize are all given, the constructors read GET /info: model_id (the
// Name is "tei:<model_id>"), model_type (an embedder needs an embedding
// model, a reranker a reranker), max_input_length and
// max_client_batch_size.
//
// Batches hold at most the batch size. A 413 "batch size N > maximum
// allowed batch size M" (the server runs with a smaller
// --max-client-batch-size than the client was told) lowers the batch size
// to M for the rest of the client's life and resends what is left in
// batches of M; a plain-text 413 (the body exceeded --payload-limit)
// halves the batch. Texts are sent with truncate:false: one above
// MaxInputTokens (estimated with EstimateTokens) is refused before sending,
// and one the server finds too long (413 "`inputs` must have less than N
// tokens") is an error wrapping situate.ErrPromptTooLarge; nothing is ever
// silently truncated. QueryPrefix/DocumentPrefix ("query: ", "passage: "
// for e5) and QueryPromptName/DocumentPromptName (prompt_name) express the
// input type for models that need it.
//
// Answers are checked (count, one dimension across batches and calls,
// finite values, no all-zero vector; rerank indexes in range and unique);
// failures are *Error values naming provider, model, operation and batch.
// TEI's {"error","error_type"} bodies become Error.Type ("validation",
// "overloaded", ...). Retryable covers 408, 409, 429 (overloaded), 5xx (503
// unhealthy), connection failures, timeouts and truncated answers, not 424
// (inference failed); RetryAfter reads retry-after if a proxy sends one.
// Usage records InputTokens from TEI's x-compute-tokens header.
//
// Package teitest is a fake TEI server speaking the same wire format.
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
package tei
