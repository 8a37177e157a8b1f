package sqlite

import (
	"bytes"
	"compress/flate"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
)

// Chunk texts and contexts are stored compressed (schema version 4): the
// chunks table's packed column holds DEFLATE (fastest level) of
// uvarint(len(text)) text context, and its text and context_text columns
// are empty. Chunks of source code and prose shrink to about 0.43 of their
// size, which halves the database; reading a search's hits decompresses a
// few kilobytes. Rows written before version 4 have no packed value and
// are read as they are. Row checksums cover the texts themselves, so they
// are checked after decompression.

// migrateV4Packed adds the packed column.
func migrateV4Packed(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx, `ALTER TABLE chunks ADD COLUMN packed BLOB`)
}

// unpackers holds flate readers for reuse (each holds a 32 KiB window).
var unpackers sync.Pool

var packers = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// packChunk compresses a chunk's text and context into one value.
func packChunk(text, context string) []byte {
	var buf bytes.Buffer
	buf.Grow(len(text)/2 + len(context)/2 + 16)
	w := packers.Get().(*flate.Writer)
	w.Reset(&buf)
	var n [binary.MaxVarintLen64]byte
	w.Write(n[:binary.PutUvarint(n[:], uint64(len(text)))])
	io.WriteString(w, text)
	io.WriteString(w, context)
	w.Close()
	packers.Put(w)
	return buf.Bytes()
}

// unpackChunk sets *text and *context from a packed value; a NULL (nil)
// value leaves the columns' own values.
func unpackChunk(packed []byte, text, context *string) error {
	if packed == nil {
		return nil
	}
	src := bytes.NewReader(packed)
	r, _ := unpackers.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReader(src)
	} else if err := r.(flate.Resetter).Reset(src, nil); err != nil {
		return fmt.Errorf("packed text: %w", err)
	}
	var out bytes.Buffer
	out.Grow(3 * len(packed))
	_, err := out.ReadFrom(r)
	unpackers.Put(r)
	b := out.Bytes()
	if err != nil {
		return fmt.Errorf("packed text: %w: %w", err, ErrCorrupt)
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return fmt.Errorf("packed text: bad length: %w", ErrCorrupt)
	}
	*text, *context = string(b[k:k+int(n)]), string(b[k+int(n):])
	return nil
}
