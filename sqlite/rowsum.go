package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"unsafe"
)

// Every document and chunk row carries the CRC-32C of its other columns
// (migration 3), checked whenever the row is read: SQLite checks its page
// structure but not the bytes of a record, so a flipped byte in a chunk's
// text would otherwise be read back as if it were the text. Rows written
// before version 3 have no sum (NULL) and are read unchecked until rewritten.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// rowSum is the checksum of a row's values, each length-prefixed (strings)
// or fixed-width (integers) so that no two rows share an encoding.
func rowSum(values ...any) int64 {
	// The CRC runs over the encoding piece by piece (the same sum as over
	// the whole), so a row's text is not copied.
	var crc uint32
	var buf [binary.MaxVarintLen64]byte
	for _, v := range values {
		switch x := v.(type) {
		case string:
			crc = crc32.Update(crc, castagnoli, binary.AppendUvarint(buf[:0], uint64(len(x))))
			crc = crc32.Update(crc, castagnoli, unsafe.Slice(unsafe.StringData(x), len(x)))
		case int:
			crc = crc32.Update(crc, castagnoli, binary.LittleEndian.AppendUint64(buf[:0], uint64(x)))
		case int64:
			crc = crc32.Update(crc, castagnoli, binary.LittleEndian.AppendUint64(buf[:0], uint64(x)))
		default:
			panic(fmt.Sprintf("rowSum: %T", v))
		}
	}
	return int64(crc)
}

// checkSum compares a row's stored sum with the sum of its values.
func checkSum(stored sql.NullInt64, what string, values ...any) error {
	if !stored.Valid || stored.Int64 == rowSum(values...) {
		return nil
	}
	return fmt.Errorf("%s: row checksum mismatch (the database file is damaged): %w", what, ErrCorrupt)
}

// migrateV3RowSums adds the row checksums of documents and chunks.
func migrateV3RowSums(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`ALTER TABLE documents ADD COLUMN sum INTEGER`, // CRC-32C of the row (rowSum); NULL before version 3
		`ALTER TABLE chunks ADD COLUMN sum INTEGER`,
	)
}

// verifyRows reads every document and chunk row and returns those whose
// checksum does not match.
func (s *Store) verifyRows(ctx context.Context, db *sql.DB) ([]string, error) {
	var problems []string
	rows, err := db.QueryContext(ctx, `SELECT `+documentColumns+`, sum FROM documents`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		if _, err := scanDocument(rows); err != nil {
			problems = append(problems, strings.TrimSuffix(err.Error(), ": "+ErrCorrupt.Error()))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return problems, err
	}
	rows, err = db.QueryContext(ctx, `SELECT `+chunkRowColumns+` FROM chunks`)
	if err != nil {
		return problems, err
	}
	defer rows.Close()
	for rows.Next() {
		_, problem, err := scanCheckChunkRow(rows)
		if err != nil {
			return problems, err
		}
		if problem != nil {
			problems = append(problems, strings.TrimSuffix(problem.Error(), ": "+ErrCorrupt.Error()))
		}
	}
	return problems, rows.Err()
}

// chunkRowColumns are the columns of a chunk row scanCheckChunkRow reads.
const chunkRowColumns = `doc_id, idx, start, "end", text, heading, tokens, context_text, context_source, context_flags, sum, packed`

// scanCheckChunkRow scans a row of leading columns (into lead) and then
// chunkRowColumns, and checks the chunk: problem (wrapping ErrCorrupt) says
// what is damaged, nil when it is sound; err is a failed scan.
func scanCheckChunkRow(rows *sql.Rows, lead ...any) (docID string, problem, err error) {
	var (
		text, heading, ctext, csource, flags string
		idx, start, end, tokens              int
		sum                                  sql.NullInt64
		packed                               []byte
	)
	dest := append(lead, &docID, &idx, &start, &end, &text, &heading, &tokens, &ctext, &csource, &flags, &sum, &packed)
	if err := rows.Scan(dest...); err != nil {
		return "", nil, err
	}
	what := fmt.Sprintf("chunk %d of %q", idx, docID)
	if err := unpackChunk(packed, &text, &ctext); err != nil {
		return docID, fmt.Errorf("%s: %w", what, err), nil
	}
	return docID, checkSum(sum, what, docID, idx, start, end, text, heading, tokens, ctext, csource, flags), nil
}
