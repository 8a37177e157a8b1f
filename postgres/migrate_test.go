package postgres

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/situate/situate/driver"

	"github.com/jackc/pgx/v5"
)

func schemaVersion(t *testing.T, url string) int {
	t.Helper()
	c, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var v int
	if err := c.QueryRow(t.Context(), `SELECT version FROM schema_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func exec(t *testing.T, url string, q string) {
	t.Helper()
	c, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(t.Context(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// Processes opening one new database at the same moment migrate it once:
// every Open succeeds and the schema ends at the build's version.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	url := NewTestDatabase(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(t.Context(), url)
			if err != nil {
				errs <- err
				return
			}
			s.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if v := schemaVersion(t, url); v != SchemaVersion() {
		t.Errorf("schema version %d, want %d", v, SchemaVersion())
	}
}

// Migrations apply one at a time, each with its version bump: a database at
// version 1 of a two-step history is brought to 2 by the next Open, and the
// data written at version 1 survives.
func TestMigrateStepwise(t *testing.T) {
	url := NewTestDatabase(t)
	s, err := Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetMeta(t.Context(), "k", "kept"); err != nil {
		t.Fatal(err)
	}
	next := append(migrations[:len(migrations):len(migrations)], []string{
		`CREATE TABLE later (x INTEGER NOT NULL)`,
		`INSERT INTO later VALUES (42)`,
	})
	if err := migrateTo(t.Context(), s.pool, s.where, next); err != nil {
		t.Fatal(err)
	}
	if v := schemaVersion(t, url); v != len(next) {
		t.Errorf("schema version %d, want %d", v, len(next))
	}
	var x int
	if err := s.pool.QueryRow(t.Context(), `SELECT x FROM later`).Scan(&x); err != nil || x != 42 {
		t.Errorf("the new migration's table: %d, %v", x, err)
	}
	if v, ok, err := s.Meta(t.Context(), "k"); err != nil || !ok || v != "kept" {
		t.Errorf("data before the migration: %q %v %v", v, ok, err)
	}
	// A failing migration leaves the schema at the last good version.
	bad := append(next[:len(next):len(next)], []string{`CREATE TABLE ok2 (x INT)`, `THIS IS NOT SQL`})
	err = migrateTo(t.Context(), s.pool, s.where, bad)
	if err == nil || !strings.Contains(err.Error(), "statement 2") {
		t.Errorf("a failing migration: %v, want an error naming statement 2", err)
	}
	if v := schemaVersion(t, url); v != len(next) {
		t.Errorf("after a failed migration: schema version %d, want %d", v, len(next))
	}
	var n int
	s.pool.QueryRow(t.Context(), `SELECT count(*) FROM pg_tables WHERE tablename = 'ok2'`).Scan(&n)
	if n != 0 {
		t.Errorf("a failed migration left its first statement's table behind")
	}
}

// A database written by a newer situate is refused, not downgraded.
func TestOpenRefusesNewerSchema(t *testing.T) {
	url := NewTestDatabase(t)
	s, err := Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	exec(t, url, `UPDATE schema_version SET version = version + 1`)
	if _, err := Open(t.Context(), url); !errors.Is(err, driver.ErrStoreTooNew) {
		t.Errorf("Open of a newer schema: %v, want situate.ErrStoreTooNew", err)
	}
}

// A database that holds someone else's tables under situate's names, with no
// schema version, is refused instead of being written into.
func TestOpenRefusesForeignTables(t *testing.T) {
	url := NewTestDatabase(t)
	exec(t, url, `CREATE TABLE documents (id INTEGER)`)
	_, err := Open(t.Context(), url)
	if !errors.Is(err, driver.ErrInvalid) {
		t.Errorf("Open over foreign tables: %v, want situate.ErrInvalid", err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(t.Context(), ""); !errors.Is(err, driver.ErrInvalid) {
		t.Errorf("empty URL: %v", err)
	}
	if _, err := Open(t.Context(), "postgres://user:secret@127.0.0.1:bad/x"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("bad URL: %v (want an error that does not show the password)", err)
	}
	// Nothing listens on port 1: the error names the place, not the password.
	_, err := Open(t.Context(), "postgres://user:secret@127.0.0.1:1/x?connect_timeout=2")
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "127.0.0.1:1/x") {
		t.Errorf("unreachable server: %v (want an error naming 127.0.0.1:1/x without the password)", err)
	}
}
