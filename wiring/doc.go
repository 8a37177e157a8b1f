// Package wiring builds situate's parts from named settings, one way for
// every front end: the store (SQLite in a directory or a shared
// PostgreSQL database), the index backend (embedded or Weaviate), the LLM,
// embedder and reranker named as PROVIDER:MODEL, the contextualizer, and
// the engine options and engine over them. The command line, "situate
// serve", "situate mcp" and "situate worker" all open engines through it,
// so a provider, a store or a fallback is decided in one place.
//
// Settings come by name (the names of Defs, which are also the flags and
// the keys of situate.toml); how they are read (flags, environment, a
// file) is the front end's business. wiring is wiring, as cmd/situate
// is: it sees the adapters (provider/*, sqlite, postgres, weaviate) and
// the root; no adapter and no library package imports it.
package wiring
