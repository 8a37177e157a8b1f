// Package fakeembed is the "model" behind the fake embedding and rerank
// servers (provider/cohere/coheretest, provider/voyage/voyagetest,
// provider/gemini/geminitest, provider/tei/teitest): a hashed bag of words.
// Texts sharing words get similar vectors, so retrieval over a fake behaves
// like (very crude) semantic search and end-to-end tests can assert
// rankings.
//
// It owns term splitting (Terms), the hashed embedding (Vector,
// ContextVector), the overlap reranker score (Score) and a token-count
// estimate (Tokens), and the meaningless hashed vector of the LLM fakes'
// /embed endpoints (HashVector, for provider/ollama/ollamatest and
// provider/openai/openaitest). All of these are pure and deterministic:
// the same text gives the same vector in every fake and every run. The fakes' server
// skeleton (routing, recording, faults) is internal/fakeapi.
//
// It imports nothing from situate and is for tests and fakes only.
package fakeembed
