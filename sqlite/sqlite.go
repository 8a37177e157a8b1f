package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/situate/situate/driver"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Defaults used by Open.
const (
	// DefaultBusyTimeout is how long a connection waits for a lock held by
	// another connection or process before failing with SQLITE_BUSY.
	DefaultBusyTimeout = 10 * time.Second
	// DefaultReadConns is the size of the read connection pool.
	DefaultReadConns = 4
	// QuickCheckMaxBytes is the largest database file Open checks with
	// PRAGMA integrity_check before any write (2 to 5 ms per MB here): a
	// damaged store is reported before a writer adds to it. Larger stores
	// are checked by "situate check"; SQLite reports damage it meets on the
	// way as errors wrapping ErrCorrupt.
	QuickCheckMaxBytes = 64 << 20
)

// ApplicationID marks a SQLite file as a situate store (PRAGMA application_id,
// "SITU" in ASCII). Open refuses a file that carries another application id.
const ApplicationID = 0x53495455

// Compile-time checks that Store implements what the engine consumes.
var (
	_ driver.Store         = (*Store)(nil)
	_ driver.ContextCache  = (*Store)(nil)
	_ driver.VectorCache   = (*Store)(nil)
	_ driver.UsageRecorder = (*Store)(nil)
	_ driver.ChunkCounter  = (*Store)(nil)
	_ driver.ChunkReader   = (*Store)(nil)
)

// Store is a situate store in one SQLite file. It is safe for concurrent use.
type Store struct {
	path string
	// w has exactly one connection: all writes are serialized through it and
	// its prepared statements stay bound to it.
	w *sql.DB
	// r is a pool of connections for reads; in WAL mode they run beside the
	// writer and each transaction sees one consistent snapshot.
	r     *sql.DB
	stmts writeStmts
	// chunksAt holds ChunksAt's prepared queries by number of chunks
	// (int -> *sql.Stmt): parsing the query cost more than running it.
	chunksAtStmts sync.Map
	// readOnly: opened by OpenReadOnly.
	readOnly bool
	// keyRev counts key revocations through this Store (KeyRevision).
	keyRev atomic.Uint64
}

type writeStmts struct {
	deleteChunks, upsertDocument, insertChunk, deleteDocument *sql.Stmt
	cacheContext, cacheVector, recordUsage, setMeta           *sql.Stmt
}

// Open opens the store at path, creating the file if it does not exist, and
// migrates its schema to the current version. A file whose schema is newer
// than this build knows is refused with an error wrapping
// situate.ErrStoreTooNew.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, Options{})
}

