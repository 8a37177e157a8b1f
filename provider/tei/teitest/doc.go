// Package teitest is a fake Hugging Face Text Embeddings Inference server
// for tests. It stands in for a TEI container (ghcr.io/huggingface/
// text-embeddings-inference) and speaks its native HTTP API as TEI's router
// implements it:
//
//   - GET /info: model_id, model_dtype, model_type ({"embedding":
//     {"pooling":"cls"}} or {"reranker":{"id2label":...}}),
//     max_input_length, max_batch_tokens, max_client_batch_size,
//     auto_truncate, version...;
//   - POST /embed {inputs, truncate, normalize, prompt_name} answering
//     [[float...]...] with x-compute-tokens and x-compute-type headers;
//   - POST /rerank {query, texts, truncate, raw_scores, return_text}
//     answering [{index, score[, text]}] sorted by score;
//   - errors as {"error": "...", "error_type": "Validation"} with TEI's
//     status per type (Validation 413, Tokenizer 422, Backend 424,
//     Overloaded 429, Unhealthy 503): "batch size 40 > maximum allowed
//     batch size 32", "Input validation error: `inputs` must have less
//     than 512 tokens. Given: 600", "`inputs` cannot be empty", "model is
//     not a re-ranker model"; a bare 401 for a wrong --api-key; a
//     plain-text 413 for a body above --payload-limit.
//
// Defaults are those of a server started with only --model-id: 32 texts per
// request, 512-token inputs, normalize on, truncate off.
//
// What it does not reproduce: the model and its tokenizer. Embeddings are
// a hashed bag of words (Vector; texts sharing words are similar), with
// prompt_name prepended as "<name>: "; normalize:false scales the vector.
// The reranker's logit is 10·Score−5 (Score: share of query terms in the
// text), passed through a sigmoid unless raw_scores. Tokens are estimated
// (Tokens, plus 2 for [CLS] and [SEP]).
//
// Faults are injected per request with Inject (overloaded, unhealthy,
// backend failure, wrong count, short vector, NaN, empty, truncated body,
// repeated index, zero vector); SetMaxClientBatchSize changes the limit at
// runtime. The package imports nothing from situate but
// internal/fakeembed, the hashed bag of words all the fakes share, and
// internal/fakeapi, the fakes' server skeleton (request recording, fault
// queue, key check).
package teitest
