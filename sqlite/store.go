package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/situate/situate/driver"
)

const documentColumns = `id, title, format, lang, path, hash, metadata, access, version, chunks, indexed_at`

// Document returns the record of one document, or an error wrapping
// situate.ErrNotFound.
func (s *Store) Document(ctx context.Context, id string) (driver.DocumentRecord, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+documentColumns+`, sum FROM documents WHERE id = ?`, id)
	rec, err := scanDocument(row)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, s.errorf(fmt.Sprintf("document %q", id), driver.ErrNotFound)
	}
	if err != nil {
		return rec, s.errorf(fmt.Sprintf("document %q", id), err)
	}
	return rec, nil
}

// Documents lists every document, ordered by id.
func (s *Store) Documents(ctx context.Context) ([]driver.DocumentRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+documentColumns+`, sum FROM documents ORDER BY id`)
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

type scanner interface{ Scan(dest ...any) error }

func scanDocument(sc scanner) (driver.DocumentRecord, error) {
	var (
		rec              driver.DocumentRecord
		metadata, access string
		indexedAt        int64
		sum              sql.NullInt64
	)
	err := sc.Scan(&rec.ID, &rec.Title, &rec.Format, &rec.Lang, &rec.Path, &rec.Hash,
		&metadata, &access, &rec.Version, &rec.Chunks, &indexedAt, &sum)
	if err != nil {
		return rec, err
	}
	if err := checkSum(sum, fmt.Sprintf("document %q", rec.ID), rec.ID, rec.Title, rec.Format, rec.Lang, rec.Path, rec.Hash,
		metadata, access, rec.Version, rec.Chunks, indexedAt); err != nil {
		return rec, err
	}
	if err := unmarshalMap(metadata, &rec.Metadata); err != nil {
		return rec, fmt.Errorf("document %q: metadata: %w", rec.ID, err)
	}
	if err := unmarshalList(access, &rec.Access); err != nil {
		return rec, fmt.Errorf("document %q: access: %w", rec.ID, err)
	}
	rec.IndexedAt = time.Unix(0, indexedAt).UTC()
	return rec, nil
}

// PutDocument atomically replaces the record, chunks and contexts stored for
// rec.ID. The record is stored as given, except that Chunks is len(chunks)
// and a zero IndexedAt becomes the current time. Chunks must be given in
// order (chunk i has Index i) and belong to the document (an empty DocID is
// taken as rec.ID). The record and every chunk are written in one
// transaction, so readers and a store reopened after a crash see either the
// previous version or this one, never a mix.
func (s *Store) PutDocument(ctx context.Context, rec driver.DocumentRecord, chunks []driver.StoredChunk) error {
	return s.PutDocuments(ctx, []driver.DocumentPut{{Record: rec, Chunks: chunks}})
}

