package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/situate/situate"
	"github.com/situate/situate/bm25"
	"github.com/situate/situate/embedcache"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/report"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/vector"
	"github.com/situate/situate/wiring"
)

func runCheck(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("check", "",
		"Check the store: SQLite's integrity_check on the database, every BM25 and vector file's checksums,\n"+
			"and that every index holds exactly the database's documents and chunks. Reports each file.\n"+
			"With --repair, rebuilds every damaged or incomplete index from the database (vectors from its\n"+
			"vector cache, or with --embed), and drops the documents whose database rows are damaged so that\n"+
			"the next index reads them again from their sources. Exits 1 when damage remains.")
	c.flags(fs, "store", "store-url", "config", "chunk-size", "chunk-overlap", "contextualizer", "analyzer",
		"bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe")
	c.flags(fs, wiring.DenseSettings...)
	c.flags(fs, wiring.IndexSettings...)
	repair := fs.Bool("repair", false, "rebuild damaged or incomplete indexes from the database")
	tenant := fs.String("tenant", "", "with --store-url: check this tenant of a serve with keys (its schema situate_tenant_NAME and its local indexes)")
	groupFlags(fs, "Shared store (--store-url) and index backend (--index weaviate)", append([]string{"store-url", "tenant"}, wiring.IndexSettings...)...)
	rest, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected arguments %q", rest)
	}
	if c.str("store-url") != "" {
		return checkShared(ctx, e, c, *tenant, *repair)
	}
	if *tenant != "" {
		return usagef("--tenant works with --store-url only (a SQLite tenant's store is STORE/tenants/NAME: pass it as --store)")
	}
	if c.str("index") != "embedded" {
		return usagef("--index %s: situate check with an index backend needs --store-url (the store the backend indexes is shared)", c.str("index"))
	}
	dir := c.storeDir(e)
	dbPath := filepath.Join(dir, storeFile)
	if _, err := os.Stat(dbPath); err != nil {
		return fmt.Errorf("no store at %s: %w", dir, err)
	}
	// A writable open runs quick_check and refuses a damaged database; the
	// read-only one lets integrity_check report what is wrong.
	var store *sqlite.Store
	var dropped []string
	if *repair {
		store, err = sqlite.Open(ctx, dbPath)
		if errors.Is(err, sqlite.ErrCorrupt) {
			// Drop the documents whose rows are damaged; if that fails
			// too, the open's error stands.
			if s, d, derr := sqlite.OpenDroppingDamaged(ctx, dbPath); derr == nil {
				store, dropped, err = s, d, nil
			}
		}
	}
	if !*repair || errors.Is(err, sqlite.ErrCorrupt) {
		store, err = sqlite.OpenReadOnly(ctx, dbPath)
	}
	if err != nil {
		fmt.Fprintf(e.stdout, "%-10s DAMAGED %s\n", "database", err)
		return fmt.Errorf("%s cannot be read: %w", dbPath, err)
	}
	defer store.Close()
	log := warnLogger(e.stderr)
	opts, err := engineOptions(c, e, store, log)
	if err != nil {
		return err
	}
	var rep situate.CheckReport
	if *repair && !store.ReadOnly() {
		if opts.Embedder == nil {
			if name, found, _ := store.Meta(ctx, "engine.embedder"); found && name != "" {
				opts.Embedder = embedcache.CacheOnly(name, store)
			}
		}
		rep, err = situate.Repair(ctx, dir, store, opts)
	} else {
		rep, err = situate.Check(ctx, dir, store, opts)
	}
	if err != nil {
		return err
	}
	report.Check(e.stdout, dbPath, rep)
	if len(dropped) > 0 {
		fmt.Fprintf(e.stdout, "%-10s dropped %d damaged document(s) from the database: %s; 'situate index' reads them again from their sources\n",
			"repaired", len(dropped), strings.Join(quotedNames(dropped), ", "))
	}
	if rep.OK() {
		return nil
	}
	switch {
	case (len(rep.StoreProblems) > 0 || rep.StoreErr != nil) && !*repair:
		return fmt.Errorf("the database %s is damaged: 'situate check --repair --store %s' drops the documents whose rows are damaged (the next 'situate index' reads them again); if it cannot, restore the database from a backup, or index the sources again into a new store (--store)", dbPath, dir)
	case len(rep.StoreProblems) > 0 || rep.StoreErr != nil:
		return fmt.Errorf("the database %s is damaged beyond its rows (SQLite's own structure): the indexes cannot be rebuilt from it; restore it from a backup, or index the sources again into a new store (--store)", dbPath)
	case *repair:
		return fmt.Errorf("damage remains after the repair: %v", rep.RepairErr)
	default:
		return fmt.Errorf("the store needs repair: run 'situate check --repair --store %s'", dir)
	}
}

