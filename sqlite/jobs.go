package sqlite

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/situate/situate/driver"
)

var (
	_ driver.JobStore = (*Store)(nil)
	_ driver.KeyStore = (*Store)(nil)
)

// maxSourceSize bounds a source's uncompressed size when it is read back, so
// a damaged row cannot inflate without limit.
const maxSourceSize = 1 << 30

// gzipWriters reuses compressors (each holds about 800 KB of state).
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(io.Discard) }}

// EnqueueUpload stores src (gzip-compressed), replacing the document's
// previous source, and queues a job for it in the same transaction.
func (s *Store) EnqueueUpload(ctx context.Context, src driver.Upload) (_ driver.Job, err error) {
	op := fmt.Sprintf("enqueue source %q", src.DocID)
	if src.DocID == "" {
		return driver.Job{}, s.errorf(op, fmt.Errorf("doc id is empty: %w", driver.ErrInvalid))
	}
	metadata, err := marshalMap(src.Metadata)
	if err != nil {
		return driver.Job{}, s.errorf(op, fmt.Errorf("metadata: %w", err))
	}
	access, err := marshalList(src.Access)
	if err != nil {
		return driver.Job{}, s.errorf(op, fmt.Errorf("access: %w", err))
	}
	var z bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&z)
	zw.Write(src.Data)
	err = zw.Close()
	gzipWriters.Put(zw)
	if err != nil {
		return driver.Job{}, s.errorf(op, err)
	}
	now := time.Now()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return driver.Job{}, s.errorf(op, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	_, err = tx.ExecContext(ctx, `INSERT INTO sources (doc_id, name, format, title, lang, metadata, access, size, data, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (doc_id) DO UPDATE SET name = excluded.name, format = excluded.format, title = excluded.title,
			lang = excluded.lang, metadata = excluded.metadata, access = excluded.access, size = excluded.size,
			data = excluded.data, updated_at = excluded.updated_at`,
		src.DocID, src.Name, src.Format, src.Title, src.Lang, metadata, access, len(src.Data), z.Bytes(), now.UnixNano())
	if err != nil {
		return driver.Job{}, s.errorf(op+": write source", err)
	}
	j := driver.Job{DocID: src.DocID, State: driver.JobQueued, Access: src.Access, CreatedAt: now}
	res, err := tx.ExecContext(ctx, `INSERT INTO jobs (doc_id, state, error, attempts, access, change, chunks, chunks_done,
		calls, tokens, lease_until, created_at, started_at, finished_at) VALUES (?, ?, '', 0, ?, '', 0, 0, 0, 0, 0, ?, 0, 0)`,
		src.DocID, driver.JobQueued, access, now.UnixNano())
	if err != nil {
		return driver.Job{}, s.errorf(op+": queue job", err)
	}
	if j.ID, err = res.LastInsertId(); err != nil {
		return driver.Job{}, s.errorf(op+": queue job", err)
	}
	if err = tx.Commit(); err != nil {
		return driver.Job{}, s.errorf(op+": commit", err)
	}
	return j, nil
}

// Upload returns a document's source, decompressed.
func (s *Store) Upload(ctx context.Context, docID string) (driver.Upload, error) {
	op := fmt.Sprintf("source %q", docID)
	var (
		src              driver.Upload
		metadata, access string
		size             int64
		data             []byte
		updated          int64
	)
	err := s.r.QueryRowContext(ctx, `SELECT doc_id, name, format, title, lang, metadata, access, size, data, updated_at
		FROM sources WHERE doc_id = ?`, docID).Scan(&src.DocID, &src.Name, &src.Format, &src.Title, &src.Lang,
		&metadata, &access, &size, &data, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return driver.Upload{}, s.errorf(op, driver.ErrNotFound)
	}
	if err != nil {
		return driver.Upload{}, s.errorf(op, err)
	}
	if err := unmarshalMap(metadata, &src.Metadata); err != nil {
		return driver.Upload{}, s.errorf(op+": metadata", err)
	}
	if err := unmarshalList(access, &src.Access); err != nil {
		return driver.Upload{}, s.errorf(op+": access", err)
	}
	if size < 0 || size > maxSourceSize {
		return driver.Upload{}, s.errorf(op, fmt.Errorf("size %d out of range: %w", size, driver.ErrInvalid))
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return driver.Upload{}, s.errorf(op+": decompress", err)
	}
	src.Data = make([]byte, 0, size)
	buf := bytes.NewBuffer(src.Data)
	if _, err := io.Copy(buf, io.LimitReader(zr, size+1)); err != nil {
		return driver.Upload{}, s.errorf(op+": decompress", err)
	}
	if int64(buf.Len()) != size {
		return driver.Upload{}, s.errorf(op, fmt.Errorf("decompressed %d bytes, want %d: %w", buf.Len(), size, driver.ErrInvalid))
	}
	src.Data = buf.Bytes()
	src.UpdatedAt = time.Unix(0, updated)
	return src, nil
}

