// Package voyage is situate's client for Voyage AI: Embedder
// (POST /v1/embeddings) and ContextEmbedder
// (POST /v1/contextualizedembeddings, voyage-context-3) implement
// situate.Embedder, Reranker (POST /v1/rerank) implements
// situate.Reranker.
//
// Embedder sends input_type "document" or "query" (situate.InputType),
// output_dimension when Options.Dimensions is set, output_dtype "float"
// and truncation:false. Texts are batched by the documented limits: at
// most 1000 texts and the model's tokens per request (ModelBatchTokens,
// estimated with EstimateTokens); a batch the server still finds too large
// is halved and resent. A text above Options.MaxInputTokens (default: the
// model's context length) is never truncated: Embed returns an *Error
// wrapping situate.ErrPromptTooLarge naming the text's index, and the
// engine applies its shortening policy.
//
// Every answer is checked: one vector per text (placed by its index), one
// dimension (Options.Dimensions or the first one seen), finite values, no
// all-zero vector. A failed check is an *Error naming the provider, the
// model, the operation and the batch, e.g. "voyage voyage-3.5: embed batch
// 2 (texts 128-255): bad_response: got 127 vectors for 128 texts".
//
// Reranker returns scores in the order of the texts given (results are
// mapped back from their index, which is validated), splitting more than
// 1000 texts over several requests. ContextEmbedder.EmbedDocumentChunks
// embeds every document's chunks together so that each chunk's vector
// knows its document; its Embed embeds each text as a document of one
// chunk, which is how queries are sent.
//
// Errors are *Error values with Retryable (408, 409, 429, 5xx, connection
// failures, timeouts, truncated answers), RetryAfter (retry-after header)
// and RateLimited (429). The client never retries: the caller owns the
// policy. Options.Usage records one situate.Usage per request (Operation
// "embed" or "rerank", InputTokens from usage.total_tokens).
//
// Reading VOYAGE_API_KEY is the caller's job. Package voyagetest is a fake
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
package voyage
