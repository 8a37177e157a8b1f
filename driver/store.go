package driver

import (
	"context"
	"strings"
	"time"

	"github.com/situate/situate/analysis"
)

// DocumentRecord is what the store knows of an indexed document.
type DocumentRecord struct {
	ID       string
	Title    string
	Format   string
	Lang     string
	Path     string
	Hash     string
	Metadata map[string]string
	Access   []string
	// Version starts at 1 and increases every time the document's content
	// changes; all of a document's chunks and contexts belong to one version.
	Version   int
	Chunks    int
	IndexedAt time.Time
}

// StoredChunk is a chunk with the context it was indexed with.
type StoredChunk struct {
	Chunk
	Context Context
}

// Store persists documents, their chunks and contexts. It is the source of
// truth: indexes can always be rebuilt from it.
// ChunkCounter is implemented by stores that count their chunks without
// reading them: a reader whose indexes hold as many chunks as the store (and
// nothing is journalled) opens them without listing the documents.
type ChunkCounter interface {
	// ChunkCount is the number of chunks of all documents.
	ChunkCount(ctx context.Context) (int, error)
}

// ChunkRef names one chunk of a document.
type ChunkRef struct {
	DocID string
	Index int
}

// ChunkReader is implemented by stores that read chunks without their
// documents' others: a search reads only its hits, in one read.
type ChunkReader interface {
	// ChunksAt returns, with their contexts, the chunks refs name that the
	// store holds; those it does not hold are absent from the map.
	ChunksAt(ctx context.Context, refs []ChunkRef) (map[ChunkRef]StoredChunk, error)
}

// DocumentPut is one document for BatchStore.PutDocuments.
type DocumentPut struct {
	Record DocumentRecord
	Chunks []StoredChunk
}

// BatchStore is implemented by stores that store several documents in one
// transaction, all or none: a commit then writes each page it changes once
// for the batch rather than once per document (indexing GOROOT/src's
// 10,706 documents made 279,331 pwrite calls with one SQLite transaction
// per document, 138,199 with one per batch of 64).
type BatchStore interface {
	// PutDocuments is PutDocument for each of puts, in order.
	PutDocuments(ctx context.Context, puts []DocumentPut) error
}

type Store interface {
	// Document returns the record of one document, or an error wrapping
	// ErrNotFound.
	Document(ctx context.Context, id string) (DocumentRecord, error)
	// Documents lists every document, ordered by id.
	Documents(ctx context.Context) ([]DocumentRecord, error)
	// PutDocument atomically replaces everything stored for rec.ID (record,
	// chunks, contexts). The record is stored as given (Hash and Version are
	// the engine's; Chunks is len(chunks); IndexedAt is set by the store when
	// zero).
	PutDocument(ctx context.Context, rec DocumentRecord, chunks []StoredChunk) error
	// DeleteDocument removes a document and its chunks; deleting an unknown
	// document is not an error.
	DeleteDocument(ctx context.Context, id string) error
	// Chunks returns a document's chunks in order.
	Chunks(ctx context.Context, docID string) ([]StoredChunk, error)
	Close() error
}

// MetaStore is implemented by stores that keep small engine state. The Engine
// uses it to journal documents whose index update is in flight, so a crash
// between the store commit and the index commit is repaired on the next Open.
type MetaStore interface {
	SetMeta(ctx context.Context, key, value string) error
	Meta(ctx context.Context, key string) (string, bool, error)
}

// ResolveLanguage returns the document's language: the declared one, or the
// detected one when the document does not say.
func ResolveLanguage(doc Document) string {
	if doc.Lang != "" {
		return strings.ToLower(doc.Lang)
	}
	return analysis.Detect(doc.Text)
}

// IntegrityChecker is implemented by stores that can verify their own
// files (the SQLite store runs PRAGMA integrity_check). Check finds it by
// type assertion.
type IntegrityChecker interface {
	// IntegrityCheck returns the problems found; none when sound.
	IntegrityCheck(ctx context.Context, quick bool) ([]string, error)
}

// ChangeStamper is implemented by shared stores that tell cheaply whether
// any document was written or deleted: the stamp changes with every such
// commit. Sync reads it first and skips the document list when it is the
// stamp of the last Sync.
type ChangeStamper interface {
	ChangeStamp(ctx context.Context) (string, error)
}

// DocumentChanges are the documents written and deleted since a change
// stamp, and the stamp they lead to.
type DocumentChanges struct {
	Written []DocumentRecord
	Deleted []string
	Stamp   string
}

// ChangeLister is implemented by shared stores that list what changed
// since a stamp; Sync then reads only the changes, not every document.
type ChangeLister interface {
	ChangeStamper
	DocumentChanges(ctx context.Context, since string) (DocumentChanges, error)
}
