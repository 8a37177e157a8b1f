// Package voyagetest is a fake Voyage AI server for tests. It stands in for
// https://api.voyageai.com and speaks the wire format Voyage documents:
//
//   - POST /v1/embeddings {input, model, input_type, truncation,
//     output_dimension, output_dtype} answering {"object":"list",
//     "data":[{"object":"embedding","embedding":[...],"index":i}],
//     "model":..., "usage":{"total_tokens":n}};
//   - POST /v1/contextualizedembeddings {inputs: [[chunk...]...], ...}
//     answering data[{"object":"list","data":[embedding...],"index":d}];
//   - POST /v1/rerank {query, documents, model, top_k, return_documents,
//     truncation} answering data[{relevance_score, index[, document]}]
//     sorted by relevance;
//   - errors as {"detail": "..."} with 400, 401, 404, 429 (retry-after) and
//     500.
//
// Limits are enforced as documented: at most 1000 texts (or documents) per
// request, the per-model request token limits (1M for the lite models,
// 320K for voyage-3.5/voyage-4/voyage-2, 120K for the others), a 32K-token
// context length (cut silently unless truncation:false, then a 400),
// output_dimension in {256, 512, 1024, 2048}; contextualized requests at
// most 1000 documents, 16K chunks and 120K tokens; rerank requests at most
// 600K tokens counted as query tokens per document plus document tokens.
// The wording of the 400 messages is the fake's own (Voyage does not
// document it); it names the limit the way Voyage's messages do.
//
// What it does not reproduce: the model. Embeddings are a hashed bag of
// words (Vector: words and CJK characters and pairs hashed to ±1 in a
// fixed dimension, L2-normalized), so texts sharing words are similar and
// end-to-end retrieval tests can assert rankings; input_type is checked
// and recorded but does not change the vector. Contextualized chunk
// vectors add the whole document's bag at weight 0.3 (ContextVector). The
// reranker scores the share of query terms found in the document (Score).
// Tokens are estimated (Tokens), not Voyage's tokenizer.
//
// Faults are injected per request with Inject: 429 with retry-after, 500,
// a missing vector, a short vector, a NaN literal, an empty data list, a
// truncated body, a repeated index, an all-zero vector. Stats counts
// requests, items and rejections; Requests returns the bodies.
//
// The package imports nothing from situate but
// internal/fakeembed, the hashed bag of words all the fakes share, and
// internal/fakeapi, the fakes' server skeleton (request recording, fault
// queue, key check).
package voyagetest
