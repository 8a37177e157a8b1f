package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
)

// DropDamaged deletes every document whose row, or any of whose chunk
// rows, fails its checksum, together with all its chunks, and returns the
// ids of the documents it deleted, in order. What it drops is
// what the next index run reads again from the sources; everything else in
// the store stays as it was. A database whose pages SQLite itself finds
// damaged is left untouched: the error wraps ErrCorrupt, and only a backup
// or a new store helps there.
//
// Open refuses a store with damaged rows; open it with
// Options.SkipOpenCheck to call DropDamaged.
func (s *Store) DropDamaged(ctx context.Context) ([]string, error) {
	if s.readOnly {
		return nil, s.errorf("drop damaged", ErrReadOnly)
	}
	problems, err := s.IntegrityCheck(ctx, true)
	if err != nil {
		return nil, err
	}
	if err := s.problems("quick_check", problems); err != nil {
		return nil, err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.errorf("drop damaged", err)
	}
	defer tx.Rollback()
	dropped, err := dropDamaged(ctx, tx)
	if err != nil {
		return nil, s.errorf("drop damaged", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, s.errorf("drop damaged: commit", err)
	}
	return dropped, nil
}

func dropDamaged(ctx context.Context, tx *sql.Tx) ([]string, error) {
	var docRows, chunkRows []int64
	ids := map[string]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT rowid, `+documentColumns+`, sum FROM documents`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var rowid int64
		rec, err := scanDocument(rowidScanner{rows, &rowid})
		if err != nil {
			docRows = append(docRows, rowid)
			ids[rec.ID] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT rowid, `+chunkRowColumns+` FROM chunks`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var rowid int64
		docID, problem, err := scanCheckChunkRow(rows, &rowid)
		if err != nil {
			rows.Close()
			return nil, err
		}
		if problem != nil {
			chunkRows = append(chunkRows, rowid)
			ids[docID] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	dropped := map[string]bool{}
	for _, rowid := range chunkRows {
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE rowid = ?`, rowid); err != nil {
			return nil, err
		}
	}
	for _, rowid := range docRows {
		var id string
		err := tx.QueryRowContext(ctx, `DELETE FROM documents WHERE rowid = ? RETURNING id`, rowid).Scan(&id)
		if err == nil {
			dropped[id] = true
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	drop := func(id string) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE doc_id = ?`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			dropped[id] = true
		}
		return nil
	}
	for id := range ids {
		if err := drop(id); err != nil {
			return nil, err
		}
	}
	// A damaged chunk row whose document id was itself garbled left its
	// document short of a chunk, and a damaged document row may leave
	// chunks without a document: those go too.
	rows, err = tx.QueryContext(ctx, `SELECT id FROM documents AS d
		WHERE chunks != (SELECT count(*) FROM chunks AS c WHERE c.doc_id = d.id)`)
	if err != nil {
		return nil, err
	}
	var short []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		short = append(short, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, id := range short {
		if err := drop(id); err != nil {
			return nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)`); err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(dropped)), nil
}

// rowidScanner reads a row's rowid into *rowid ahead of the columns its
// caller asks for.
type rowidScanner struct {
	rows  *sql.Rows
	rowid *int64
}

func (r rowidScanner) Scan(dest ...any) error {
	return r.rows.Scan(append([]any{r.rowid}, dest...)...)
}

// OpenDroppingDamaged opens a database that Open refuses because rows are
// damaged, without the open-time check, and drops the documents whose rows
// are damaged (DropDamaged), so that the indexes can be rebuilt from the
// rest and the next index run reads those documents again. Damage SQLite
// itself finds (pages, not rows) is not repaired: the error says so.
func OpenDroppingDamaged(ctx context.Context, path string) (*Store, []string, error) {
	s, err := OpenWith(ctx, path, Options{SkipOpenCheck: true})
	if err != nil {
		return nil, nil, err
	}
	dropped, err := s.DropDamaged(ctx)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, dropped, nil
}
