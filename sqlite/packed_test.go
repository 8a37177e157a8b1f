package sqlite_test

import (
	"bytes"
	"compress/flate"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

// TestPackedChunks: chunk texts and contexts are stored compressed (the
// plain columns empty, the packed value smaller than the texts), read back
// exactly by Chunks and ChunksAt; a row written before compression (plain
// columns, no packed value) still reads; a damaged packed value is
// ErrCorrupt for readers and for the integrity check.
func TestPackedChunks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "situate.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	text := strings.Repeat("func (s *Server) Serve(l net.Listener) error { return s.serve(l) }\n", 20)
	rec := situate.DocumentRecord{ID: "a.go", Title: "a.go", Format: situate.FormatCode, Lang: "en", Hash: "h", Version: 1}
	chunks := []situate.StoredChunk{
		{Chunk: situate.Chunk{DocID: "a.go", Index: 0, Start: 0, End: len(text), Text: text, Tokens: 300},
			Context: situate.Context{Text: "Go file a.go, package http: Serve.", Source: "offline"}},
		{Chunk: situate.Chunk{DocID: "a.go", Index: 1, Start: 0, End: 5, Text: "func ", Tokens: 1},
			Context: situate.Context{Text: "", Source: "offline", Flags: []string{"x"}}},
	}
	if err := s.PutDocument(ctx, rec, chunks); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var plain, ctext string
	var packed []byte
	if err := db.QueryRow(`SELECT text, context_text, packed FROM chunks WHERE idx = 0`).Scan(&plain, &ctext, &packed); err != nil {
		t.Fatal(err)
	}
	if plain != "" || ctext != "" || len(packed) == 0 || len(packed) > len(text)/4 {
		t.Fatalf("stored text %d bytes, context %d, packed %d for %d bytes of text", len(plain), len(ctext), len(packed), len(text))
	}
	read := func() ([]situate.StoredChunk, error) { return s.Chunks(ctx, "a.go") }
	got, err := read()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, chunks) {
		t.Fatalf("read back %+v, want %+v", got, chunks)
	}
	at, err := s.ChunksAt(ctx, []situate.ChunkRef{{DocID: "a.go", Index: 0}})
	if err != nil || !reflect.DeepEqual(at[situate.ChunkRef{DocID: "a.go", Index: 0}], chunks[0]) {
		t.Fatalf("ChunksAt: %v %v", at, err)
	}

	if packed[0] != 0xFF {
		t.Fatalf("packed value begins with %#x, want 0xff (zstd)", packed[0])
	}

	// A row packed with DEFLATE, as schema version 4 first wrote them.
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestSpeed)
	fw.Write(binary.AppendUvarint(nil, uint64(len(text))))
	fw.Write([]byte(text + chunks[0].Context.Text))
	fw.Close()
	if _, err := db.Exec(`UPDATE chunks SET text = '', context_text = '', packed = ? WHERE idx = 0`, deflated.Bytes()); err != nil {
		t.Fatal(err)
	}
	if got, err := read(); err != nil || !reflect.DeepEqual(got, chunks) {
		t.Fatalf("row packed with DEFLATE: %v", err)
	}
	if problems, err := s.IntegrityCheck(ctx, false); err != nil || len(problems) != 0 {
		t.Fatalf("integrity check of a row packed with DEFLATE: %v %v", problems, err)
	}

	// A row of schema version 3: plain columns, no packed value.
	if _, err := db.Exec(`UPDATE chunks SET text = ?, context_text = ?, packed = NULL WHERE idx = 0`, text, chunks[0].Context.Text); err != nil {
		t.Fatal(err)
	}
	if got, err := read(); err != nil || !reflect.DeepEqual(got, chunks) {
		t.Fatalf("unpacked row: %v", err)
	}

	// Damage: a flipped byte inside the packed value, and a truncated one,
	// of a zstd and of a DEFLATE value.
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { b[len(b)/2] ^= 0x20; return b },
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { return append([]byte{0xFF}, b[1:len(b)-3]...) },
	} {
		for _, value := range [][]byte{packed, deflated.Bytes()} {
			bad := damage(append([]byte(nil), value...))
			if _, err := db.Exec(`UPDATE chunks SET text = '', context_text = '', packed = ? WHERE idx = 0`, bad); err != nil {
				t.Fatal(err)
			}
			if _, err := read(); !errors.Is(err, sqlite.ErrCorrupt) {
				t.Errorf("damaged packed value: %v; want ErrCorrupt", err)
			}
			if problems, err := s.IntegrityCheck(ctx, false); err != nil || len(problems) == 0 {
				t.Errorf("integrity check of a damaged packed value: %v %v", problems, err)
			}
		}
	}
}
