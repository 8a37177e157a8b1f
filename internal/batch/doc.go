// Package batch holds what the embedding and rerank adapters
// (provider/cohere, provider/voyage, provider/gemini, provider/tei) do
// alike around their HTTP calls: cutting a call's texts into requests
// (Plan, Run), checking the texts before sending (CheckTexts) and checking
// the vectors that come back (CheckVectors, CheckEmbeddings).
//
// It speaks in plain values: problems come back as a *Problem or a
// description string, and each adapter turns them into its own typed
// error, so the error messages stay the adapters' and name the provider,
// the operation and the batch. It imports nothing from situate.
package batch
