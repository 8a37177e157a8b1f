// Package gguf reads GGUF headers and writes tiny random-weight
// llama-architecture models, so tests can run a real llama.cpp server
// without downloading weights (none can be installed on this machine).
//
// WriteModel copies the tokenizer metadata (tokenizer.ggml.* and
// tokenizer.chat_template) of a vocabulary-only GGUF, such as llama.cpp's
// models/ggml-vocab-llama-spm.gguf, adds the llama hyperparameters (a few
// layers, d=64, 4 heads) and writes GGUF v3: header, metadata, tensor
// infos, then 32-byte-aligned F32 tensors with seeded normal weights, the
// output projection tied to the token embedding. When the vocabulary has
// no chat template, ChatML (DefaultChatTemplate) is set, which llama.cpp
// recognises and which puts the user message right after a fixed header.
// The same model serves embeddings (llama-server --embedding --pooling
// mean).
//
// Read and ReadFile parse a header and its metadata (tensor infos and data
// are skipped); lengths are bounded so a corrupt file cannot exhaust
// memory. Write writes a metadata-only file.
//
// The package is a leaf: it imports only the standard library.
package gguf
