// Package web is situate's search page: hand-written HTML, CSS and ES
// modules embedded in the binary (go:embed), nothing from a CDN, no build
// step besides `go build`.
//
// Handler serves the page at / and its assets under /ui/. The page calls
// the JSON API of package httpapi (/v1/search, /v1/documents, /v1/jobs,
// /v1/status) and the usage route UsageHandler serves (GET /v1/usage, the
// tenant's provider usage by day, for administrators) with the API key the
// user enters (kept in the browser's localStorage; none is needed on a
// loopback server without keys). It has four views:
//
//   - search: a query box, k, mode and metadata filters; each result shows
//     the document title and heading path, the generated context set apart
//     and labelled with what wrote it, and the chunk's original text with
//     the query's terms highlighted;
//   - explain: each result's rank and score in each arm (BM25, dense),
//     fused and reranked;
//   - documents: upload (a file in any ingest format, or text), job
//     progress until the document is indexed, the documents with their
//     contextualization status, and each document's chunks with flagged
//     contexts marked;
//   - usage: tokens by kind, cache-read share and spend per day as an
//     inline SVG chart and a table.
//
// No text that comes from a document or the API is ever interpreted as
// HTML: the scripts build the page with createElement and textContent only
// (a test checks that the assets never use innerHTML, outerHTML,
// insertAdjacentHTML or document.write), and every response carries a
// Content-Security-Policy that allows only the page's own scripts and
// styles.
//
// web imports no project package.
package web