// EnqueueJob queues a job for a document's stored upload unless one is
// queued or running for it.
func (s *Store) EnqueueJob(ctx context.Context, docID string, access []string) (_ driver.Job, _ bool, err error) {
	op := fmt.Sprintf("enqueue job %q", docID)
	acl, err := marshalList(access)
	if err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE doc_id = ? AND state IN (?, ?)`,
		docID, driver.JobQueued, driver.JobRunning).Scan(&n); err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	if n > 0 {
		return driver.Job{}, false, nil
	}
	now := time.Now()
	res, err := tx.ExecContext(ctx, `INSERT INTO jobs (doc_id, state, error, attempts, access, change, chunks, chunks_done,
		calls, tokens, lease_until, created_at, started_at, finished_at) VALUES (?, ?, '', 0, ?, '', 0, 0, 0, 0, 0, ?, 0, 0)`,
		docID, driver.JobQueued, acl, now.UnixNano())
	if err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	j := driver.Job{DocID: docID, State: driver.JobQueued, Access: access, CreatedAt: now}
	if j.ID, err = res.LastInsertId(); err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	if err := tx.Commit(); err != nil {
		return driver.Job{}, false, s.errorf(op+": commit", err)
	}
	return j, true, nil
}

// DeleteUpload removes a document's source.
func (s *Store) DeleteUpload(ctx context.Context, docID string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM sources WHERE doc_id = ?`, docID); err != nil {
		return s.errorf(fmt.Sprintf("delete source %q", docID), err)
	}
	return nil
}

const jobColumns = `id, doc_id, state, error, attempts, access, change, chunks, chunks_done, calls, tokens,
	created_at, started_at, finished_at`

func scanJob(sc scanner) (driver.Job, error) {
	var (
		j                          driver.Job
		access                     string
		created, started, finished int64
	)
	if err := sc.Scan(&j.ID, &j.DocID, &j.State, &j.Error, &j.Attempts, &access, &j.Change, &j.Chunks,
		&j.ChunksDone, &j.Calls, &j.Tokens, &created, &started, &finished); err != nil {
		return j, err
	}
	if err := unmarshalList(access, &j.Access); err != nil {
		return j, fmt.Errorf("job %d: access: %w", j.ID, err)
	}
	j.CreatedAt = unixTime(created)
	j.StartedAt = unixTime(started)
	j.FinishedAt = unixTime(finished)
	return j, nil
}

func unixTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Job returns one job.
func (s *Store) Job(ctx context.Context, id int64) (driver.Job, error) {
	j, err := scanJob(s.r.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return j, s.errorf(fmt.Sprintf("job %d", id), driver.ErrNotFound)
	}
	if err != nil {
		return j, s.errorf(fmt.Sprintf("job %d", id), err)
	}
	return j, nil
}

// ClaimJob marks the oldest claimable job running for lease.
func (s *Store) ClaimJob(ctx context.Context, lease time.Duration) (driver.Job, bool, error) {
	now := time.Now()
	j, err := scanJob(s.w.QueryRowContext(ctx, `UPDATE jobs SET state = ?, attempts = attempts + 1, lease_until = ?, started_at = ?
		WHERE id = (SELECT id FROM jobs WHERE state = ? OR (state = ? AND lease_until < ?) ORDER BY id LIMIT 1)
		RETURNING `+jobColumns,
		driver.JobRunning, now.Add(lease).UnixNano(), now.UnixNano(), driver.JobQueued, driver.JobRunning, now.UnixNano()))
	if errors.Is(err, sql.ErrNoRows) {
		return j, false, nil
	}
	if err != nil {
		return j, false, s.errorf("claim job", err)
	}
	return j, true, nil
}

