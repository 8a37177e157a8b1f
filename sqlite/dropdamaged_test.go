package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

// TestDropDamaged tampers with rows behind the store's back (so their
// checksums no longer match): a chunk's heading, a document's title, a
// chunk's document id, a chunk's packed text. Open refuses the store;
// DropDamaged deletes exactly those four documents with all their chunks,
// after which the store opens, passes the full check, and every other
// document reads back as written. A database with a damaged page is left
// as it is.
func TestDropDamaged(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "situate.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	for i := range n {
		rec, chunks := makeDoc(fmt.Sprintf("doc%03d", i), i+1)
		if err := s.PutDocument(ctx, rec, chunks); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE chunks SET heading = 'tampered' WHERE doc_id = 'doc007' AND idx = 1`,
		`UPDATE documents SET title = 'tampered' WHERE id = 'doc011'`,
		`UPDATE chunks SET doc_id = 'zzz' WHERE doc_id = 'doc020' AND idx = 0`,
		`UPDATE chunks SET packed = x'FF00112233' WHERE doc_id = 'doc030' AND idx = 2`,
	} {
		res, err := raw.Exec(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("%s: %d rows", q, n)
		}
	}
	raw.Close()

	if w, err := sqlite.Open(ctx, path); !errors.Is(err, sqlite.ErrCorrupt) {
		if w != nil {
			w.Close()
		}
		t.Fatalf("Open of a store with tampered rows: %v, want ErrCorrupt", err)
	}
	w, err := sqlite.OpenWith(ctx, path, sqlite.Options{SkipOpenCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := w.DropDamaged(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"doc007", "doc011", "doc020", "doc030"}; !slices.Equal(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
	w.Close()

	s, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after DropDamaged: %v", err)
	}
	defer s.Close()
	if problems, err := s.IntegrityCheck(ctx, false); err != nil || len(problems) > 0 {
		t.Fatalf("full check after DropDamaged: %v %q", err, problems)
	}
	recs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n-4 {
		t.Errorf("%d documents left, want %d", len(recs), n-4)
	}
	for i := range n {
		id := fmt.Sprintf("doc%03d", i)
		got, err := s.Chunks(ctx, id)
		if slices.Contains(dropped, id) {
			if err == nil {
				t.Errorf("%s: still has chunks after it was dropped", id)
			}
			continue
		}
		_, want := makeDoc(id, i+1)
		if err != nil || len(got) != len(want) {
			t.Fatalf("%s: %d chunks, %v; want %d", id, len(got), err, len(want))
		}
		for j := range want {
			if got[j].Text != want[j].Text || got[j].Context.Text != want[j].Context.Text || got[j].Heading != want[j].Heading {
				t.Errorf("%s chunk %d reads back as %+v, want %+v", id, j, got[j], want[j])
			}
		}
	}
	if n, err := s.ChunkCount(ctx); err != nil || n != countChunks(recs) {
		t.Errorf("ChunkCount %d (%v), the records say %d", n, err, countChunks(recs))
	}
	s.Close()

	// A damaged page: DropDamaged refuses and writes nothing.
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(nil), orig...)
	at := len(b) / 4096 / 2 * 4096
	for i := at; i < at+4096; i++ {
		b[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err = sqlite.OpenWith(ctx, path, sqlite.Options{SkipOpenCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if dropped, err := w.DropDamaged(ctx); !errors.Is(err, sqlite.ErrCorrupt) {
		t.Errorf("DropDamaged on a damaged page: dropped %q, err %v; want ErrCorrupt", dropped, err)
	}
	w.Close()
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Error("DropDamaged changed a database whose pages are damaged")
	}
}

func countChunks(recs []situate.DocumentRecord) int {
	n := 0
	for _, r := range recs {
		n += r.Chunks
	}
	return n
}
