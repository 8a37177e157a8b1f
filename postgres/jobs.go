package postgres

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"sync"
	"time"

	"github.com/situate/situate/driver"

	"github.com/jackc/pgx/v5"
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

// docLockClass is the first key of the advisory locks that serialize the
// enqueueing of one document's jobs across processes ("JOBS").
const docLockClass = 0x4a4f4253

func lockDoc(ctx context.Context, tx pgx.Tx, docID string) error {
	h := fnv.New32a()
	h.Write([]byte(docID))
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, int32(docLockClass), int32(h.Sum32()))
	return err
}

const insertJob = `INSERT INTO jobs (doc_id, state, error, attempts, access, change, chunks, chunks_done,
	calls, tokens, lease_until, created_at, started_at, finished_at)
	VALUES ($1, $2, ''::bytea, 0, $3, '', 0, 0, 0, 0, 0, $4, 0, 0) RETURNING id`

// EnqueueUpload stores src (gzip-compressed), replacing the document's
// previous source, and queues a job for it in the same transaction.
func (s *Store) EnqueueUpload(ctx context.Context, src driver.Upload) (driver.Job, error) {
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
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return driver.Job{}, s.errorf(op, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := lockDoc(ctx, tx, src.DocID); err != nil {
		return driver.Job{}, s.errorf(op, err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO sources (doc_id, name, format, title, lang, metadata, access, size, data, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (doc_id) DO UPDATE SET name = excluded.name, format = excluded.format, title = excluded.title,
			lang = excluded.lang, metadata = excluded.metadata, access = excluded.access, size = excluded.size,
			data = excluded.data, updated_at = excluded.updated_at`,
		[]byte(src.DocID), []byte(src.Name), []byte(src.Format), []byte(src.Title), []byte(src.Lang),
		metadata, access, len(src.Data), z.Bytes(), now.UnixNano())
	if err != nil {
		return driver.Job{}, s.errorf(op+": write source", err)
	}
	j := driver.Job{DocID: src.DocID, State: driver.JobQueued, Access: src.Access, CreatedAt: now}
	if err := tx.QueryRow(ctx, insertJob, []byte(src.DocID), driver.JobQueued, access, now.UnixNano()).Scan(&j.ID); err != nil {
		return driver.Job{}, s.errorf(op+": queue job", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return driver.Job{}, s.errorf(op+": commit", err)
	}
	return j, nil
}

// Upload returns a document's source, decompressed.
func (s *Store) Upload(ctx context.Context, docID string) (driver.Upload, error) {
	op := fmt.Sprintf("source %q", docID)
	var (
		src                                 driver.Upload
		id, name, format, title, lang, data []byte
		metadata, access                    string
		size, updated                       int64
	)
	err := s.pool.QueryRow(ctx, `SELECT doc_id, name, format, title, lang, metadata, access, size, data, updated_at
		FROM sources WHERE doc_id = $1`, []byte(docID)).Scan(&id, &name, &format, &title, &lang,
		&metadata, &access, &size, &data, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		return driver.Upload{}, s.errorf(op, driver.ErrNotFound)
	}
	if err != nil {
		return driver.Upload{}, s.errorf(op, err)
	}
	src.DocID, src.Name, src.Format, src.Title, src.Lang = string(id), string(name), string(format), string(title), string(lang)
	if err := unmarshalMap(metadata, &src.Metadata); err != nil {
		return driver.Upload{}, s.errorf(op+": metadata", fmt.Errorf("%w: %w", err, ErrCorrupt))
	}
	if err := unmarshalList(access, &src.Access); err != nil {
		return driver.Upload{}, s.errorf(op+": access", fmt.Errorf("%w: %w", err, ErrCorrupt))
	}
	if size < 0 || size > maxSourceSize {
		return driver.Upload{}, s.errorf(op, fmt.Errorf("size %d out of range: %w", size, ErrCorrupt))
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return driver.Upload{}, s.errorf(op+": decompress", fmt.Errorf("%w: %w", err, ErrCorrupt))
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	if _, err := io.Copy(buf, io.LimitReader(zr, size+1)); err != nil {
		return driver.Upload{}, s.errorf(op+": decompress", fmt.Errorf("%w: %w", err, ErrCorrupt))
	}
	if int64(buf.Len()) != size {
		return driver.Upload{}, s.errorf(op, fmt.Errorf("decompressed %d bytes, want %d: %w", buf.Len(), size, ErrCorrupt))
	}
	src.Data = buf.Bytes()
	src.UpdatedAt = time.Unix(0, updated)
	return src, nil
}

// EnqueueJob queues a job for a document's stored upload unless one is
// queued or running for it. An advisory lock on the document makes the
// check and the insert one step across processes.
func (s *Store) EnqueueJob(ctx context.Context, docID string, access []string) (driver.Job, bool, error) {
	op := fmt.Sprintf("enqueue job %q", docID)
	acl, err := marshalList(access)
	if err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := lockDoc(ctx, tx, docID); err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE doc_id = $1 AND state IN ($2, $3)`,
		[]byte(docID), driver.JobQueued, driver.JobRunning).Scan(&n); err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	if n > 0 {
		return driver.Job{}, false, nil
	}
	now := time.Now()
	j := driver.Job{DocID: docID, State: driver.JobQueued, Access: access, CreatedAt: now}
	if err := tx.QueryRow(ctx, insertJob, []byte(docID), driver.JobQueued, acl, now.UnixNano()).Scan(&j.ID); err != nil {
		return driver.Job{}, false, s.errorf(op, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return driver.Job{}, false, s.errorf(op+": commit", err)
	}
	return j, true, nil
}

// DeleteUpload removes a document's source.
func (s *Store) DeleteUpload(ctx context.Context, docID string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sources WHERE doc_id = $1`, []byte(docID)); err != nil {
		return s.errorf(fmt.Sprintf("delete source %q", docID), err)
	}
	return nil
}

const jobColumns = `id, doc_id, state, error, attempts, access, change, chunks, chunks_done, calls, tokens,
	created_at, started_at, finished_at`

func scanJob(row pgx.Row) (driver.Job, error) {
	var (
		j                          driver.Job
		docID, jobErr              []byte
		access                     string
		created, started, finished int64
	)
	if err := row.Scan(&j.ID, &docID, &j.State, &jobErr, &j.Attempts, &access, &j.Change, &j.Chunks,
		&j.ChunksDone, &j.Calls, &j.Tokens, &created, &started, &finished); err != nil {
		return j, err
	}
	j.DocID, j.Error = string(docID), string(jobErr)
	if err := unmarshalList(access, &j.Access); err != nil {
		return j, fmt.Errorf("job %d: access: %w: %w", j.ID, err, ErrCorrupt)
	}
	j.CreatedAt, j.StartedAt, j.FinishedAt = unixTime(created), unixTime(started), unixTime(finished)
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
	j, err := scanJob(s.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return j, s.errorf(fmt.Sprintf("job %d", id), driver.ErrNotFound)
	}
	if err != nil {
		return j, s.errorf(fmt.Sprintf("job %d", id), err)
	}
	return j, nil
}

// ClaimJob marks the oldest claimable job (queued, or running with its lease
// run out) running for lease. Claimers in any number of processes skip the
// rows others are claiming (FOR UPDATE SKIP LOCKED), so each job goes to one
// of them and none waits for another.
func (s *Store) ClaimJob(ctx context.Context, lease time.Duration) (driver.Job, bool, error) {
	now := time.Now()
	j, err := scanJob(s.pool.QueryRow(ctx, `UPDATE jobs SET state = $1, attempts = attempts + 1, lease_until = $2, started_at = $3
		WHERE id = (SELECT id FROM jobs WHERE state = $4 OR (state = $1 AND lease_until < $3)
			ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING `+jobColumns,
		driver.JobRunning, now.Add(lease).UnixNano(), now.UnixNano(), driver.JobQueued))
	if errors.Is(err, pgx.ErrNoRows) {
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
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET state = $1, error = $2, attempts = $3, change = $4, chunks = $5,
		chunks_done = $6, calls = $7, tokens = $8, lease_until = $9, started_at = $10, finished_at = $11 WHERE id = $12`,
		j.State, []byte(j.Error), j.Attempts, j.Change, j.Chunks, j.ChunksDone, j.Calls, j.Tokens, leaseUntil,
		unixNano(j.StartedAt), unixNano(j.FinishedAt), j.ID)
	if err != nil {
		return s.errorf(fmt.Sprintf("update job %d", j.ID), err)
	}
	if tag.RowsAffected() == 0 {
		return s.errorf(fmt.Sprintf("update job %d", j.ID), driver.ErrNotFound)
	}
	return nil
}

// RequeueJobs puts every running job back in the queue. Only a process
// that is the store's sole user may call it: on a shared database the jobs
// of other live processes would run twice (leases recover the jobs of dead
// ones without it).
func (s *Store) RequeueJobs(ctx context.Context) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET state = $1, lease_until = 0 WHERE state = $2`, driver.JobQueued, driver.JobRunning)
	if err != nil {
		return 0, s.errorf("requeue jobs", err)
	}
	return int(tag.RowsAffected()), nil
}

// JobCounts counts jobs by state.
func (s *Store) JobCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT state, count(*) FROM jobs GROUP BY state`)
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
	_, err = s.pool.Exec(ctx, `INSERT INTO api_keys (id, name, tenant, principals, admin, write, hash, created_at, revoked_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, []byte(k.ID), []byte(k.Name), []byte(k.Tenant), principals,
		k.Admin, k.Write, k.Hash, created.UnixNano(), unixNano(k.RevokedAt))
	if err != nil {
		return s.errorf(op, err)
	}
	return nil
}

const keyColumns = `id, name, tenant, principals, admin, write, hash, created_at, revoked_at`

func scanKey(row pgx.Row) (driver.APIKey, error) {
	var (
		k                driver.APIKey
		id, name, tenant []byte
		principals       string
		created, revoked int64
	)
	if err := row.Scan(&id, &name, &tenant, &principals, &k.Admin, &k.Write, &k.Hash, &created, &revoked); err != nil {
		return k, err
	}
	k.ID, k.Name, k.Tenant = string(id), string(name), string(tenant)
	if err := unmarshalList(principals, &k.Principals); err != nil {
		return k, fmt.Errorf("key %q: principals: %w: %w", k.ID, err, ErrCorrupt)
	}
	k.CreatedAt, k.RevokedAt = unixTime(created), unixTime(revoked)
	return k, nil
}

// Key returns a key by id.
func (s *Store) Key(ctx context.Context, id string) (driver.APIKey, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, []byte(id)))
	if errors.Is(err, pgx.ErrNoRows) {
		return k, s.errorf(fmt.Sprintf("key %q", id), driver.ErrNotFound)
	}
	if err != nil {
		return k, s.errorf(fmt.Sprintf("key %q", id), err)
	}
	return k, nil
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]driver.APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
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
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = CASE WHEN revoked_at = 0 THEN $1 ELSE revoked_at END
		WHERE id = $2`, time.Now().UnixNano(), []byte(id))
	if err != nil {
		return s.errorf(fmt.Sprintf("revoke key %q", id), err)
	}
	if tag.RowsAffected() == 0 {
		return s.errorf(fmt.Sprintf("revoke key %q", id), driver.ErrNotFound)
	}
	s.keyRev.Add(1)
	return nil
}

// KeyRevision counts the keys revoked through this Store (see
// situate.KeyRevisioner).
func (s *Store) KeyRevision() uint64 { return s.keyRev.Load() }
