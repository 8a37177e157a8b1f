package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/situate/situate/driver"
)

// migration brings the schema from version i to i+1, where i is its index in
// migrations. Migrations only ever get appended; a released one never changes.
type migration func(ctx context.Context, tx *sql.Tx) error

var migrations = []migration{
	migrateV1,
	migrateV2Service,
	migrateV3RowSums,
	migrateV4Packed,
	migrateV5Zstd,
}

// SchemaVersion is the schema version this build writes (PRAGMA user_version).
func SchemaVersion() int { return len(migrations) }

// migrateV1 creates the initial schema.
func migrateV1(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`CREATE TABLE documents (
			id         TEXT PRIMARY KEY,
			title      TEXT NOT NULL,
			format     TEXT NOT NULL,
			lang       TEXT NOT NULL,
			path       TEXT NOT NULL,
			hash       TEXT NOT NULL,
			metadata   TEXT NOT NULL, -- JSON object
			access     TEXT NOT NULL, -- JSON array
			version    INTEGER NOT NULL,
			chunks     INTEGER NOT NULL,
			indexed_at INTEGER NOT NULL -- Unix nanoseconds
		) STRICT`,
		`CREATE TABLE chunks (
			doc_id         TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
			idx            INTEGER NOT NULL,
			start          INTEGER NOT NULL,
			"end"          INTEGER NOT NULL,
			text           TEXT NOT NULL,
			heading        TEXT NOT NULL,
			tokens         INTEGER NOT NULL,
			context_text   TEXT NOT NULL,
			context_source TEXT NOT NULL,
			context_flags  TEXT NOT NULL, -- JSON array
			PRIMARY KEY (doc_id, idx)
		) STRICT`,
		`CREATE TABLE context_cache (
			key        TEXT PRIMARY KEY,
			text       TEXT NOT NULL,
			source     TEXT NOT NULL,
			flags      TEXT NOT NULL, -- JSON array
			created_at INTEGER NOT NULL -- Unix nanoseconds
		) STRICT`,
		`CREATE TABLE vector_cache (
			key TEXT PRIMARY KEY,
			dim INTEGER NOT NULL,
			vec BLOB NOT NULL -- dim little-endian float32
		) STRICT`,
		`CREATE TABLE usage (
			id                 INTEGER PRIMARY KEY,
			time               INTEGER NOT NULL, -- Unix nanoseconds
			provider           TEXT NOT NULL,
			model              TEXT NOT NULL,
			operation          TEXT NOT NULL,
			doc_id             TEXT NOT NULL,
			input_tokens       INTEGER NOT NULL,
			cache_write_tokens INTEGER NOT NULL,
			cache_read_tokens  INTEGER NOT NULL,
			output_tokens      INTEGER NOT NULL,
			latency_ns         INTEGER NOT NULL,
			retries            INTEGER NOT NULL,
			error              TEXT NOT NULL,
			cost_usd           REAL NOT NULL
		) STRICT`,
		`CREATE INDEX usage_time ON usage (time)`,
		`CREATE TABLE meta (
			key   TEXT PRIMARY KEY,
			value TEXT NOT NULL
		) STRICT`,
		fmt.Sprintf(`PRAGMA application_id = %d`, ApplicationID),
	)
}

