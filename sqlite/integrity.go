package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/situate/situate/driver"

	msqlite "modernc.org/sqlite"
)

// Sentinel errors of the SQLite store.
var (
	// ErrCorrupt is wrapped by errors SQLite reports as a damaged database
	// (SQLITE_CORRUPT, SQLITE_NOTADB) and by a failed integrity check.
	ErrCorrupt = errors.New("sqlite: database file is damaged")
	// ErrReadOnly is wrapped by the writes of a store opened with
	// OpenReadOnly (and by SQLite's own read-only errors). It matches
	// situate.ErrReadOnly too, so callers that only know the root's
	// sentinel (httpapi, the command line) recognise it.
	ErrReadOnly error = readOnlyError{}
	// ErrFull is wrapped by errors SQLite reports as a full disk
	// (SQLITE_FULL); they match syscall.ENOSPC too.
	ErrFull = errors.New("sqlite: disk or database is full")
)

var (
	_ driver.MetaStore  = (*Store)(nil)
	_ driver.BatchStore = (*Store)(nil)
)

// SQLite primary result codes (modernc.org/sqlite/lib).
const (
	codeReadOnly = 8
	codeCorrupt  = 11
	codeCantOpen = 14
	codeFull     = 13
	codeNotADB   = 26
)

// classify adds the package's sentinel matching err's SQLite result code.
func classify(err error) error {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case codeCorrupt, codeNotADB:
		return fmt.Errorf("%w: %w", err, ErrCorrupt)
	case codeReadOnly:
		return fmt.Errorf("%w: %w", err, ErrReadOnly)
	case codeFull:
		// Also syscall.ENOSPC, which callers that cannot import this
		// package test for.
		return fmt.Errorf("%w: %w (%w)", err, ErrFull, syscall.ENOSPC)
	}
	return err
}

// readOnlyReason explains err, an error opening path for writing, when the
// file or its directory cannot be written (a read-only file system, or no
// permission): SQLite says only "unable to open database file".
func readOnlyReason(path string, err error) error {
	if !cannotOpenShm(err) {
		return err
	}
	ro := func(e error) bool {
		return errors.Is(e, syscall.EROFS) || errors.Is(e, syscall.EACCES) || errors.Is(e, syscall.EPERM)
	}
	f, ferr := os.OpenFile(path, os.O_RDWR, 0)
	if ferr == nil {
		f.Close()
		probe, perr := os.CreateTemp(filepath.Dir(path), ".situate-probe-*")
		if perr == nil {
			probe.Close()
			os.Remove(probe.Name())
			return err
		}
		ferr = perr
	}
	if !ro(ferr) {
		return err
	}
	return fmt.Errorf("%w: the store is read-only (%v): %w", err, ferr, ErrReadOnly)
}

// OpenReadOnly opens the store at path for reading only: it creates,
// migrates and writes nothing, so it works on a read-only file, directory
// or file system, and beside a writer in another process (WAL readers see
// the last commit). A store in WAL mode needs its -shm index, which SQLite
// creates next to the file; when the directory is read-only and no -shm
// exists, the store is opened immutable (SQLite then reads the file as it
// is, which is exact because no -wal holds commits). A -wal file with
// commits that cannot be read for lack of a -shm is an error saying so.
// Writes fail with an error wrapping ErrReadOnly. A store of an older schema
// version is read as it is (migrations only add); a newer one is refused
// with ErrStoreTooNew.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("sqlite open: path is empty: %w", driver.ErrInvalid)
	}
	s := &Store{path: path, readOnly: true}
	if _, err := os.Stat(path); err != nil {
		return nil, s.errorf("open read-only", err)
	}
	err := s.openReadOnly(ctx, false)
	if err != nil && cannotOpenShm(err) {
		wal, werr := os.Stat(path + "-wal")
		if werr == nil && wal.Size() > 0 {
			return nil, fmt.Errorf(
				"%w (the -wal file holds %d bytes of commits and SQLite cannot create the -shm file it needs to read them in a read-only directory; open the store once with write access, or copy it)",
				err, wal.Size())
		}
		err = s.openReadOnly(ctx, true)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// cannotOpenShm reports whether err is SQLite failing to open a WAL
// database's -shm file read-only.
func cannotOpenShm(err error) bool {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == codeCantOpen || c == codeReadOnly
}

func (s *Store) openReadOnly(ctx context.Context, immutable bool) error {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", DefaultBusyTimeout.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	q.Set("mode", "ro")
	if immutable {
		q.Set("immutable", "1")
	}
	q.Set("_txlock", "deferred")
	src := "file:" + uriPath.Replace(s.path) + "?" + q.Encode()
	var err error
	if s.r, err = sql.Open("sqlite", src); err != nil {
		return s.errorf("open read-only", err)
	}
	s.r.SetMaxOpenConns(DefaultReadConns)
	s.r.SetMaxIdleConns(DefaultReadConns)
	var version, appID int
	err = s.r.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version)
	if err == nil {
		err = s.r.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID)
	}
	if err != nil {
		s.r.Close()
		s.r = nil
		return s.errorf("open read-only", err)
	}
	var bad error
	switch {
	case appID != 0 && appID != ApplicationID:
		bad = fmt.Errorf("application_id %#x is not a situate store (%#x): %w", appID, ApplicationID, driver.ErrInvalid)
	case version > SchemaVersion():
		bad = fmt.Errorf("schema version %d, this build knows up to %d: %w", version, SchemaVersion(), driver.ErrStoreTooNew)
	case version == 0:
		bad = fmt.Errorf("no situate schema: %w", driver.ErrInvalid)
	}
	// An older schema is read as it is: migrations only add tables and
	// columns, so what an older store has reads the same; a write (or a
	// writable Open) migrates it.
	if bad != nil {
		s.r.Close()
		s.r = nil
		return s.errorf("open read-only", bad)
	}
	// Writes go through w as in a writable store; on this read-only
	// connection they fail with SQLITE_READONLY (ErrReadOnly).
	if s.w, err = sql.Open("sqlite", src); err != nil {
		s.r.Close()
		return s.errorf("open read-only", err)
	}
	s.w.SetMaxOpenConns(1)
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return err
	}
	return nil
}

