package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedDatabaseSaidOnce: a read command on a store whose database is
// cut in half fails naming the file once, with what to do; it used to
// print the damage twice, once for the read-write open and once for the
// read-only one it then tried.
func TestDamagedDatabaseSaidOnce(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	for i, text := range []string{"The ferry leaves at noon.", "The lighthouse keeper logs the weather.", "Barges carry grain downriver."} {
		os.WriteFile(filepath.Join(docs, string(rune('a'+i))+".md"), []byte("# Note\n\n"+strings.Repeat(text+" ", 200)+"\n"), 0o644)
	}
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, docs)
	db := filepath.Join(store, "situate.db")
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(db, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"search", "status"} {
		args := []string{cmd, "--store", store}
		if cmd == "search" {
			args = append(args, "ferry")
		}
		code, _, errOut := run(t, dir, args...)
		if code == exitOK || !strings.Contains(errOut, db) || !strings.Contains(errOut, "Restore situate.db from a backup") {
			t.Errorf("%s on a truncated database: exit %d:\n%s", cmd, code, errOut)
		}
		if n := strings.Count(errOut, "database file is damaged"); n != 1 {
			t.Errorf("%s: the damage is reported %d times:\n%s", cmd, n, errOut)
		}
	}
}
