package postgres

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/situate/situate/driver"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pingAfterIdle is how long a pooled connection may sit idle before it is
// pinged on its next use.
const pingAfterIdle = 50 * time.Millisecond

// Compile-time checks that Store implements what the engine consumes.
var (
	_ driver.Store         = (*Store)(nil)
	_ driver.MetaStore     = (*Store)(nil)
	_ driver.ContextCache  = (*Store)(nil)
	_ driver.VectorCache   = (*Store)(nil)
	_ driver.UsageRecorder = (*Store)(nil)
	_ driver.ChangeStamper = (*Store)(nil)
	_ driver.ChangeLister  = (*Store)(nil)
	_ driver.ChunkCounter  = (*Store)(nil)
	_ driver.ChunkReader   = (*Store)(nil)
)

// Store is a situate store in a PostgreSQL database. It is safe for
// concurrent use, by any number of goroutines and processes.
type Store struct {
	pool  *pgxpool.Pool
	where string // host:port/database, without credentials
	// keyRev counts key revocations through this Store (KeyRevision).
	keyRev atomic.Uint64
}

// Open connects to the database at url (a postgres:// URL or a key=value
// connection string, as pgx accepts) and migrates its schema to the current
// version. The tables live in the connection's current schema (set
// search_path in the URL to keep several stores in one database).
func Open(ctx context.Context, connString string) (*Store, error) {
	if connString == "" {
		return nil, fmt.Errorf("postgres open: connection string is empty: %w", driver.ErrInvalid)
	}
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		// pgx's parse errors redact the password.
		return nil, fmt.Errorf("postgres open: %w: %w", err, driver.ErrInvalid)
	}
	return open(ctx, cfg)
}

// OpenSchema opens the store kept in schema (created when missing) of the
// database at connString: one database holds the stores of several
// tenants, each in its own schema.
func OpenSchema(ctx context.Context, connString, schema string) (*Store, error) {
	if connString == "" {
		return nil, fmt.Errorf("postgres open: connection string is empty: %w", driver.ErrInvalid)
	}
	if schema == "" {
		return nil, fmt.Errorf("postgres open: schema name is empty: %w", driver.ErrInvalid)
	}
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("postgres open: %w: %w", err, driver.ErrInvalid)
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, url.PathEscape(cfg.ConnConfig.Database))
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("postgres open %s: %w", where, err)
	}
	_, err = conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize())
	conn.Close(ctx)
	if err != nil {
		var pe *pgconn.PgError
		// Two processes creating it at once: one of them loses the race.
		if !errors.As(err, &pe) || pe.Code != "23505" {
			return nil, fmt.Errorf("postgres open %s: create schema %q: %w", where, schema, err)
		}
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	return open(ctx, cfg)
}

func open(ctx context.Context, cfg *pgxpool.Config) (*Store, error) {
	var err error
	// A pooled connection that sat idle may have been cut by a server
	// restart or failover the pool has not noticed; pinging it first (pgx
	// pings only after 1 s idle by default) makes Acquire replace it instead
	// of failing the caller's statement. Any restart takes longer than
	// pingAfterIdle, so only calls in flight during it can fail; connections
	// reused back to back under load skip the round trip.
	cfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool { return p.IdleDuration > pingAfterIdle }
	s := &Store{where: fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, url.PathEscape(cfg.ConnConfig.Database))}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, s.errorf("open", err)
	}
	if err := s.pool.Ping(ctx); err != nil {
		s.pool.Close()
		return nil, s.errorf("open", err)
	}
	if err := migrate(ctx, s.pool, s.where); err != nil {
		s.pool.Close()
		return nil, err
	}
	return s, nil
}

// Where names the database (host:port/database), without credentials.
func (s *Store) Where() string { return s.where }

// Close closes the connection pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// errorf wraps err with the operation and the database, and with
// situate.ErrInvalid, ErrFull or ErrReadOnly when PostgreSQL's SQLSTATE says so.
func (s *Store) errorf(op string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "22021", "22P05", "54000": // bad encoding, untranslatable, too long (strings are BYTEA; kept for safety)
			err = fmt.Errorf("%w: %w", err, driver.ErrInvalid)
		case "53100": // disk_full
			err = fmt.Errorf("%w: %w", err, ErrFull)
		case "25006": // read_only_sql_transaction
			err = fmt.Errorf("%w: %w", err, driver.ErrReadOnly)
		}
	}
	return fmt.Errorf("postgres %s: %s: %w", op, s.where, err)
}