// checkShared is `situate check --store-url`: the PostgreSQL store's own
// invariants (postgres.Store.IntegrityCheck), then either this machine's
// local indexes of it (STORE/shared/HOST_PORT_DB, or its tenants/NAME) or,
// with --index weaviate, the backend's documents and versions against the
// store. --repair syncs or rebuilds the local indexes, or re-indexes into
// the backend what it lacks, from the store.
func checkShared(ctx context.Context, e *env, c *config, tenant string, repair bool) error {
	store, err := openSharedStore(ctx, c, tenant)
	if err != nil {
		return err
	}
	defer store.Close()
	where := "postgres " + store.Where()
	if tenant != "" {
		where += " (tenant " + tenant + ")"
	}
	chk, err := wiring.CheckShared(ctx, c, e.wiring(), store, tenant, repair, warnLogger(e.stderr))
	if err != nil {
		return err
	}
	rep, arm := chk.Report, chk.Backend
	report.Check(e.stdout, where, rep)
	if arm != nil {
		report.Backend(e.stdout, c.str("index"), c.list("weaviate-url"), *arm)
		switch {
		case !rep.OK():
			return storeDamage(where, rep, repair, "")
		case !arm.OK() && repair:
			return fmt.Errorf("the index backend still differs from the store after the repair: %v", cmp.Or(arm.Err, rep.RepairErr))
		case !arm.OK():
			return fmt.Errorf("the index backend differs from the store: run 'situate check --repair' with the same --store-url and --index flags")
		}
		return nil
	}
	if chk.Dir == "" {
		fmt.Fprintf(e.stdout, "%-10s none on this machine (no process here has searched this store with --store %s)\n", "indexes", c.storeDir(e))
	}
	if rep.OK() {
		return nil
	}
	return storeDamage(where, rep, repair, chk.Dir)
}

// storeDamage is check's error for a report that is not OK over a shared
// store.
func storeDamage(where string, rep situate.CheckReport, repair bool, dir string) error {
	switch {
	case len(rep.StoreProblems) > 0 || rep.StoreErr != nil:
		return fmt.Errorf("the store %s is damaged: the indexes cannot be rebuilt from it; restore the database from a backup", where)
	case repair:
		return fmt.Errorf("damage remains after the repair: %v", rep.RepairErr)
	default:
		return fmt.Errorf("the local indexes in %s differ from the store (a running serve or mcp syncs them every few seconds; 'situate check --repair' with the same flags syncs them now, and rebuilds damaged ones)", dir)
	}
}

// damageHint is what to do about err when it says a store file is damaged,
// the disk is full or the store is read-only; "" otherwise.
func damageHint(err error) string {
	switch {
	case errors.Is(err, sqlite.ErrCorrupt):
		return "The database is damaged: 'situate check' lists what it found. If only documents' rows are damaged, 'situate check --repair' drops those documents and the next 'situate index' reads them again from their sources. Restore situate.db from a backup, or index the sources again into a new store (--store), if SQLite's own pages are damaged.\n"
	case errors.Is(err, bm25.ErrCorrupt) || errors.Is(err, vector.ErrCorrupt):
		return "An index file is damaged: 'situate check --repair' rebuilds the indexes from the database.\n"
	case errors.Is(err, sqlite.ErrFull) || errors.Is(err, syscall.ENOSPC):
		return "The disk is full: free some space and run the command again; the store keeps its last commit.\n"
	case errors.Is(err, sqlite.ErrReadOnly) || errors.Is(err, syscall.EROFS):
		return "The store is read-only and this command writes to it; search, status, show and check work on it.\n"
	case errors.Is(err, situate.ErrLocked) && strings.Contains(err.Error(), " serve"):
		// A running server holds the store for as long as it runs.
		return "A running 'situate serve' holds this store: add or change documents through its API (PUT /v1/documents/ID, or the web page), or stop it and run the command again.\n"
	case errors.Is(err, bm25.ErrLocked) || errors.Is(err, vector.ErrLocked) || errors.Is(err, situate.ErrLocked):
		return "Another situate process is writing to this store; wait for it to finish.\n"
	}
	return ""
}

// quotedNames quotes ids as ls and search print them (ingest.QuoteName).
func quotedNames(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = ingest.QuoteName(id)
	}
	return out
}
