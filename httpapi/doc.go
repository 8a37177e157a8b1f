// Package httpapi serves situate over HTTP: a versioned JSON API (/v1) to
// upsert, fetch, list, delete and search documents, durable background
// indexing jobs, tenants and API keys, per-document access control,
// Prometheus metrics, health checks and the OpenAPI document
// (/v1/openapi.json) that describes every route.
//
// It is an adapter over *situate.Engine: one engine (with its own store,
// indexes and caches) per tenant, opened by the Tenants function the command
// line gives it. Sources, jobs and keys are kept through the root package's
// JobStore and KeyStore interfaces, so the same server runs on any store
// that implements them. It maps the root's sentinel errors to HTTP statuses;
// nothing else in situate knows about HTTP.
//
// Other front ends mount behind the same authentication with
// Options.Mounts and read the authenticated caller with CallerFrom.
//
// httpapi imports the root package and leaves only; it never imports
// another adapter (sqlite, ingest, provider/*, mcpserver).
package httpapi