// ReadOnly reports whether the store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// IntegrityCheck runs SQLite's PRAGMA integrity_check (quick: PRAGMA
// quick_check, which skips the comparison of indexes with their tables and
// runs in about the time of reading the file) and, unless quick, checks the
// checksum of every document and chunk row; it returns the problems found:
// none when the database is sound. An error that keeps the check
// from running at all (the file is not a database, say) wraps ErrCorrupt
// when SQLite says the file is damaged.
func (s *Store) IntegrityCheck(ctx context.Context, quick bool) ([]string, error) {
	pragma := "integrity_check"
	if quick {
		pragma = "quick_check"
	}
	rows, err := s.r.QueryContext(ctx, "PRAGMA "+pragma)
	if err != nil {
		return nil, s.errorf(pragma, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, s.errorf(pragma, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf(pragma, err)
	}
	rows.Close()
	if !quick && len(problems) == 0 {
		// SQLite's check covers pages and indexes; the row checksums cover
		// the bytes of every document and chunk.
		rp, err := s.verifyRows(ctx, s.r)
		if err != nil {
			return nil, s.errorf("verify rows", err)
		}
		problems = append(problems, rp...)
	}
	return problems, nil
}

// openCheck runs PRAGMA integrity_check on the writer's connection (Open
// runs it before the read pool exists). It costs about what quick_check
// does here (2 to 5 ms per MB) and also compares every index with its table.
func (s *Store) openCheck(ctx context.Context) error {
	rows, err := s.w.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return s.errorf("open: integrity_check", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return s.errorf("open: integrity_check", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return s.errorf("open: integrity_check", err)
	}
	rows.Close()
	if len(problems) == 0 {
		rp, err := s.verifyRows(ctx, s.w)
		if err != nil {
			return s.errorf("open: verify rows", err)
		}
		problems = rp
	}
	return s.problems("open: integrity_check", problems)
}

// problems turns integrity check findings into an error wrapping
// ErrCorrupt that quotes the first few; nil for none.
func (s *Store) problems(op string, problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	shown := problems
	if len(shown) > 3 {
		shown = shown[:3]
	}
	more := ""
	if len(problems) > len(shown) {
		more = fmt.Sprintf(" (and %d more)", len(problems)-len(shown))
	}
	return fmt.Errorf("sqlite %s: %s: %s%s: %w", op, s.path, strings.Join(shown, "; "), more, ErrCorrupt)
}

// CheckIntegrity runs IntegrityCheck and turns problems into an error
// wrapping ErrCorrupt that quotes the first few.
func (s *Store) CheckIntegrity(ctx context.Context, quick bool) error {
	problems, err := s.IntegrityCheck(ctx, quick)
	if err != nil {
		return err
	}
	op := "integrity_check"
	if quick {
		op = "quick_check"
	}
	return s.problems(op, problems)
}

// readOnlyError is ErrReadOnly: its own message, the root's sentinel
// underneath.
type readOnlyError struct{}

func (readOnlyError) Error() string { return "sqlite: store is read-only" }
func (readOnlyError) Unwrap() error { return driver.ErrReadOnly }
