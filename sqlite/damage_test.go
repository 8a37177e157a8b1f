package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/situate/situate/sqlite"
)

// TestDamagedPageDetected overwrites one 4 KB page in the middle of the
// database with random bytes (at several places, one at a time): Open
// refuses the store with an error wrapping ErrCorrupt that quotes SQLite's
// finding, and the full integrity check lists the damage.
func TestDamagedPageDetected(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "situate.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		rec, chunks := makeDoc(fmt.Sprintf("doc%03d", i), i+1)
		if err := s.PutDocument(ctx, rec, chunks); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	pages := len(orig) / page
	if pages < 20 {
		t.Fatalf("database of %d pages is too small for the test", pages)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, at := range []int{pages / 4, pages / 2, 3 * pages / 4, pages - 2} {
		t.Run(fmt.Sprint("page=", at), func(t *testing.T) {
			b := append([]byte(nil), orig...)
			for i := at * page; i < (at+1)*page; i++ {
				b[i] = byte(rng.Uint32())
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(path, orig, 0o644)
			w, err := sqlite.Open(ctx, path)
			if err == nil {
				w.Close()
				t.Fatalf("Open accepted a database with page %d of %d overwritten", at, pages)
			}
			if !errors.Is(err, sqlite.ErrCorrupt) {
				t.Fatalf("Open: %v; want ErrCorrupt", err)
			}
			t.Log(err)
			r, err := sqlite.OpenReadOnly(ctx, path)
			if err != nil {
				if !errors.Is(err, sqlite.ErrCorrupt) {
					t.Fatalf("OpenReadOnly: %v", err)
				}
				return
			}
			defer r.Close()
			if err := r.CheckIntegrity(ctx, false); !errors.Is(err, sqlite.ErrCorrupt) {
				t.Fatalf("integrity check of a damaged database: %v", err)
			}
		})
	}
	// Truncated in the middle of a page, and not a database at all.
	for name, b := range map[string][]byte{
		"truncated": orig[:len(orig)/2+100],
		"garbage":   []byte("this is not a database, just some text that is long enough to look like a header............................................................................................"),
	} {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(path, b, 0o644)
			defer os.WriteFile(path, orig, 0o644)
			w, err := sqlite.Open(ctx, path)
			if err == nil {
				w.Close()
				t.Fatal("Open accepted it")
			}
			if !errors.Is(err, sqlite.ErrCorrupt) {
				t.Fatalf("Open: %v; want ErrCorrupt", err)
			}
			t.Log(err)
		})
	}
}

// TestFlippedRowByteDetected flips one byte inside a chunk's text and one
// inside a document's title, where SQLite's own checks see nothing: the
// row checksums make readers fail with ErrCorrupt naming the row, and a
// writer's Open refuses the store.
func TestFlippedRowByteDetected(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "situate.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		rec, chunks := makeDoc(fmt.Sprintf("doc%03d", i), i+1)
		if err := s.PutDocument(ctx, rec, chunks); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	orig, _ := os.ReadFile(path)
	for _, tc := range []struct{ needle, doc string }{
		{"ctx doc017 v18", "doc017"}, // a chunk's context text
		{"Title doc031", "doc031"},   // a document's title
	} {
		t.Run(tc.needle, func(t *testing.T) {
			// Every copy: one is the live row, others may be left-over
			// bytes in a page's free space (harmless, and unchecked).
			b := append([]byte(nil), orig...)
			n := 0
			for at := bytes.Index(b, []byte(tc.needle)); at >= 0; at = bytes.Index(b, []byte(tc.needle)) {
				b[at+2] ^= 0x01 // "ctx" -> "cux", "Title" -> "Tiule": valid UTF-8, same length
				n++
			}
			if n == 0 {
				t.Fatalf("%q not found in the file", tc.needle)
			}
			os.WriteFile(path, b, 0o644)
			defer os.WriteFile(path, orig, 0o644)
			if w, err := sqlite.Open(ctx, path); !errors.Is(err, sqlite.ErrCorrupt) {
				if err == nil {
					w.Close()
				}
				t.Fatalf("Open with a flipped byte in a row: %v; want ErrCorrupt", err)
			} else {
				t.Log(err)
			}
			r, err := sqlite.OpenReadOnly(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, derr := r.Documents(ctx)
			_, cerr := r.Chunks(ctx, tc.doc)
			if !errors.Is(derr, sqlite.ErrCorrupt) && !errors.Is(cerr, sqlite.ErrCorrupt) {
				t.Fatalf("reading the damaged row: %v / %v; want ErrCorrupt", derr, cerr)
			}
			if problems, err := r.IntegrityCheck(ctx, false); err != nil || len(problems) == 0 {
				t.Fatalf("integrity check: %v %v", problems, err)
			}
		})
	}
}