// PutDocuments stores puts in order in one transaction (situate.BatchStore):
// all of them or none.
func (s *Store) PutDocuments(ctx context.Context, puts []driver.DocumentPut) (err error) {
	for _, p := range puts {
		if err := validatePut(p.Record, p.Chunks); err != nil {
			return s.errorf(fmt.Sprintf("put document %q", p.Record.ID), err)
		}
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.errorf(fmt.Sprintf("put %d documents", len(puts)), err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for _, p := range puts {
		if err := s.putTx(ctx, tx, p.Record, p.Chunks); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		op := fmt.Sprintf("put %d documents", len(puts))
		if len(puts) == 1 {
			op = fmt.Sprintf("put document %q", puts[0].Record.ID)
		}
		return s.errorf(op+": commit", err)
	}
	return nil
}

// putTx writes one document's record and chunks in tx.
func (s *Store) putTx(ctx context.Context, tx *sql.Tx, rec driver.DocumentRecord, chunks []driver.StoredChunk) error {
	op := fmt.Sprintf("put document %q", rec.ID)
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
	if _, err := tx.StmtContext(ctx, s.stmts.deleteChunks).ExecContext(ctx, rec.ID); err != nil {
		return s.errorf(op+": delete old chunks", err)
	}
	_, err = tx.StmtContext(ctx, s.stmts.upsertDocument).ExecContext(ctx,
		rec.ID, rec.Title, rec.Format, rec.Lang, rec.Path, rec.Hash, metadata, access,
		rec.Version, len(chunks), indexedAt.UnixNano(),
		rowSum(rec.ID, rec.Title, rec.Format, rec.Lang, rec.Path, rec.Hash, metadata, access,
			rec.Version, len(chunks), indexedAt.UnixNano()))
	if err != nil {
		return s.errorf(op+": write record", err)
	}
	ins := tx.StmtContext(ctx, s.stmts.insertChunk)
	for i, c := range chunks {
		flags, err := marshalList(c.Context.Flags)
		if err != nil {
			return s.errorf(fmt.Sprintf("%s: chunk %d: context flags", op, i), err)
		}
		_, err = ins.ExecContext(ctx, rec.ID, i, c.Start, c.End, c.Heading, c.Tokens,
			c.Context.Source, flags,
			rowSum(rec.ID, i, c.Start, c.End, c.Text, c.Heading, c.Tokens, c.Context.Text, c.Context.Source, flags),
			packChunk(c.Text, c.Context.Text))
		if err != nil {
			return s.errorf(fmt.Sprintf("%s: chunk %d", op, i), err)
		}
	}
	return nil
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
	// Chunks go with the record through ON DELETE CASCADE.
	if _, err := s.stmts.deleteDocument.ExecContext(ctx, id); err != nil {
		return s.errorf(fmt.Sprintf("delete document %q", id), err)
	}
	return nil
}

// Chunks returns a document's chunks in order, with their contexts, read in
// one snapshot. An unknown document is an error wrapping situate.ErrNotFound.
func (s *Store) Chunks(ctx context.Context, docID string) (_ []driver.StoredChunk, err error) {
	op := fmt.Sprintf("chunks of %q", docID)
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.errorf(op, err)
	}
	defer tx.Rollback()
	var n int
	err = tx.QueryRowContext(ctx, `SELECT chunks FROM documents WHERE id = ?`, docID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, s.errorf(op, driver.ErrNotFound)
	}
	if err != nil {
		return nil, s.errorf(op, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT idx, start, "end", text, heading, tokens,
		context_text, context_source, context_flags, sum, packed FROM chunks WHERE doc_id = ? ORDER BY idx`, docID)
	if err != nil {
		return nil, s.errorf(op, err)
	}
	defer rows.Close()
	out := make([]driver.StoredChunk, 0, n)
	for rows.Next() {
		c := driver.StoredChunk{Chunk: driver.Chunk{DocID: docID}}
		var flags string
		var sum sql.NullInt64
		var packed []byte
		err := rows.Scan(&c.Index, &c.Start, &c.End, &c.Text, &c.Heading, &c.Tokens,
			&c.Context.Text, &c.Context.Source, &flags, &sum, &packed)
		if err != nil {
			return nil, s.errorf(op, err)
		}
		if err := unpackChunk(packed, &c.Text, &c.Context.Text); err != nil {
			return nil, s.errorf(fmt.Sprintf("%s: chunk %d", op, c.Index), err)
		}
		if err := checkSum(sum, fmt.Sprintf("chunk %d", c.Index), docID, c.Index, c.Start, c.End, c.Text, c.Heading, c.Tokens,
			c.Context.Text, c.Context.Source, flags); err != nil {
			return nil, s.errorf(op, err)
		}
		if err := unmarshalList(flags, &c.Context.Flags); err != nil {
			return nil, s.errorf(fmt.Sprintf("%s: chunk %d: context flags", op, c.Index), err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf(op, err)
	}
	if len(out) != n {
		return nil, s.errorf(op, fmt.Errorf("record says %d chunks, found %d", n, len(out)))
	}
	return out, nil
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

// ChunkCount is the number of chunks of all documents (the sum of the
// records' chunk counts, without reading a chunk).
func (s *Store) ChunkCount(ctx context.Context) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce(sum(chunks), 0) FROM documents`).Scan(&n); err != nil {
		return 0, s.errorf("chunk count", err)
	}
	return n, nil
}

// ChunksAt returns the chunks refs name, with their contexts, read in one
// query; chunks the store does not hold are absent from the map.
func (s *Store) ChunksAt(ctx context.Context, refs []driver.ChunkRef) (map[driver.ChunkRef]driver.StoredChunk, error) {
	out := make(map[driver.ChunkRef]driver.StoredChunk, len(refs))
	// At most 500 per query, well inside SQLite's limit on parameters.
	for len(refs) > 500 {
		if err := s.chunksAt(ctx, refs[:500], out); err != nil {
			return nil, err
		}
		refs = refs[500:]
	}
	if err := s.chunksAt(ctx, refs, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Store) chunksAt(ctx context.Context, refs []driver.ChunkRef, out map[driver.ChunkRef]driver.StoredChunk) error {
	if len(refs) == 0 {
		return nil
	}
	op := fmt.Sprintf("%d chunks", len(refs))
	st, err := s.chunksAtStmt(ctx, len(refs))
	if err != nil {
		return s.errorf(op, err)
	}
	args := make([]any, 0, 2*len(refs))
	for _, r := range refs {
		args = append(args, r.DocID, r.Index)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return s.errorf(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c driver.StoredChunk
		var flags string
		var sum sql.NullInt64
		var packed []byte
		if err := rows.Scan(&c.DocID, &c.Index, &c.Start, &c.End, &c.Text, &c.Heading, &c.Tokens,
			&c.Context.Text, &c.Context.Source, &flags, &sum, &packed); err != nil {
			return s.errorf(op, err)
		}
		// Named only in errors, so formatted only for one.
		where := func() string { return fmt.Sprintf("chunk %d of %q", c.Index, c.DocID) }
		if err := unpackChunk(packed, &c.Text, &c.Context.Text); err != nil {
			return s.errorf(op+": "+where(), err)
		}
		if sum.Valid && sum.Int64 != rowSum(c.DocID, c.Index, c.Start, c.End, c.Text, c.Heading, c.Tokens,
			c.Context.Text, c.Context.Source, flags) {
			return s.errorf(op, checkSum(sum, where(), c.DocID, c.Index, c.Start, c.End, c.Text, c.Heading, c.Tokens,
				c.Context.Text, c.Context.Source, flags))
		}
		if err := unmarshalList(flags, &c.Context.Flags); err != nil {
			return s.errorf(op+": "+where()+": context flags", err)
		}
		out[driver.ChunkRef{DocID: c.DocID, Index: c.Index}] = c
	}
	if err := rows.Err(); err != nil {
		return s.errorf(op, err)
	}
	return nil
}

// chunksAtStmt is the prepared query of n chunks: an OR of (doc_id, idx)
// pairs, which SQLite looks up in the primary key one by one (a row-value
// IN would scan the table).
func (s *Store) chunksAtStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	if st, ok := s.chunksAtStmts.Load(n); ok {
		return st.(*sql.Stmt), nil
	}
	var q strings.Builder
	q.WriteString(`SELECT doc_id, idx, start, "end", text, heading, tokens,
		context_text, context_source, context_flags, sum, packed FROM chunks WHERE `)
	for i := range n {
		if i > 0 {
			q.WriteString(" OR ")
		}
		q.WriteString("(doc_id = ? AND idx = ?)")
	}
	st, err := s.r.PrepareContext(ctx, q.String())
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.chunksAtStmts.LoadOrStore(n, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}
