// Package weaviatetest starts a real Weaviate for tests: one node, or a
// cluster of several, of the weaviate-server that scripts/build-weaviate.sh
// builds, on free loopback ports with their data in the test's temporary
// directory, anonymous access and no vectorizer module. Nodes can be
// stopped and started again (fault tests).
//
// Binary finds the server through SITUATE_WEAVIATE_SERVER or the build
// script's cache ($HOME/.cache/situate/weaviate-v1.35.2, or
// SITUATE_TOOLS_CACHE). Without one the test is skipped with a message
// saying how to build it, unless SITUATE_REQUIRE_WEAVIATE is set (CI),
// which makes it a failure.
//
// It imports only internal/testskip and the standard library.
package weaviatetest
