package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/sqlite"
)

// readOnlyDir makes a directory, lets fill write into it, then makes it
// read-only for real: root ignores permission bits, so as root the
// directory is a tmpfs remounted read-only (skipped where mount is not
// allowed); otherwise its permissions are removed.
func readOnlyDir(t *testing.T, fill func(dir string)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		fill(dir)
		if err := exec.Command("chmod", "-R", "a-w", dir).Run(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { exec.Command("chmod", "-R", "u+w", dir).Run() })
		return dir
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", dir).CombinedOutput(); err != nil {
		if os.Getenv("SITUATE_REQUIRE_ROFS") == "1" {
			t.Fatalf("mount tmpfs: %v: %s", err, out)
		}
		t.Skipf("running as root and cannot mount a tmpfs to make a read-only directory: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	fill(dir)
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v: %s", err, out)
	}
	if f, err := os.Create(filepath.Join(dir, "probe")); err == nil {
		f.Close()
		t.Fatal("directory is still writable")
	}
	return dir
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenReadOnlyOnReadOnlyFS reads a store on a read-only file system:
// cleanly closed (no -wal, no -shm: opened immutable), and copied while a
// writer had it open (-wal and -shm present: read through them, the last
// commit included); a -wal without its -shm is refused with a reason.
func TestOpenReadOnlyOnReadOnlyFS(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		files    []string // copied from a store whose writer is still open
		wantErr  string
		wantDocs int
		closeSrc bool
	}{
		{name: "closed store", closeSrc: true, files: []string{""}, wantDocs: 3},
		{name: "with -wal and -shm", files: []string{"", "-wal", "-shm"}, wantDocs: 3},
		{name: "-wal without -shm", files: []string{"", "-wal"}, wantErr: "-wal file holds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "situate.db")
			w, err := sqlite.Open(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for i, id := range []string{"a", "b", "c"} {
				rec, chunks := makeDoc(id, i+1)
				if err := w.PutDocument(ctx, rec, chunks); err != nil {
					t.Fatal(err)
				}
			}
			if tc.closeSrc {
				w.Close()
			}
			dir := readOnlyDir(t, func(dir string) {
				for _, suffix := range tc.files {
					copyFile(t, src+suffix, filepath.Join(dir, "situate.db"+suffix))
				}
			})
			s, err := sqlite.OpenReadOnly(ctx, filepath.Join(dir, "situate.db"))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("OpenReadOnly: %v, want an error saying %q", err, tc.wantErr)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatalf("OpenReadOnly on a read-only file system: %v", err)
			}
			defer s.Close()
			docs, err := s.Documents(ctx)
			if err != nil || len(docs) != tc.wantDocs {
				t.Fatalf("Documents: %d, %v; want %d", len(docs), err, tc.wantDocs)
			}
			chunks, err := s.Chunks(ctx, "c")
			if err != nil || len(chunks) != docs[2].Chunks {
				t.Fatalf("Chunks: %d, %v", len(chunks), err)
			}
			if err := s.CheckIntegrity(ctx, false); err != nil {
				t.Fatalf("integrity check of a read-only store: %v", err)
			}
			rec, ch := makeDoc("d", 1)
			err = s.PutDocument(ctx, rec, ch)
			if !errors.Is(err, sqlite.ErrReadOnly) {
				t.Fatalf("write to a read-only store: %v, want ErrReadOnly", err)
			}
			if err := s.SetMeta(ctx, "k", "v"); !errors.Is(err, sqlite.ErrReadOnly) {
				t.Fatalf("SetMeta on a read-only store: %v, want ErrReadOnly", err)
			}
		})
	}
}

// TestOpenReadOnlyBesideWriter: a read-only store sees the writer's commits
// as they land and never blocks it.
func TestOpenReadOnlyBesideWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "situate.db")
	w, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec, chunks := makeDoc("a", 1)
	if err := w.PutDocument(ctx, rec, chunks); err != nil {
		t.Fatal(err)
	}
	r, err := sqlite.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for v := 2; v < 30; v++ {
		rec, chunks := makeDoc("a", v)
		if err := w.PutDocument(ctx, rec, chunks); err != nil {
			t.Fatalf("writer beside a reader: %v", err)
		}
		got, err := r.Chunks(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(chunks) {
			t.Fatalf("reader sees %d chunks of version %d, want %d", len(got), v, len(chunks))
		}
	}
}

// TestOpenReadOnlyOlderSchema reads a store of an older schema version as
// it is (a search after an upgrade must not need a writer first).
func TestOpenReadOnlyOlderSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "situate.db")
	w, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rec, chunks := makeDoc("a", 1)
	if err := w.PutDocument(ctx, rec, chunks); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	r, err := sqlite.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("read-only open of a version 1 store: %v", err)
	}
	defer r.Close()
	if docs, err := r.Documents(ctx); err != nil || len(docs) != 1 {
		t.Fatalf("Documents: %v %v", docs, err)
	}
}
