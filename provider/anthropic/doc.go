// Package anthropic is situate's client for the Anthropic Messages API
// (Claude). Client implements situate.LLM, situate.TokenCounter and
// situate.ContextWindower, and adds Message Batches for the 50%-cheaper
// batch mode.
//
// Each prompt is sent as one user message of two text blocks: the
// document prefix, marked {"cache_control":{"type":"ephemeral"}} (with
// "ttl":"1h" if configured, and always in batches), and the chunk part.
// The answer is streamed (SSE) so that Prompt.Started fires at
// message_start, the moment the prefix is in Anthropic's cache and the
// document's other chunks can be sent to read it. Usage records uncached
// input, cache-write, cache-read and output tokens, priced from a built-in
// list-price table (DefaultPrice) that knows the 5-minute and 1-hour
// cache-write rates and the batch discount.
//
// Errors are *Error values naming the provider, model, operation and
// status, with Anthropic's error.type and request-id. Retryable reports
// 408/409/429/5xx/529, connection failures, timeouts and broken streams
// (not a 429 for a reached spend limit); RetryAfter reads retry-after-ms or
// retry-after; RateLimited marks 429s and overloads (529 or an
// overloaded_error event) so the caller can also lower its concurrency. The
// client itself never retries: the caller (package llm) owns the policy.
//
// The client is plain net/http and encoding/json: the API surface used is
// three endpoints, and the official SDK (anthropic-sdk-go) costs about
// 140 s of cold compile time for no feature needed here.
//
// Package anthropictest is a fake server speaking the same wire format
// with Anthropic's caching semantics, for this package's tests and others'.
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
package anthropic
