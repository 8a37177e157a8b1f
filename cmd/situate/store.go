package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/postgres"
	"github.com/situate/situate/sqlite"
)

// backingStore is what the commands need of a store: the engine's store
// with its metadata, caches and usage ledger, and the service's job queue
// and keys. The SQLite store in the --store directory and a shared
// PostgreSQL store (--store-url) both are one.
type backingStore interface {
	driver.Store
	driver.MetaStore
	driver.ContextCache
	driver.VectorCache
	driver.UsageRecorder
	driver.JobStore
	driver.KeyStore
}

var (
	_ backingStore = (*sqlite.Store)(nil)
	_ backingStore = (*postgres.Store)(nil)
)

// sharedDir is the directory, inside the --store directory, that holds the
// local indexes of shared stores, one subdirectory per database.
const sharedDir = "shared"

// openBacking opens the configured store: the PostgreSQL database of
// --store-url (shared with other processes; the indexes then live in
// STORE/shared/HOST_PORT_DB and are this process's own, see
// situate.Options.SharedStore), or the SQLite database in the --store
// directory (created when create is set). dir is where the engine keeps
// its indexes.
func openBacking(ctx context.Context, e *env, c *config, create bool) (store backingStore, dir string, shared bool, err error) {
	dir = c.storeDir(e)
	if url := c.str("store-url"); url != "" {
		pg, err := postgres.Open(ctx, url)
		if err != nil {
			return nil, "", false, fmt.Errorf("--store-url (from %s): %w", c.settings["store-url"].origin, err)
		}
		dir = filepath.Join(dir, sharedDir, sharedName(pg.Where()))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			pg.Close()
			return nil, "", false, fmt.Errorf("create index directory %s: %w", dir, err)
		}
		return pg, dir, true, nil
	}
	dbPath := filepath.Join(dir, storeFile)
	if _, err := os.Stat(dbPath); err != nil {
		if !create {
			return nil, "", false, fmt.Errorf("no store at %s (run 'situate index PATH' first, or pass --store): %w", dir, err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", false, fmt.Errorf("create store %s: %w", dir, err)
		}
	}
	s, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return nil, "", false, err
	}
	return s, dir, false, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// sharedName turns a database's host:port/name into a directory name.
func sharedName(where string) string {
	return unsafeName.ReplaceAllString(where, "_")
}

// needsSQLite refuses --store-url (from a flag, the environment or the
// configuration file) for a command that works on the SQLite store only.
func needsSQLite(c *config, what string) error {
	if s := c.settings["store-url"]; s != nil && s.value != "" {
		return usagef("%s works on the SQLite store in --store only; --store-url (from %s) is not supported", what, s.origin)
	}
	return nil
}

// contextStats counts contexts by source and flagged contexts: the SQLite
// store in one query, another store by reading every document's chunks.
func contextStats(ctx context.Context, store backingStore, docs []situate.DocumentRecord) (sqlite.Stats, error) {
	if s, ok := store.(*sqlite.Store); ok {
		return s.Stats(ctx)
	}
	st := sqlite.Stats{ContextsBySource: map[string]int{}}
	for _, d := range docs {
		chunks, err := store.Chunks(ctx, d.ID)
		if err != nil {
			return st, err
		}
		for _, ch := range chunks {
			st.ContextsBySource[ch.Context.Source]++
			if len(ch.Context.Flags) > 0 {
				st.FlaggedContexts++
			}
		}
	}
	return st, nil
}
