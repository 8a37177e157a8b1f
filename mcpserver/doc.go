// Package mcpserver serves situate's search to agents over the Model Context
// Protocol, on the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// It is a thin adapter over *situate.Engine with three tools:
//
//   - search: query, k, mode and filters; each result carries the chunk's
//     original text and, apart from it, the generated context labelled with
//     what wrote it ("offline", "anthropic:claude-haiku-4-5", ...);
//   - fetch: a document's chunks, or one chunk with its neighbours, each
//     with its context;
//   - list_documents: the documents the caller may read, paged.
//
// Every tool reads through a Scope: an engine (one per tenant) and the
// caller's principals. A document whose access list names none of them is
// treated exactly like a document that does not exist: it is never found,
// listed, counted or returned by search.
//
// New builds a server for one scope (situate mcp serves it over stdio);
// Handler serves the Streamable HTTP transport and resolves the scope on
// every HTTP request, after the caller was authenticated by the server that
// mounts it (httpapi at /mcp).
//
// mcpserver imports the root package only; it never imports httpapi or any
// other adapter.
package mcpserver