// Options adjust OpenWith.
type Options struct {
	// SkipOpenCheck skips the integrity check Open runs on stores up to
	// QuickCheckMaxBytes, which exists so that a writer does not add to a
	// damaged store. A process that only reads (a search) skips it: what it
	// reads is still checked (SQLite's page checks, the row checksums), and
	// "situate check" checks everything.
	SkipOpenCheck bool
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, o Options) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("sqlite open: path is empty: %w", driver.ErrInvalid)
	}
	s := &Store{path: path}
	var err error
	// The writer takes the write lock at BEGIN (IMMEDIATE) so that a
	// transaction never fails half-way on a lock upgrade.
	if s.w, err = sql.Open("sqlite", dsn(path, "immediate")); err != nil {
		return nil, s.errorf("open", err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	s.w.SetConnMaxIdleTime(0)
	if err := s.w.PingContext(ctx); err != nil {
		s.w.Close()
		return nil, s.errorf("open", readOnlyReason(path, err))
	}
	// journal_mode is persistent in the file; set it before any reader opens.
	var mode string
	if err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		s.w.Close()
		return nil, s.errorf("open: set WAL mode", readOnlyReason(path, err))
	}
	if err := migrate(ctx, s.w, path); err != nil {
		s.w.Close()
		return nil, classify(err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() <= QuickCheckMaxBytes && !o.SkipOpenCheck {
		if err := s.openCheck(ctx); err != nil {
			s.w.Close()
			return nil, err
		}
	}
	if s.r, err = sql.Open("sqlite", readDSN(path)); err != nil {
		s.w.Close()
		return nil, s.errorf("open", err)
	}
	s.r.SetMaxOpenConns(DefaultReadConns)
	s.r.SetMaxIdleConns(DefaultReadConns)
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// dsn builds a modernc.org/sqlite data source name. Every connection gets the
// busy timeout and foreign keys; synchronous=NORMAL is durable against process
// crashes in WAL mode (a power loss may drop the last commits, never corrupt).
func dsn(path, txlock string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", DefaultBusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", txlock)
	// A "file:" URI keeps the query out of the file name; SQLite decodes %XX
	// escapes in it, so the characters that would end the path are escaped.
	return "file:" + uriPath.Replace(path) + "?" + q.Encode()
}

// readCacheKiB is each read connection's page cache (SQLite's default is
// 2 MiB): a server reads the hits' chunks from all over the table. Within
// the mapping (readMmapBytes) SQLite reads pages in place and does not keep
// them in this cache (it parses a mapped page again at each use); the cache
// holds the pages beyond the mapping and those newer in the WAL, each a
// pread system call.
const readCacheKiB = 32 << 10

// readMmapBytes lets the read connections map the database instead of
// copying its pages into their caches (SQLite caps it at its compile-time
// limit). A commit, of this process or another, makes SQLite empty the
// page cache of every connection that reads after it; with copied pages a
// server under a writer freed and re-read its 32 MiB caches after every
// upsert (2.64 ms of processor time per search at 3 upserts a second,
// 1.65 ms with the mapping: bench/serve-load-*.txt).
const readMmapBytes = 1 << 40

// readDSN is dsn for the read connections.
func readDSN(path string) string {
	return dsn(path, "deferred") + "&" + url.Values{"_pragma": {fmt.Sprintf("cache_size(-%d)", readCacheKiB), fmt.Sprintf("mmap_size(%d)", readMmapBytes)}}.Encode()
}

var uriPath = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")

func (s *Store) prepare(ctx context.Context) error {
	for _, p := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&s.stmts.deleteChunks, `DELETE FROM chunks WHERE doc_id = ?`},
		{&s.stmts.upsertDocument, `INSERT INTO documents
			(id, title, format, lang, path, hash, metadata, access, version, chunks, indexed_at, sum)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(id) DO UPDATE SET
			title = excluded.title, format = excluded.format, lang = excluded.lang,
			path = excluded.path, hash = excluded.hash, metadata = excluded.metadata,
			access = excluded.access, version = excluded.version, chunks = excluded.chunks,
			indexed_at = excluded.indexed_at, sum = excluded.sum`},
		{&s.stmts.insertChunk, `INSERT INTO chunks
			(doc_id, idx, start, "end", text, heading, tokens, context_text, context_source, context_flags, sum, packed)
			VALUES (?, ?, ?, ?, '', ?, ?, '', ?, ?, ?, ?)`},
		{&s.stmts.deleteDocument, `DELETE FROM documents WHERE id = ?`},
		{&s.stmts.cacheContext, `INSERT INTO context_cache (key, text, source, flags, created_at)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT(key) DO UPDATE SET text = excluded.text, source = excluded.source,
			flags = excluded.flags, created_at = excluded.created_at`},
		{&s.stmts.cacheVector, `INSERT INTO vector_cache (key, dim, vec) VALUES (?, ?, ?)
			ON CONFLICT(key) DO UPDATE SET dim = excluded.dim, vec = excluded.vec`},
		{&s.stmts.recordUsage, `INSERT INTO usage
			(time, provider, model, operation, doc_id, input_tokens, cache_write_tokens,
			 cache_read_tokens, output_tokens, latency_ns, retries, error, cost_usd)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&s.stmts.setMeta, `INSERT INTO meta (key, value) VALUES (?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`},
	} {
		st, err := s.w.PrepareContext(ctx, p.query)
		if err != nil {
			return s.errorf("open: prepare statement", err)
		}
		*p.dst = st
	}
	return nil
}

// Path returns the file the store was opened from.
func (s *Store) Path() string { return s.path }

// Close closes the prepared statements and both connection pools.
func (s *Store) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{
		s.stmts.deleteChunks, s.stmts.upsertDocument, s.stmts.insertChunk, s.stmts.deleteDocument,
		s.stmts.cacheContext, s.stmts.cacheVector, s.stmts.recordUsage, s.stmts.setMeta,
	} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	s.chunksAtStmts.Range(func(_, st any) bool {
		errs = append(errs, st.(*sql.Stmt).Close())
		return true
	})
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return s.errorf("close", err)
	}
	return nil
}

// errorf wraps err with the operation and the store's file, and with
// ErrCorrupt, ErrReadOnly or ErrFull when SQLite's result code says so.
func (s *Store) errorf(op string, err error) error {
	return fmt.Errorf("sqlite %s: %s: %w", op, s.path, classify(err))
}

// SetMeta stores a small engine value (an index version, a model name...)
// under key, replacing any previous value.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	if key == "" {
		return s.errorf("set meta", fmt.Errorf("key is empty: %w", driver.ErrInvalid))
	}
	if _, err := s.stmts.setMeta.ExecContext(ctx, key, value); err != nil {
		return s.errorf(fmt.Sprintf("set meta %q", key), err)
	}
	return nil
}

// Meta returns the value stored under key and whether there was one.
func (s *Store) Meta(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.errorf(fmt.Sprintf("meta %q", key), err)
	}
	return v, true, nil
}
