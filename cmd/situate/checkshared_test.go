package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/situate/situate/postgres"
)

// `situate check --store-url`: the PostgreSQL store's own invariants and
// this machine's local indexes of it. Local indexes that lag the store
// (another machine indexed since) and a damaged index file are reported
// and repaired with --repair; a store whose record counts chunks it does
// not hold is reported as damaged; a machine with no local indexes checks
// the store alone.
func TestCheckSharedStore(t *testing.T) {
	pg := startPostgres(t)
	ctx := context.Background()
	db, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	copyTree(t, filepath.Join(repoRoot(t), "examples", "corpus"), docs)
	mustRun(t, dir, "index", "--store", "a", "--store-url", db, docs)
	out, _ := mustRun(t, dir, "check", "--store", "a", "--store-url", db)
	if !strings.Contains(out, "database   ok postgres") || !strings.Contains(out, "bm25       ok") {
		t.Fatalf("check of a sound shared store:\n%s", out)
	}

	// Another machine (store directory b) adds a document: a's indexes lag.
	os.WriteFile(filepath.Join(docs, "en", "late.md"), []byte("# Late\n\nThe late ferry waits for the tide.\n"), 0o644)
	mustRun(t, dir, "index", "--store", "b", "--store-url", db, docs)
	code, out, errOut := run(t, dir, "check", "--store", "a", "--store-url", db)
	if code == exitOK || !strings.Contains(out, `"en/late.md"`) || !strings.Contains(errOut, "--repair") {
		t.Errorf("check of lagging local indexes: exit %d\n%s%s", code, out, errOut)
	}
	out, _ = mustRun(t, dir, "check", "--repair", "--store", "a", "--store-url", db)
	if !strings.Contains(out, "repaired") || strings.Contains(out, "missing") {
		t.Errorf("check --repair of lagging indexes:\n%s", out)
	}

	// A damaged index file.
	shared, _ := filepath.Glob(filepath.Join(dir, "a", sharedDir, "*", "bm25", "*"))
	var damaged string
	for _, f := range shared {
		if st, err := os.Stat(f); err == nil && !st.IsDir() && st.Size() > 64 && !strings.HasSuffix(f, "LOCK") {
			damaged = f
		}
	}
	if damaged == "" {
		t.Fatalf("no index file to damage among %v", shared)
	}
	b, _ := os.ReadFile(damaged)
	b[len(b)/2] ^= 0xff
	os.WriteFile(damaged, b, 0o644)
	if code, out, _ := run(t, dir, "check", "--store", "a", "--store-url", db); code == exitOK || !strings.Contains(out, "DAMAGED") {
		t.Errorf("check of a damaged local index: exit %d\n%s", code, out)
	}
	mustRun(t, dir, "check", "--repair", "--store", "a", "--store-url", db)
	mustRun(t, dir, "check", "--store", "a", "--store-url", db)
	res := search(t, dir, "a", 3, "late ferry tide", "--store-url", db)
	if len(res.Results) == 0 || res.Results[0].Doc != "en/late.md" {
		t.Errorf("search after the repair: %+v", res.Results)
	}

	// A machine that never searched the store checks the store alone.
	for _, args := range [][]string{{"check"}, {"check", "--repair"}} {
		out, _ = mustRun(t, dir, append(args, "--store", "fresh", "--store-url", db)...)
		if !strings.Contains(out, "none on this machine") {
			t.Errorf("%s without local indexes:\n%s", args, out)
		}
	}

	// The store itself damaged: a record counts a chunk the store lacks.
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM chunks WHERE doc_id = $1 AND idx = 0`, []byte("en/late.md")); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	code, out, errOut = run(t, dir, "check", "--store", "a", "--store-url", db)
	if code == exitOK || !strings.Contains(out, `document "en/late.md": record says 1 chunks, found 0`) || !strings.Contains(errOut, "is damaged") {
		t.Errorf("check of a damaged store: exit %d\n%s%s", code, out, errOut)
	}
	s, err := postgres.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if problems, err := s.IntegrityCheck(ctx, true); err != nil || len(problems) != 1 {
		t.Errorf("IntegrityCheck: %q %v", problems, err)
	}

	// Wrong uses say what is wrong.
	if code, _, errOut := run(t, dir, "check", "--store", "a", "--tenant", "x"); code != exitUsage || !strings.Contains(errOut, "--tenant works with --store-url only") {
		t.Errorf("check --tenant without --store-url: exit %d %s", code, errOut)
	}
	if code, _, errOut := run(t, dir, "check", "--store", "a", "--index", "weaviate"); code != exitUsage || !strings.Contains(errOut, "needs --store-url") {
		t.Errorf("check --index weaviate on SQLite: exit %d %s", code, errOut)
	}
}
