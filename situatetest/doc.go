// Package situatetest holds the conformance suites every backend runs, as
// litestream runs one ReplicaClient suite over every replica client:
// TestStore for situate.Store implementations (with MetaStore,
// ContextCache, VectorCache and UsageRecorder when implemented),
// TestEmbedder, TestReranker and TestLLM for providers. Each suite is a
// function a backend's own test calls with its constructor; a backend is
// done when it passes. The suites assert only what the root package's
// interfaces promise, so a new backend (PostgreSQL, Weaviate) passes the
// same ones.
//
// The provider suites also check error typing against a refusing server:
// FaultServer answers in the provider's wire format (the backend's test
// supplies the body) with 401, 403, 404, 429, 500 or an echo of the
// request's key, and the suites assert that errors match
// situate.ErrUnauthorized and situate.ErrModelNotFound, that retryable
// errors say so (the interface package llm finds with errors.As), and that
// no key appears in an error or in anything recorded.
//
// It imports the root package and the standard library only (testing
// included), never an adapter.
package situatetest