const documentColumns = `id, title, format, lang, path, hash, metadata, access, version, chunks, indexed_at`

// Document returns the record of one document, or an error wrapping
// situate.ErrNotFound.
func (s *Store) Document(ctx context.Context, id string) (driver.DocumentRecord, error) {
	rec, err := scanDocument(s.pool.QueryRow(ctx, `SELECT `+documentColumns+` FROM documents WHERE id = $1`, []byte(id)))
	if errors.Is(err, pgx.ErrNoRows) {
		return rec, s.errorf(fmt.Sprintf("document %q", id), driver.ErrNotFound)
	}
	if err != nil {
		return rec, s.errorf(fmt.Sprintf("document %q", id), err)
	}
	return rec, nil
}

// Documents lists every document, ordered by id (byte order).
func (s *Store) Documents(ctx context.Context) ([]driver.DocumentRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+documentColumns+` FROM documents ORDER BY id`)
	if err != nil {
		return nil, s.errorf("documents", err)
	}
	defer rows.Close()
	var out []driver.DocumentRecord
	for rows.Next() {
		rec, err := scanDocument(rows)
		if err != nil {
			return nil, s.errorf("documents", err)
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("documents", err)
	}
	return out, nil
}

func scanDocument(row pgx.Row) (driver.DocumentRecord, error) {
	var (
		rec                                 driver.DocumentRecord
		id, title, format, lang, path, hash []byte
		metadata, access                    string
		indexedAt                           int64
	)
	err := row.Scan(&id, &title, &format, &lang, &path, &hash,
		&metadata, &access, &rec.Version, &rec.Chunks, &indexedAt)
	if err != nil {
		return rec, err
	}
	rec.ID, rec.Title, rec.Format, rec.Lang, rec.Path, rec.Hash =
		string(id), string(title), string(format), string(lang), string(path), string(hash)
	if err := unmarshalMap(metadata, &rec.Metadata); err != nil {
		return rec, fmt.Errorf("document %q: metadata: %w: %w", rec.ID, err, ErrCorrupt)
	}
	if err := unmarshalList(access, &rec.Access); err != nil {
		return rec, fmt.Errorf("document %q: access: %w: %w", rec.ID, err, ErrCorrupt)
	}
	rec.IndexedAt = time.Unix(0, indexedAt).UTC()
	return rec, nil
}

