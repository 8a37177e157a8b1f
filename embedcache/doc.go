// Package embedcache wraps any situate.Embedder with a situate.VectorCache
// so that a text is embedded once per model and input type: re-indexing an
// unchanged chunk, or resuming an interrupted run, costs no embedding call.
//
// Keys are the hex SHA-256 of the embedder's Name (which names the model
// and, for providers with a dimension option, the dimension), the input
// type and the text. Only the misses are sent to the embedder, in their
// original order and once each even when a text repeats in a call; their
// vectors are stored and merged back with the hits.
//
// It imports only the root package situate.
package embedcache
