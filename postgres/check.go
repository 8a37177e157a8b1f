package postgres

import (
	"context"
	"fmt"

	"github.com/situate/situate/driver"
)

var _ driver.IntegrityChecker = (*Store)(nil)

// maxProblems bounds the problems IntegrityCheck lists.
const maxProblems = 100

// IntegrityCheck verifies what situate keeps in the database, beyond what
// PostgreSQL's own constraints guarantee: every record and chunk decodes
// (its JSON columns), every document has exactly the chunks its record
// counts, numbered from 0 without gaps, and the change counter is at least
// every change number written (else a server would miss changes). It does
// not check PostgreSQL's pages (amcheck and backups do that). quick skips
// the chunks' context flags, the one check that reads every chunk row.
func (s *Store) IntegrityCheck(ctx context.Context, quick bool) ([]string, error) {
	var problems []string
	add := func(format string, args ...any) bool {
		if len(problems) == maxProblems {
			problems = append(problems, fmt.Sprintf("(stopped after %d problems)", maxProblems))
			return false
		}
		if len(problems) > maxProblems {
			return false
		}
		problems = append(problems, fmt.Sprintf(format, args...))
		return true
	}
	rows, err := s.pool.Query(ctx, `SELECT `+documentColumns+` FROM documents ORDER BY id`)
	if err != nil {
		return nil, s.errorf("integrity check", err)
	}
	for rows.Next() {
		if _, err := scanDocument(rows); err != nil && !add("%v", err) {
			break
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.errorf("integrity check", err)
	}
	rows, err = s.pool.Query(ctx, `SELECT d.id, d.chunks, count(c.idx), coalesce(min(c.idx), 0), coalesce(max(c.idx), -1)
		FROM documents d LEFT JOIN chunks c ON c.doc_id = d.id
		GROUP BY d.id, d.chunks
		HAVING d.chunks <> count(c.idx) OR coalesce(min(c.idx), 0) <> 0 OR coalesce(max(c.idx), -1) <> d.chunks - 1
		ORDER BY d.id`)
	if err != nil {
		return nil, s.errorf("integrity check", err)
	}
	for rows.Next() {
		var (
			id                  []byte
			want, n, first, end int64
		)
		if err := rows.Scan(&id, &want, &n, &first, &end); err != nil {
			rows.Close()
			return nil, s.errorf("integrity check", err)
		}
		if !add("document %q: record says %d chunks, found %d (numbered %d to %d)", id, want, n, first, end) {
			break
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.errorf("integrity check", err)
	}
	if !quick {
		rows, err = s.pool.Query(ctx, `SELECT doc_id, idx, context_flags FROM chunks WHERE context_flags <> '[]' ORDER BY doc_id, idx`)
		if err != nil {
			return nil, s.errorf("integrity check", err)
		}
		for rows.Next() {
			var (
				id    []byte
				idx   int
				flags string
				l     []string
			)
			if err := rows.Scan(&id, &idx, &flags); err != nil {
				rows.Close()
				return nil, s.errorf("integrity check", err)
			}
			if err := unmarshalList(flags, &l); err != nil && !add("document %q: chunk %d: context flags: %v", id, idx, err) {
				break
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, s.errorf("integrity check", err)
		}
	}
	var counter, written int64
	if err := s.pool.QueryRow(ctx, `SELECT n FROM doc_changes WHERE id = 1`).Scan(&counter); err != nil {
		add("change counter: %v", err)
	} else if err := s.pool.QueryRow(ctx, `SELECT greatest(
			coalesce((SELECT max(change_n) FROM documents), 0),
			coalesce((SELECT max(change_n) FROM doc_deletions), 0))`).Scan(&written); err != nil {
		return nil, s.errorf("integrity check", err)
	} else if written > counter {
		add("change counter is %d but a change numbered %d was written: servers would miss changes", counter, written)
	}
	return problems, nil
}