// PutDocument atomically replaces the record, chunks and contexts stored for
// rec.ID. The record is stored as given, except that Chunks is len(chunks)
// and a zero IndexedAt becomes the current time. Chunks must be given in
// order (chunk i has Index i) and belong to the document (an empty DocID is
// taken as rec.ID). The transaction first writes the record, which locks its
// row: concurrent writers of one document take turns, and readers see the
// previous version or this one, never a mix.
func (s *Store) PutDocument(ctx context.Context, rec driver.DocumentRecord, chunks []driver.StoredChunk) error {
	op := fmt.Sprintf("put document %q", rec.ID)
	if err := validatePut(rec, chunks); err != nil {
		return s.errorf(op, err)
	}
	metadata, err := marshalMap(rec.Metadata)
	if err != nil {
		return s.errorf(op, fmt.Errorf("metadata: %w", err))
	}
	access, err := marshalList(rec.Access)
	if err != nil {
		return s.errorf(op, fmt.Errorf("access: %w", err))
	}
	indexedAt := rec.IndexedAt
	if indexedAt.IsZero() {
		indexedAt = time.Now()
	}
	rows := make([][]any, len(chunks))
	for i, c := range chunks {
		flags, err := marshalList(c.Context.Flags)
		if err != nil {
			return s.errorf(fmt.Sprintf("%s: chunk %d: context flags", op, i), err)
		}
		rows[i] = []any{[]byte(rec.ID), i, c.Start, c.End, []byte(c.Text), []byte(c.Heading), c.Tokens,
			[]byte(c.Context.Text), []byte(c.Context.Source), flags}
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.errorf(op, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	_, err = tx.Exec(ctx, `INSERT INTO documents (`+documentColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (id) DO UPDATE SET
		title = excluded.title, format = excluded.format, lang = excluded.lang,
		path = excluded.path, hash = excluded.hash, metadata = excluded.metadata,
		access = excluded.access, version = excluded.version, chunks = excluded.chunks,
		indexed_at = excluded.indexed_at`,
		[]byte(rec.ID), []byte(rec.Title), []byte(rec.Format), []byte(rec.Lang), []byte(rec.Path), []byte(rec.Hash),
		metadata, access, rec.Version, len(chunks), indexedAt.UnixNano())
	if err != nil {
		return s.errorf(op+": write record", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM chunks WHERE doc_id = $1`, []byte(rec.ID)); err != nil {
		return s.errorf(op+": delete old chunks", err)
	}
	if len(rows) > 0 {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"chunks"},
			[]string{"doc_id", "idx", "start", "end", "text", "heading", "tokens", "context_text", "context_source", "context_flags"},
			pgx.CopyFromRows(rows))
		if err != nil {
			return s.errorf(op+": write chunks", err)
		}
	}
	// Last, so the counter's row lock is held only for the commit. The
	// lock also orders the writes: counter values follow commit order.
	var n int64
	if err := tx.QueryRow(ctx, bumpChanges).Scan(&n); err != nil {
		return s.errorf(op+": count the change", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE documents SET change_n = $2 WHERE id = $1`, []byte(rec.ID), n); err != nil {
		return s.errorf(op+": count the change", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM doc_deletions WHERE id = $1`, []byte(rec.ID)); err != nil {
		return s.errorf(op+": count the change", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return s.errorf(op+": commit", err)
	}
	return nil
}

// bumpChanges counts a document write (ChangeStamp).
const bumpChanges = `UPDATE doc_changes SET n = n + 1 WHERE id = 1 RETURNING n`

// DocumentChanges returns the documents written and the ids deleted since
// the change stamp since (from ChangeStamp or an earlier call), and the
// stamp they bring the caller to, read in one snapshot.
func (s *Store) DocumentChanges(ctx context.Context, since string) (driver.DocumentChanges, error) {
	var ch driver.DocumentChanges
	from, err := strconv.ParseInt(since, 10, 64)
	if err != nil {
		return ch, fmt.Errorf("postgres document changes: stamp %q: %w", since, driver.ErrInvalid)
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return ch, s.errorf("document changes", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var to int64
	if err := tx.QueryRow(ctx, `SELECT n FROM doc_changes WHERE id = 1`).Scan(&to); err != nil {
		return ch, s.errorf("document changes", err)
	}
	rows, err := tx.Query(ctx, `SELECT `+documentColumns+` FROM documents WHERE change_n > $1 ORDER BY id`, from)
	if err != nil {
		return ch, s.errorf("document changes", err)
	}
	for rows.Next() {
		rec, err := scanDocument(rows)
		if err != nil {
			rows.Close()
			return ch, s.errorf("document changes", err)
		}
		ch.Written = append(ch.Written, rec)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return ch, s.errorf("document changes", err)
	}
	rows, err = tx.Query(ctx, `SELECT id FROM doc_deletions WHERE change_n > $1 ORDER BY id`, from)
	if err != nil {
		return ch, s.errorf("document changes", err)
	}
	for rows.Next() {
		var id []byte
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return ch, s.errorf("document changes", err)
		}
		ch.Deleted = append(ch.Deleted, string(id))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return ch, s.errorf("document changes", err)
	}
	ch.Stamp = strconv.FormatInt(to, 10)
	return ch, nil
}

// ChangeStamp changes whenever a document is written or deleted: a
// counter bumped in the writing transaction, so a stamp read before the
// document list covers every change the list misses.
func (s *Store) ChangeStamp(ctx context.Context) (string, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT n FROM doc_changes WHERE id = 1`).Scan(&n); err != nil {
		return "", s.errorf("change stamp", err)
	}
	return strconv.FormatInt(n, 10), nil
}

func validatePut(rec driver.DocumentRecord, chunks []driver.StoredChunk) error {
	if rec.ID == "" {
		return fmt.Errorf("document ID is empty: %w", driver.ErrInvalid)
	}
	if rec.Version < 1 {
		return fmt.Errorf("version %d: must be >= 1: %w", rec.Version, driver.ErrInvalid)
	}
	for i, c := range chunks {
		if c.DocID != "" && c.DocID != rec.ID {
			return fmt.Errorf("chunk %d: DocID %q does not match the document: %w", i, c.DocID, driver.ErrInvalid)
		}
		if c.Index != i {
			return fmt.Errorf("chunk %d: Index is %d, chunks must be given in order: %w", i, c.Index, driver.ErrInvalid)
		}
		if c.Start < 0 || c.End < c.Start {
			return fmt.Errorf("chunk %d: span [%d,%d) is invalid: %w", i, c.Start, c.End, driver.ErrInvalid)
		}
	}
	return nil
}

// DeleteDocument removes a document and its chunks; deleting an unknown
// document is not an error.
func (s *Store) DeleteDocument(ctx context.Context, id string) error {
	op := fmt.Sprintf("delete document %q", id)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.errorf(op, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// Chunks go with the record through ON DELETE CASCADE.
	tag, err := tx.Exec(ctx, `DELETE FROM documents WHERE id = $1`, []byte(id))
	if err != nil {
		return s.errorf(op, err)
	}
	if tag.RowsAffected() > 0 {
		var n int64
		if err := tx.QueryRow(ctx, bumpChanges).Scan(&n); err != nil {
			return s.errorf(op+": count the change", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO doc_deletions (id, change_n) VALUES ($1, $2)
			ON CONFLICT (id) DO UPDATE SET change_n = excluded.change_n`, []byte(id), n); err != nil {
			return s.errorf(op+": count the change", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return s.errorf(op+": commit", err)
	}
	return nil
}

// Chunks returns a document's chunks in order, with their contexts, read in
// one snapshot. An unknown document is an error wrapping situate.ErrNotFound.
func (s *Store) Chunks(ctx context.Context, docID string) ([]driver.StoredChunk, error) {
	op := fmt.Sprintf("chunks of %q", docID)
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, s.errorf(op, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var n int
	err = tx.QueryRow(ctx, `SELECT chunks FROM documents WHERE id = $1`, []byte(docID)).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, s.errorf(op, driver.ErrNotFound)
	}
	if err != nil {
		return nil, s.errorf(op, err)
	}
	rows, err := tx.Query(ctx, `SELECT idx, start, "end", text, heading, tokens,
		context_text, context_source, context_flags FROM chunks WHERE doc_id = $1 ORDER BY idx`, []byte(docID))
	if err != nil {
		return nil, s.errorf(op, err)
	}
	defer rows.Close()
	out := make([]driver.StoredChunk, 0, n)
	for rows.Next() {
		c := driver.StoredChunk{Chunk: driver.Chunk{DocID: docID}}
		var (
			flags                             string
			text, heading, ctxText, ctxSource []byte
		)
		if err := rows.Scan(&c.Index, &c.Start, &c.End, &text, &heading, &c.Tokens,
			&ctxText, &ctxSource, &flags); err != nil {
			return nil, s.errorf(op, err)
		}
		c.Text, c.Heading, c.Context.Text, c.Context.Source = string(text), string(heading), string(ctxText), string(ctxSource)
		if err := unmarshalList(flags, &c.Context.Flags); err != nil {
			return nil, s.errorf(fmt.Sprintf("%s: chunk %d: context flags", op, c.Index), fmt.Errorf("%w: %w", err, ErrCorrupt))
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf(op, err)
	}
	if len(out) != n {
		return nil, s.errorf(op, fmt.Errorf("record says %d chunks, found %d: %w", n, len(out), ErrCorrupt))
	}
	return out, nil
}

// ChunkCount is the number of chunks of all documents, from the records
// (one aggregate, no chunk read).
func (s *Store) ChunkCount(ctx context.Context) (int, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(chunks), 0) FROM documents`).Scan(&n); err != nil {
		return 0, s.errorf("chunk count", err)
	}
	return int(n), nil
}

// maxChunksAt bounds the chunks one ChunksAt query asks for.
const maxChunksAt = 1000

// ChunksAt returns the chunks refs name, with their contexts, in one query
// per maxChunksAt refs; chunks the store does not hold are absent from the
// map. A search reads only its hits this way, not their documents' other
// chunks.
func (s *Store) ChunksAt(ctx context.Context, refs []driver.ChunkRef) (map[driver.ChunkRef]driver.StoredChunk, error) {
	out := make(map[driver.ChunkRef]driver.StoredChunk, len(refs))
	for len(refs) > 0 {
		n := min(len(refs), maxChunksAt)
		if err := s.chunksAt(ctx, refs[:n], out); err != nil {
			return nil, err
		}
		refs = refs[n:]
	}
	return out, nil
}

func (s *Store) chunksAt(ctx context.Context, refs []driver.ChunkRef, out map[driver.ChunkRef]driver.StoredChunk) error {
	op := fmt.Sprintf("%d chunks", len(refs))
	ids := make([][]byte, len(refs))
	idx := make([]int32, len(refs))
	for i, r := range refs {
		if r.Index < 0 || r.Index > math.MaxInt32 {
			continue // no such chunk; idx 0 of an empty id matches nothing
		}
		ids[i], idx[i] = []byte(r.DocID), int32(r.Index)
	}
	rows, err := s.pool.Query(ctx, `SELECT c.doc_id, c.idx, c.start, c."end", c.text, c.heading, c.tokens,
		c.context_text, c.context_source, c.context_flags
		FROM unnest($1::bytea[], $2::int[]) AS r(doc_id, idx)
		JOIN chunks c ON c.doc_id = r.doc_id AND c.idx = r.idx`, ids, idx)
	if err != nil {
		return s.errorf(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			c                                        driver.StoredChunk
			flags                                    string
			docID, text, heading, ctxText, ctxSource []byte
		)
		if err := rows.Scan(&docID, &c.Index, &c.Start, &c.End, &text, &heading, &c.Tokens,
			&ctxText, &ctxSource, &flags); err != nil {
			return s.errorf(op, err)
		}
		c.DocID, c.Text, c.Heading, c.Context.Text, c.Context.Source =
			string(docID), string(text), string(heading), string(ctxText), string(ctxSource)
		if err := unmarshalList(flags, &c.Context.Flags); err != nil {
			return s.errorf(fmt.Sprintf("chunk %d of %q: context flags", c.Index, c.DocID), fmt.Errorf("%w: %w", err, ErrCorrupt))
		}
		out[driver.ChunkRef{DocID: c.DocID, Index: c.Index}] = c
	}
	if err := rows.Err(); err != nil {
		return s.errorf(op, err)
	}
	return nil
}

// SetMeta stores a small engine value under key, replacing any previous value.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	if key == "" {
		return s.errorf("set meta", fmt.Errorf("key is empty: %w", driver.ErrInvalid))
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, []byte(key), []byte(value)); err != nil {
		return s.errorf(fmt.Sprintf("set meta %q", key), err)
	}
	return nil
}

// Meta returns the value stored under key and whether there was one.
func (s *Store) Meta(ctx context.Context, key string) (string, bool, error) {
	var v []byte
	err := s.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = $1`, []byte(key)).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.errorf(fmt.Sprintf("meta %q", key), err)
	}
	return string(v), true, nil
}

// CachedContext returns the context cached under key and whether there was one.
func (s *Store) CachedContext(ctx context.Context, key string) (driver.Context, bool, error) {
	var (
		c            driver.Context
		text, source []byte
		flags        string
	)
	err := s.pool.QueryRow(ctx, `SELECT text, source, flags FROM context_cache WHERE key = $1`, []byte(key)).
		Scan(&text, &source, &flags)
	c.Text, c.Source = string(text), string(source)
	if errors.Is(err, pgx.ErrNoRows) {
		return driver.Context{}, false, nil
	}
	if err != nil {
		return driver.Context{}, false, s.errorf(fmt.Sprintf("cached context %q", key), err)
	}
	if err := unmarshalList(flags, &c.Flags); err != nil {
		return driver.Context{}, false, s.errorf(fmt.Sprintf("cached context %q: flags", key), fmt.Errorf("%w: %w", err, ErrCorrupt))
	}
	return c, true, nil
}

// CacheContext stores c under key, replacing any previous entry.
func (s *Store) CacheContext(ctx context.Context, key string, c driver.Context) error {
	if key == "" {
		return s.errorf("cache context", fmt.Errorf("key is empty: %w", driver.ErrInvalid))
	}
	op := fmt.Sprintf("cache context %q", key)
	flags, err := marshalList(c.Flags)
	if err != nil {
		return s.errorf(op+": flags", err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO context_cache (key, text, source, flags, created_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (key) DO UPDATE SET text = excluded.text, source = excluded.source,
		flags = excluded.flags, created_at = excluded.created_at`,
		[]byte(key), []byte(c.Text), []byte(c.Source), flags, time.Now().UnixNano()); err != nil {
		return s.errorf(op, err)
	}
	return nil
}

// CachedVector returns the vector cached under key and whether there was one.
func (s *Store) CachedVector(ctx context.Context, key string) ([]float32, bool, error) {
	var (
		dim  int
		blob []byte
	)
	err := s.pool.QueryRow(ctx, `SELECT dim, vec FROM vector_cache WHERE key = $1`, []byte(key)).Scan(&dim, &blob)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.errorf(fmt.Sprintf("cached vector %q", key), err)
	}
	if dim <= 0 || len(blob) != 4*dim {
		return nil, false, s.errorf(fmt.Sprintf("cached vector %q", key),
			fmt.Errorf("%d bytes do not hold %d float32: %w", len(blob), dim, ErrCorrupt))
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
	}
	return v, true, nil
}

// CacheVector stores v under key as little-endian float32, replacing any
// previous entry.
func (s *Store) CacheVector(ctx context.Context, key string, v []float32) error {
	if key == "" {
		return s.errorf("cache vector", fmt.Errorf("key is empty: %w", driver.ErrInvalid))
	}
	if len(v) == 0 {
		return s.errorf(fmt.Sprintf("cache vector %q", key), fmt.Errorf("vector is empty: %w", driver.ErrInvalid))
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO vector_cache (key, dim, vec) VALUES ($1, $2, $3)
		ON CONFLICT (key) DO UPDATE SET dim = excluded.dim, vec = excluded.vec`, []byte(key), len(v), b); err != nil {
		return s.errorf(fmt.Sprintf("cache vector %q", key), err)
	}
	return nil
}

// RecordUsage stores one provider call. A zero Time is recorded as now.
func (s *Store) RecordUsage(ctx context.Context, u driver.Usage) error {
	t := u.Time
	if t.IsZero() {
		t = time.Now()
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO usage
		(time, provider, model, operation, doc_id, input_tokens, cache_write_tokens, cache_write_1h_tokens,
		 cache_read_tokens, output_tokens, batch, latency_ns, retries, error, cost_usd)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
		t.UnixNano(), []byte(u.Provider), []byte(u.Model), []byte(u.Operation), []byte(u.DocID), u.InputTokens, u.CacheWriteTokens,
		u.CacheWrite1hTokens, u.CacheReadTokens, u.OutputTokens, u.Batch, int64(u.Latency), u.Retries, []byte(u.Error), u.CostUSD)
	if err != nil {
		return s.errorf(fmt.Sprintf("record usage of %s/%s %s", u.Provider, u.Model, u.Operation), err)
	}
	return nil
}

// JSON helpers: nil and empty collections are stored as {} / [] and read back
// as nil, so a round trip preserves the zero value.

func marshalMap(m map[string]string) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

func marshalList(l []string) (string, error) {
	if len(l) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(l)
	return string(b), err
}

func unmarshalMap(s string, m *map[string]string) error {
	*m = nil
	if s == "{}" || s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), m)
}

func unmarshalList(s string, l *[]string) error {
	*l = nil
	if s == "[]" || s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), l)
}

var (
	// ErrCorrupt marks stored values that cannot be decoded (a damaged or
	// hand-edited row).
	ErrCorrupt = errors.New("postgres: stored data is damaged")
	// ErrFull marks writes PostgreSQL refused for lack of disk space.
	ErrFull = errors.New("postgres: disk is full")
)
