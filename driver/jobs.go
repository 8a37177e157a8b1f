package driver

import (
	"context"
	"time"
)

// Upload is a document as a client uploaded it: the bytes and the fields the
// client gave. A store keeps it (compressed) so that a changed prompt
// template, model or chunking re-situates the document without the client
// uploading it again.
type Upload struct {
	DocID string
	// Name is the uploaded file's name ("" for text sent as JSON); its
	// extension picks the parser.
	Name     string
	Format   string
	Title    string
	Lang     string
	Metadata map[string]string
	Access   []string
	Data     []byte
	// UpdatedAt is set by the store.
	UpdatedAt time.Time
}

// Job states.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// Job is one background indexing of a document's current source.
type Job struct {
	ID    int64
	DocID string
	// State is one of the Job* constants; Error says why a job failed.
	State    string
	Error    string
	Attempts int
	// Access is the document's access list when the job was queued: who
	// may see the job at all.
	Access []string
	// Change is what indexing did: "added", "updated", "unchanged" or
	// "deleted" (the source was removed before the job ran).
	Change     string
	Chunks     int
	ChunksDone int
	Calls      int
	// Tokens are the LLM tokens the job's calls used (input, cache reads
	// included, and output).
	Tokens     int
	CreatedAt  time.Time
	StartedAt  time.Time
	FinishedAt time.Time
}

// JobStore is a durable queue of document jobs kept in the store, with the
// sources they index. A job survives a restart: a claimed job whose lease
// ran out (its worker died) is claimed again.
type JobStore interface {
	// EnqueueUpload stores src, replacing the document's previous source,
	// and queues a job for it, in one transaction.
	EnqueueUpload(ctx context.Context, src Upload) (Job, error)
	// Upload returns a document's upload, or an error wrapping ErrNotFound.
	Upload(ctx context.Context, docID string) (Upload, error)
	// EnqueueJob queues a job that indexes a document's stored upload
	// again (after a settings change made it stale), unless one is queued
	// or running for it already; queued is false then.
	EnqueueJob(ctx context.Context, docID string, access []string) (j Job, queued bool, err error)
	// DeleteUpload removes a document's source; an unknown one is not an
	// error.
	DeleteUpload(ctx context.Context, docID string) error
	// Job returns one job, or an error wrapping ErrNotFound.
	Job(ctx context.Context, id int64) (Job, error)
	// ClaimJob marks the oldest queued job, or a running one whose lease
	// ran out, running for lease; ok is false when there is none.
	ClaimJob(ctx context.Context, lease time.Duration) (j Job, ok bool, err error)
	// UpdateJob writes a job's progress and state and, while it runs,
	// extends its lease by lease.
	UpdateJob(ctx context.Context, j Job, lease time.Duration) error
	// RequeueJobs puts every running job back in the queue (a process
	// that owns the store alone calls it when it starts).
	RequeueJobs(ctx context.Context) (int, error)
	// JobCounts counts jobs by state.
	JobCounts(ctx context.Context) (map[string]int, error)
}

// APIKey is a key of the HTTP service. The secret is never stored: only
// its SHA-256 hash, compared in constant time.
type APIKey struct {
	// ID is public: it appears in the key ("sk_<id>_<secret>"), in logs and
	// in listings.
	ID     string
	Name   string
	Tenant string
	// Principals are the principals and groups the key reads as.
	Principals []string
	// Admin keys read every document of their tenant and may write.
	Admin bool
	// Write keys may upsert and delete documents.
	Write     bool
	Hash      []byte
	CreatedAt time.Time
	// RevokedAt is zero while the key is valid.
	RevokedAt time.Time
}

// KeyStore keeps API keys.
// KeyRevisioner is implemented by key stores that count the changes made
// to keys through them (revocations) in this process. A server that caches
// keys compares the count to see a revocation at once; one made by another
// process is seen when its cache entry expires.
type KeyRevisioner interface {
	KeyRevision() uint64
}

type KeyStore interface {
	CreateKey(ctx context.Context, k APIKey) error
	// Key returns a key by id (revoked ones too), or an error wrapping
	// ErrNotFound.
	Key(ctx context.Context, id string) (APIKey, error)
	Keys(ctx context.Context) ([]APIKey, error)
	// RevokeKey revokes a key; an error wraps ErrNotFound for an unknown id.
	RevokeKey(ctx context.Context, id string) error
}
