package situate

import (
	"context"
	"time"
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
