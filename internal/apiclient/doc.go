// Package apiclient is the HTTP plumbing the embedding and rerank adapters
// (provider/cohere, provider/voyage, provider/gemini, provider/tei) share:
// sending one JSON request under a timeout and decoding the answer (Do),
// classifying what went wrong (Fault: connection, timeout, cancel, non-2xx
// status with its retry-after, malformed body), the text of an adapter's
// typed error (Text), the options the hosted adapters share (Settings,
// NewHTTPClient), usage records (Record) and the token estimate the
// adapters batch by (EstimateTokens).
//
// Each adapter keeps its own exported Error type and turns a Fault into
// it, reading its provider's error body itself: wire formats stay in the
// adapters. It imports only the root package situate (for Record's
// Usage), no adapter.
package apiclient
