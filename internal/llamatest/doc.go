// Package llamatest starts a real llama.cpp llama-server for tests, serving
// a tiny random-weight llama model that package gguf generates into the
// test's temporary directory.
//
// Start finds the binary through SITUATE_LLAMA_SERVER or the cache of
// scripts/build-llama-server.sh ($HOME/.cache/situate/llama-server-nlc3.21.1,
// or SITUATE_TOOLS_CACHE), builds the model on the cached vocabulary
// (ggml-vocab-llama-spm.gguf, or SITUATE_LLAMA_VOCAB), starts the server
// on a free loopback port with -c 8192 -np 2 (two slots of 4096 tokens;
// configurable, plus any extra arguments such as --embedding), waits for
// GET /health to answer 200 and kills the server at cleanup. Without a
// binary the test is skipped with a message saying how to build one,
// unless SITUATE_REQUIRE_LLAMA is set (CI), which makes it a failure.
//
// The model's weights are random: its text is gibberish and may not parse
// as the chat template's format; a request field
// "grammar": "root ::= [a-z ]+" keeps it to lowercase words. Prompt
// processing, prefix caching, slots, /props, /tokenize and the error
// answers are the real server's.
//
// It imports only internal/gguf and the standard library.
package llamatest
