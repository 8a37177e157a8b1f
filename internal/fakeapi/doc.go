// Package fakeapi is the skeleton the fake provider servers share
// (provider/cohere/coheretest, provider/voyage/voyagetest,
// provider/gemini/geminitest, provider/tei/teitest,
// provider/openai/openaitest, provider/anthropic/anthropictest,
// provider/ollama/ollamatest): an
// httptest server that reads and records every request (Request), checks
// its credential, takes the first queued fault that matches it (Take) and
// hands the request's body and fault to the endpoint's handler.
//
// It also holds the pieces of scripted failures every fake answers
// alike: a retry-after header in whole seconds (RetryAfter), a connection
// reset (Reset), a request held until the client gives up or the server
// closes (Server.Hang), a JSON answer cut in half (WriteJSON with
// truncate), and the faults of the embedding and rerank fakes (Kind,
// Fault; Shape: a vector too few, one value short, none, all zeros;
// ShapeResults: a result too few, none, a repeated index), an input cut
// at a context length (TruncateTokens) and the fake LLMs' answer
// (ContextFor).
//
// Wire formats stay in the fakes: each writes its provider's error
// bodies, status mapping and answers, and says in its package comment
// which API it stands in for. It imports nothing from situate.
package fakeapi
