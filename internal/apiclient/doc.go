// Package apiclient is the HTTP plumbing every provider adapter shares
// (provider/anthropic, provider/openai, provider/ollama, provider/cohere,
// provider/voyage, provider/gemini, provider/tei):
//
//   - sending one JSON request under a timeout and decoding the answer
//     (Do, Marshal), reading a non-2xx answer (ResponseFault) and
//     classifying what went wrong (Fault, TransportFault: connection,
//     timeout, cancel, status with its retry-after, malformed body;
//     RetryableStatus, ParseRetryAfter);
//   - the typed error every adapter exports as its own Error (Error, made
//     by a Caller; Text is its message): retry advice for package llm,
//     401/403 matching situate.ErrUnauthorized and 404
//     situate.ErrModelNotFound (StatusSentinel);
//   - removing the request's key and anything like a credential from
//     every error text and usage record (Redact);
//   - server-sent event streams (SSEReader);
//   - the client core of the hosted embedding and rerank APIs (Settings,
//     Hosted: checked options and their redacted printing, authenticated
//     POST, Embed and Rerank calls in batches split in two when the
//     provider says a request is too large, usage records) and the token
//     estimate they batch by (EstimateTokens).
//
// Wire formats stay in the adapters: each reads its provider's error body
// itself and fills the Error's fields. It imports only the root package
// situate and internal/batch, no adapter.
package apiclient
