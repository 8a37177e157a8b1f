package postgres

import (
	"context"
	"fmt"

	"github.com/situate/situate/driver"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations bring the schema from version i to i+1, where i is the index;
// they only ever get appended, a released one never changes. Strings (ids,
// titles, texts, keys...) are BYTEA: Go strings are bytes, and a store must give back exactly what it was given,
// even a title cut inside a UTF-8 sequence or a text holding a NUL byte,
// which TEXT refuses; BYTEA also sorts in byte order. JSON columns hold
// encoding/json output, always valid UTF-8. Times are Unix nanoseconds, as
// in the SQLite store.
var migrations = [][]string{
	{ // 1: the store
		`CREATE TABLE documents (
			id         BYTEA PRIMARY KEY,
			title      BYTEA NOT NULL,
			format     BYTEA NOT NULL,
			lang       BYTEA NOT NULL,
			path       BYTEA NOT NULL,
			hash       BYTEA NOT NULL,
			metadata   TEXT NOT NULL, -- JSON object
			access     TEXT NOT NULL, -- JSON array
			version    INTEGER NOT NULL,
			chunks     INTEGER NOT NULL,
			indexed_at BIGINT NOT NULL
		)`,
		`CREATE TABLE chunks (
			doc_id         BYTEA NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
			idx            INTEGER NOT NULL,
			start          INTEGER NOT NULL,
			"end"          INTEGER NOT NULL,
			text           BYTEA NOT NULL,
			heading        BYTEA NOT NULL,
			tokens         INTEGER NOT NULL,
			context_text   BYTEA NOT NULL,
			context_source BYTEA NOT NULL,
			context_flags  TEXT NOT NULL, -- JSON array
			PRIMARY KEY (doc_id, idx)
		)`,
		`CREATE TABLE context_cache (
			key        BYTEA PRIMARY KEY,
			text       BYTEA NOT NULL,
			source     BYTEA NOT NULL,
			flags      TEXT NOT NULL, -- JSON array
			created_at BIGINT NOT NULL
		)`,
		`CREATE TABLE vector_cache (
			key BYTEA PRIMARY KEY,
			dim INTEGER NOT NULL,
			vec BYTEA NOT NULL -- dim little-endian float32
		)`,
		`CREATE TABLE usage (
			id                    BIGSERIAL PRIMARY KEY,
			time                  BIGINT NOT NULL,
			provider              BYTEA NOT NULL,
			model                 BYTEA NOT NULL,
			operation             BYTEA NOT NULL,
			doc_id                BYTEA NOT NULL,
			input_tokens          BIGINT NOT NULL,
			cache_write_tokens    BIGINT NOT NULL,
			cache_write_1h_tokens BIGINT NOT NULL,
			cache_read_tokens     BIGINT NOT NULL,
			output_tokens         BIGINT NOT NULL,
			batch                 BOOLEAN NOT NULL,
			latency_ns            BIGINT NOT NULL,
			retries               INTEGER NOT NULL,
			error                 BYTEA NOT NULL,
			cost_usd              DOUBLE PRECISION NOT NULL
		)`,
		`CREATE INDEX usage_time ON usage (time)`,
		`CREATE TABLE meta (
			key   BYTEA PRIMARY KEY,
			value BYTEA NOT NULL
		)`,
	},
	{ // 2: what the HTTP service keeps: uploaded sources (gzip), the job
		// queue (leases; claimed with FOR UPDATE SKIP LOCKED) and API keys
		// (hashes only).
		`CREATE TABLE sources (
			doc_id     BYTEA PRIMARY KEY,
			name       BYTEA NOT NULL,
			format     BYTEA NOT NULL,
			title      BYTEA NOT NULL,
			lang       BYTEA NOT NULL,
			metadata   TEXT NOT NULL, -- JSON object
			access     TEXT NOT NULL, -- JSON array
			size       BIGINT NOT NULL, -- uncompressed bytes
			data       BYTEA NOT NULL, -- gzip
			updated_at BIGINT NOT NULL
		)`,
		`CREATE TABLE jobs (
			id          BIGSERIAL PRIMARY KEY,
			doc_id      BYTEA NOT NULL,
			state       TEXT NOT NULL,
			error       BYTEA NOT NULL,
			attempts    INTEGER NOT NULL,
			access      TEXT NOT NULL, -- JSON array
			change      TEXT NOT NULL,
			chunks      INTEGER NOT NULL,
			chunks_done INTEGER NOT NULL,
			calls       INTEGER NOT NULL,
			tokens      BIGINT NOT NULL,
			lease_until BIGINT NOT NULL,
			created_at  BIGINT NOT NULL,
			started_at  BIGINT NOT NULL,
			finished_at BIGINT NOT NULL
		)`,
		`CREATE INDEX jobs_state ON jobs (state, id)`,
		`CREATE INDEX jobs_doc ON jobs (doc_id)`,
		`CREATE TABLE api_keys (
			id         BYTEA PRIMARY KEY,
			name       BYTEA NOT NULL,
			tenant     BYTEA NOT NULL,
			principals TEXT NOT NULL, -- JSON array
			admin      BOOLEAN NOT NULL,
			write      BOOLEAN NOT NULL,
			hash       BYTEA NOT NULL, -- SHA-256 of the secret
			created_at BIGINT NOT NULL,
			revoked_at BIGINT NOT NULL -- 0 while valid
		)`,
	},
	{ // 3: a change counter every document write bumps in its own
		// transaction, so a process over the shared store learns with one
		// row whether anything changed (Store.ChangeStamp).
		`CREATE TABLE doc_changes (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)`,
		`INSERT INTO doc_changes VALUES (1, 0)`,
	},
	{ // 4: each document remembers the counter value of its last write,
		// and deletions leave a row with theirs, so a process asks only for
		// what changed since its last sync (Store.DocumentChanges).
		`ALTER TABLE documents ADD COLUMN change_n BIGINT NOT NULL DEFAULT 0`,
		`CREATE INDEX documents_change ON documents (change_n)`,
		`CREATE TABLE doc_deletions (id BYTEA PRIMARY KEY, change_n BIGINT NOT NULL)`,
		`CREATE INDEX doc_deletions_change ON doc_deletions (change_n)`,
	},
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int { return len(migrations) }

// migrateLockID is the advisory lock that serializes migrations ("SITU").
const migrateLockID = 0x53495455

// migrate applies the migrations the database has not seen yet, each in its
// own transaction together with the schema_version bump.
func migrate(ctx context.Context, pool *pgxpool.Pool, where string) error {
	return migrateTo(ctx, pool, where, migrations)
}

func migrateTo(ctx context.Context, pool *pgxpool.Pool, where string, ms [][]string) error {
	for {
		done, err := migrateStep(ctx, pool, where, ms)
		if err != nil || done {
			return err
		}
	}
}

func migrateStep(ctx context.Context, pool *pgxpool.Pool, where string, ms [][]string) (done bool, err error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("postgres migrate: %s: begin: %w", where, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLockID)); err != nil {
		return false, fmt.Errorf("postgres migrate: %s: lock: %w", where, err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		one     BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
		version INTEGER NOT NULL)`); err != nil {
		return false, fmt.Errorf("postgres migrate: %s: schema_version table: %w", where, err)
	}
	var version int
	err = tx.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&version)
	if err == pgx.ErrNoRows {
		version = 0
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()
			AND tablename IN ('documents', 'chunks', 'meta')`).Scan(&n); err != nil {
			return false, fmt.Errorf("postgres migrate: %s: %w", where, err)
		}
		if n > 0 {
			return false, fmt.Errorf("postgres migrate: %s: the schema has situate's table names but no schema version: %w",
				where, driver.ErrInvalid)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return false, fmt.Errorf("postgres migrate: %s: %w", where, err)
		}
	} else if err != nil {
		return false, fmt.Errorf("postgres migrate: %s: read schema version: %w", where, err)
	}
	if version > len(ms) {
		return false, fmt.Errorf("postgres open: %s: schema version %d, this build knows up to %d: %w",
			where, version, len(ms), driver.ErrStoreTooNew)
	}
	if version == len(ms) {
		return true, tx.Commit(ctx)
	}
	for i, q := range ms[version] {
		if _, err := tx.Exec(ctx, q); err != nil {
			return false, fmt.Errorf("postgres migrate: %s: version %d to %d, statement %d: %w", where, version, version+1, i+1, err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE schema_version SET version = $1`, version+1); err != nil {
		return false, fmt.Errorf("postgres migrate: %s: set version %d: %w", where, version+1, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("postgres migrate: %s: commit version %d: %w", where, version+1, err)
	}
	return false, nil
}
