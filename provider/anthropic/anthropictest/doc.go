// Package anthropictest is a fake Anthropic API server for tests. It stands
// in for https://api.anthropic.com: an httptest server that speaks the
// Messages API wire format as Anthropic documents it, so that a client
// under test cannot tell it from the real endpoint for the parts situate
// uses:
//
//   - POST /v1/messages, streaming (SSE events message_start,
//     content_block_start, ping, content_block_delta, content_block_stop,
//     message_delta, message_stop, error) and non-streaming;
//   - POST /v1/messages/count_tokens;
//   - Message Batches: POST /v1/messages/batches, GET .../{id},
//     POST .../{id}/cancel, GET .../{id}/results (JSONL);
//   - errors as {"type":"error","error":{"type":...,"message":...}} with
//     Anthropic's statuses, request-id and retry-after headers.
//
// It implements Anthropic's prompt-caching semantics: the cache key is the
// model plus the exact content up to and including a block marked
// cache_control (up to 4 breakpoints; the longest cached one is read); an
// entry becomes readable only once the response that writes it has started
// (message_start sent), so parallel requests sent before that each pay to
// write it; prefixes below the model's minimum (MinCacheTokens: 1024 for
// Sonnet and Opus 4/4.1, 2048 for Haiku 3/3.5, 4096 for Haiku 4.5 and Opus
// 4.5/4.6) are not cached; entries live 5 minutes, or 1 hour with
// "ttl":"1h", from their last use, on an injectable clock.
//
// What it does not reproduce: Claude's tokenizer (CountTokens approximates
// with bytes/4, see there), the model (the answer is "Context for: " and the
// first words of the chunk, see Config.Generate), rate limits (use Inject),
// and asynchronous batch timing (a batch ends BatchProcessingTime after
// creation on the clock and runs its requests in order when first polled
// after that).
//
// Faults are injected per request with Inject: 429 with retry-after, spend
// limit 429, 529, 500, connection reset, hang, truncated JSON, an error
// event mid-stream, and an empty completion. Stats counts calls and cache
// traffic; Requests returns the recorded request bodies.
//
// The package imports nothing from situate but internal/fakeapi, the
// fakes' server skeleton (request recording, fault queue, hang, reset), so
// any package's tests can use it.
package anthropictest
