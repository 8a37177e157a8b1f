// Package openaitest is a fake OpenAI-compatible server for tests. It stands
// in for api.openai.com, a vLLM server or llama.cpp's llama-server
// (Config.Flavor) and speaks their wire format as documented:
//
//   - POST /v1/chat/completions, streaming (data: chat.completion.chunk
//     lines, a last chunk with usage when stream_options.include_usage is
//     set, data: [DONE]) and non-streaming (one chat.completion);
//     llama.cpp answers also carry timings {cache_n, prompt_n, ...};
//   - POST /v1/embeddings (deterministic hashed vectors, see Vector) and
//     POST /v1/rerank (share of query words found in each document);
//   - GET /v1/models (vLLM: with max_model_len), llama.cpp's GET /props
//     (total_slots, default_generation_settings.n_ctx) and POST /tokenize
//     (llama.cpp {"content"} -> tokens; vLLM {"prompt"} -> count);
//   - errors as {"error":{"message","type","param","code"}} (llama.cpp:
//     {"error":{"code":<status>,"message","type"}}), with each flavor's
//     context-length answer: OpenAI's context_length_exceeded, vLLM's
//     "maximum context length", llama.cpp's exceed_context_size_error.
//
// Caching follows each flavor's rule on a 4-bytes-per-token model of the
// ChatML-rendered prompt: OpenAI caches 1024+ tokens in 128-token steps,
// vLLM whole 16-token blocks per cache_salt, llama.cpp the longest common
// prefix with the previous prompt of the request's id_slot (when
// cache_prompt is not false).
//
// What it does not reproduce: real tokenizers, the model (answers are
// "Context for: " and the first words of the chunk), OpenAI's routing, or
// rate limits unless injected. Faults (Inject) cover 429 with retry-after
// or x-ratelimit-* headers, 429 insufficient_quota, 500, connection reset,
// a stream cut inside JSON, a stream without finish or [DONE], an error
// event mid-stream (llama.cpp's "error:" line), an empty completion, a
// non-streamed answer, NaN in an embedding and a short vector/result list.
//
// The package imports nothing from situate but internal/fakeapi, the
// fakes' server skeleton (request recording, fault queue, key check), and
// internal/fakeembed (HashVector).
package openaitest
