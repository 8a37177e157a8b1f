// Package coheretest is a fake Cohere API server for tests. It stands in for
// https://api.cohere.com and speaks the v2 wire format Cohere documents:
//
//   - POST /v2/embed {model, texts, input_type, embedding_types,
//     truncate, output_dimension} answering {"id", "embeddings":
//     {"float": [[...]]}, "texts", "meta": {"api_version": {"version":
//     "2"}, "billed_units": {"input_tokens": n}}, "response_type":
//     "embeddings_by_type"};
//   - POST /v2/rerank {model, query, documents, top_n, max_tokens_per_doc}
//     answering {"id", "results": [{index, relevance_score}] sorted by
//     relevance, "meta": {"billed_units": {"search_units": 1}, "tokens":
//     {"input_tokens": n}}};
//   - errors as {"id": "...", "message": "..."}: 400 invalid request, 401,
//     404, 429 (trial-key limit), 500.
//
// Limits: at most 96 texts per embed request, 1000 documents per rerank
// request; input_type one of search_document, search_query,
// classification, clustering, image; output_dimension only for
// embed-v4.0 (256, 512, 1024, 1536); context 128K tokens for embed-v4.0 and
// 512 for the v3 models, refused with truncate "NONE" and cut silently
// otherwise (the API's default is "END"). Default dimensions: 1536
// (embed-v4.0), 384 (light models), 1024 (others). The 400 wording for a
// too-long text is the fake's own.
//
// What it does not reproduce: the model. Embeddings are a hashed bag of
// words (Vector; texts sharing words are similar) and input_type does not
// change them; rerank scores are the share of query terms found (Score);
// tokens are estimated (Tokens).
//
// Faults are injected per request with Inject (429, 500, wrong count,
// short vector, NaN, empty, truncated body, repeated index, zero vector).
// The package imports nothing from situate but
// internal/fakeembed, the hashed bag of words all the fakes share, and
// internal/fakeapi, the fakes' server skeleton (request recording, fault
// queue, key check).
package coheretest