// UpdateJob writes a job's progress and state; a running job's lease is
// extended by lease.
func (s *Store) UpdateJob(ctx context.Context, j driver.Job, lease time.Duration) error {
	var leaseUntil int64
	if j.State == driver.JobRunning {
		leaseUntil = time.Now().Add(lease).UnixNano()
	}
	res, err := s.w.ExecContext(ctx, `UPDATE jobs SET state = ?, error = ?, attempts = ?, change = ?, chunks = ?, chunks_done = ?,
		calls = ?, tokens = ?, lease_until = ?, started_at = ?, finished_at = ? WHERE id = ?`,
		j.State, j.Error, j.Attempts, j.Change, j.Chunks, j.ChunksDone, j.Calls, j.Tokens, leaseUntil,
		unixNano(j.StartedAt), unixNano(j.FinishedAt), j.ID)
	if err != nil {
		return s.errorf(fmt.Sprintf("update job %d", j.ID), err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return s.errorf(fmt.Sprintf("update job %d", j.ID), driver.ErrNotFound)
	}
	return nil
}

// RequeueJobs puts every running job back in the queue.
func (s *Store) RequeueJobs(ctx context.Context) (int, error) {
	res, err := s.w.ExecContext(ctx, `UPDATE jobs SET state = ?, lease_until = 0 WHERE state = ?`, driver.JobQueued, driver.JobRunning)
	if err != nil {
		return 0, s.errorf("requeue jobs", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// JobCounts counts jobs by state.
func (s *Store) JobCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT state, count(*) FROM jobs GROUP BY state`)
	if err != nil {
		return nil, s.errorf("count jobs", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, s.errorf("count jobs", err)
		}
		out[st] = n
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("count jobs", err)
	}
	return out, nil
}

// CreateKey stores a key (its hash, never its secret).
func (s *Store) CreateKey(ctx context.Context, k driver.APIKey) error {
	op := fmt.Sprintf("create key %q", k.ID)
	if k.ID == "" || k.Tenant == "" || len(k.Hash) == 0 {
		return s.errorf(op, fmt.Errorf("id, tenant and hash are required: %w", driver.ErrInvalid))
	}
	principals, err := marshalList(k.Principals)
	if err != nil {
		return s.errorf(op, err)
	}
	created := k.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	_, err = s.w.ExecContext(ctx, `INSERT INTO api_keys (id, name, tenant, principals, admin, write, hash, created_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, k.ID, k.Name, k.Tenant, principals, k.Admin, k.Write, k.Hash,
		created.UnixNano(), unixNano(k.RevokedAt))
	if err != nil {
		return s.errorf(op, err)
	}
	return nil
}

const keyColumns = `id, name, tenant, principals, admin, write, hash, created_at, revoked_at`

func scanKey(sc scanner) (driver.APIKey, error) {
	var (
		k                driver.APIKey
		principals       string
		created, revoked int64
	)
	if err := sc.Scan(&k.ID, &k.Name, &k.Tenant, &principals, &k.Admin, &k.Write, &k.Hash, &created, &revoked); err != nil {
		return k, err
	}
	if err := unmarshalList(principals, &k.Principals); err != nil {
		return k, fmt.Errorf("key %q: principals: %w", k.ID, err)
	}
	k.CreatedAt, k.RevokedAt = unixTime(created), unixTime(revoked)
	return k, nil
}

// Key returns a key by id.
func (s *Store) Key(ctx context.Context, id string) (driver.APIKey, error) {
	k, err := scanKey(s.r.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return k, s.errorf(fmt.Sprintf("key %q", id), driver.ErrNotFound)
	}
	if err != nil {
		return k, s.errorf(fmt.Sprintf("key %q", id), err)
	}
	return k, nil
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]driver.APIKey, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, s.errorf("list keys", err)
	}
	defer rows.Close()
	var out []driver.APIKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, s.errorf("list keys", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("list keys", err)
	}
	return out, nil
}

// RevokeKey revokes a key; revoking a revoked key keeps its first time.
func (s *Store) RevokeKey(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `UPDATE api_keys SET revoked_at = CASE WHEN revoked_at = 0 THEN ? ELSE revoked_at END WHERE id = ?`,
		time.Now().UnixNano(), id)
	if err != nil {
		return s.errorf(fmt.Sprintf("revoke key %q", id), err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return s.errorf(fmt.Sprintf("revoke key %q", id), driver.ErrNotFound)
	}
	s.keyRev.Add(1)
	return nil
}

// KeyRevision counts the keys revoked through this Store (see
// situate.KeyRevisioner).
func (s *Store) KeyRevision() uint64 { return s.keyRev.Load() }
