// Package geminitest is a fake Gemini API server for tests. It stands in for
// https://generativelanguage.googleapis.com and speaks the wire format
// Google documents for POST /v1beta/models/{model}:batchEmbedContents:
// {"requests": [{"model": "models/...", "content": {"parts": [{"text"}]},
// "taskType", "title", "outputDimensionality"}]} answering {"embeddings":
// [{"values": [...]}]} in request order. The key is read from
// x-goog-api-key (or ?key=).
//
// Errors have Google's shape {"error": {"code", "message", "status",
// "details"}}: 400 INVALID_ARGUMENT (bad key with an ErrorInfo
// API_KEY_INVALID detail, more than 100 requests, mismatched model names,
// an unknown taskType, outputDimensionality outside [128, 3072], empty
// parts), 404 NOT_FOUND for an unknown model, 429 RESOURCE_EXHAUSTED with
// QuotaFailure and RetryInfo {"retryDelay": "30s"} details, 503
// UNAVAILABLE. Message wording follows the API's style but is the fake's.
//
// As the API does, text above 2048 tokens is cut silently (Stats counts
// it), and vectors below 3072 dimensions are not unit length.
//
// What it does not reproduce: the model. Embeddings are a hashed bag of
// words (Vector; texts sharing words are similar) scaled by
// sqrt(dim/3072) below 3072 dimensions; taskType does not change them.
// Tokens are estimated (Tokens).
//
// Faults are injected per request with Inject (429, 503, wrong count,
// short vector, NaN, empty, truncated body, zero vector). The package
// imports nothing from situate but
// internal/fakeembed, the hashed bag of words all the fakes share, and
// internal/fakeapi, the fakes' server skeleton (request recording, fault
// queue, key check).
package geminitest
