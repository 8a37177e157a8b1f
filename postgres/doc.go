// Package postgres is a situate store on PostgreSQL (jackc/pgx): the same
// documents, versions, chunks, contexts, engine metadata, context and vector
// caches and usage ledger the SQLite store keeps, and the HTTP service's
// uploaded sources, job queue and API keys (situate.JobStore, KeyStore), in
// one database that any number of situate processes share.
//
// The job queue is lease-based: ClaimJob takes the oldest queued job, or a
// running one whose lease ran out (its worker died), with FOR UPDATE SKIP
// LOCKED, so claimers in many processes never take the same job and never
// wait for each other.
//
// The schema is versioned: migrations are ordered SQL statements, each
// applied in one transaction together with the bump of the schema_version
// table, under a transaction-scoped advisory lock so that processes opening
// the same database at once migrate it exactly once. A database whose schema
// is newer than the build is refused with situate.ErrStoreTooNew.
//
// OpenSchema keeps a store in one schema of the database, so that one
// database holds the stores of several tenants.
//
// Writes of a document happen in one transaction that first locks the
// document's row, so concurrent writers of one document serialize and a
// reader (one REPEATABLE READ snapshot) sees one whole version.
package postgres