// migrateV2Service adds what the HTTP service keeps: uploaded sources
// (compressed), the durable job queue and API keys (hashes only).
func migrateV2Service(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`CREATE TABLE sources (
			doc_id     TEXT PRIMARY KEY,
			name       TEXT NOT NULL,
			format     TEXT NOT NULL,
			title      TEXT NOT NULL,
			lang       TEXT NOT NULL,
			metadata   TEXT NOT NULL, -- JSON object
			access     TEXT NOT NULL, -- JSON array
			size       INTEGER NOT NULL, -- uncompressed bytes
			data       BLOB NOT NULL, -- gzip
			updated_at INTEGER NOT NULL -- Unix nanoseconds
		) STRICT`,
		`CREATE TABLE jobs (
			id          INTEGER PRIMARY KEY,
			doc_id      TEXT NOT NULL,
			state       TEXT NOT NULL,
			error       TEXT NOT NULL,
			attempts    INTEGER NOT NULL,
			access      TEXT NOT NULL, -- JSON array
			change      TEXT NOT NULL,
			chunks      INTEGER NOT NULL,
			chunks_done INTEGER NOT NULL,
			calls       INTEGER NOT NULL,
			tokens      INTEGER NOT NULL,
			lease_until INTEGER NOT NULL, -- Unix nanoseconds
			created_at  INTEGER NOT NULL,
			started_at  INTEGER NOT NULL,
			finished_at INTEGER NOT NULL
		) STRICT`,
		`CREATE INDEX jobs_state ON jobs (state, id)`,
		`CREATE TABLE api_keys (
			id         TEXT PRIMARY KEY,
			name       TEXT NOT NULL,
			tenant     TEXT NOT NULL,
			principals TEXT NOT NULL, -- JSON array
			admin      INTEGER NOT NULL,
			write      INTEGER NOT NULL,
			hash       BLOB NOT NULL, -- SHA-256 of the secret
			created_at INTEGER NOT NULL,
			revoked_at INTEGER NOT NULL -- 0 while valid
		) STRICT`,
	)
}

// migrateV5Zstd marks the stores whose chunks may be packed with zstd: a
// build of schema 4 reads only DEFLATE and would report such a store as
// damaged, where it now refuses it as written by a newer build. It also
// indexes the documents' chunk counts, so the count a reader compares with
// its indexes (ChunkCount) reads a small covering index instead of every
// document row (about 20 ms of a command-line search on GOROOT's 10,706).
func migrateV5Zstd(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx, `CREATE INDEX documents_chunks ON documents (chunks)`)
}

func execAll(ctx context.Context, tx *sql.Tx, stmts ...string) error {
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// migrate applies the migrations the file has not seen yet, each in its own
// transaction together with the user_version bump, so a crash between two
// migrations leaves a consistent, older schema that the next Open continues.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	return migrateTo(ctx, db, path, migrations)
}

func migrateTo(ctx context.Context, db *sql.DB, path string, ms []migration) error {
	for {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("sqlite migrate: %s: begin: %w", path, err)
		}
		var version, appID int
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
			tx.Rollback()
			return fmt.Errorf("sqlite migrate: %s: read user_version: %w", path, err)
		}
		if err := tx.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
			tx.Rollback()
			return fmt.Errorf("sqlite migrate: %s: read application_id: %w", path, err)
		}
		if appID != 0 && appID != ApplicationID {
			tx.Rollback()
			return fmt.Errorf("sqlite migrate: %s: application_id %#x is not a situate store (%#x): %w",
				path, appID, ApplicationID, driver.ErrInvalid)
		}
		if version > len(ms) {
			tx.Rollback()
			return fmt.Errorf("sqlite open: %s: schema version %d, this build knows up to %d: %w",
				path, version, len(ms), driver.ErrStoreTooNew)
		}
		if version == len(ms) {
			return tx.Rollback()
		}
		if version == 0 {
			// A new file must be empty; an unversioned file with tables is
			// someone else's database.
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
				tx.Rollback()
				return fmt.Errorf("sqlite migrate: %s: %w", path, err)
			}
			if n > 0 {
				tx.Rollback()
				return fmt.Errorf("sqlite migrate: %s: file has %d schema objects but no situate schema version: %w",
					path, n, driver.ErrInvalid)
			}
		}
		if err := ms[version](ctx, tx); err != nil {
			tx.Rollback()
			return fmt.Errorf("sqlite migrate: %s: version %d to %d: %w", path, version, version+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, version+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("sqlite migrate: %s: set user_version %d: %w", path, version+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("sqlite migrate: %s: commit version %d: %w", path, version+1, err)
		}
	}
}
