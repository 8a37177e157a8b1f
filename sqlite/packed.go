package sqlite

import (
	"bytes"
	"compress/flate"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Chunk texts and contexts are stored compressed (schema version 4): the
// chunks table's packed column holds uvarint(len(text)) text context,
// compressed, and its text and context_text columns are empty. Chunks of
// source code and prose shrink to about 0.45 of their size, which halves
// the database; reading a search's hits decompresses a few kilobytes. Rows
// written before version 4 have no packed value and are read as they are.
// Row checksums cover the texts themselves, so they are checked after
// decompression.
//
// A value is the byte packZstd and a zstd frame (fastest level, no frame
// checksum: the row checksum covers the text). The first version-4 values
// were raw DEFLATE streams (fastest level) and are still read: 0xFF has the
// low three bits of DEFLATE's reserved block type, so no DEFLATE stream
// begins with it. DEFLATE built Huffman tables for every small chunk, on
// the one goroutine that commits an index run; zstd's fastest level packs
// the same chunks in well under half the CPU to about the same size
// (sqlite/bench/pack.txt) and unpacks faster.

// packZstd is the first byte of a value packed with zstd.
const packZstd = 0xFF

// zstdEncoder and zstdDecoder are shared: EncodeAll and DecodeAll are safe
// for concurrent use.
var (
	zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false),
			zstd.WithEncoderConcurrency(max(2, runtime.GOMAXPROCS(0))), zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(1<<17))
		if err != nil {
			panic("sqlite: zstd encoder: " + err.Error())
		}
		return e
	})
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		// A damaged frame cannot claim more than maxUnpacked bytes.
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(max(4, runtime.GOMAXPROCS(0))),
			zstd.WithDecoderMaxMemory(maxUnpacked), zstd.WithDecoderLowmem(true))
		if err != nil {
			panic("sqlite: zstd decoder: " + err.Error())
		}
		return d
	})
)

// maxUnpacked bounds a packed chunk's size once unpacked.
const maxUnpacked = 256 << 20

// migrateV4Packed adds the packed column.
func migrateV4Packed(ctx context.Context, tx *sql.Tx) error {
	return execAll(ctx, tx, `ALTER TABLE chunks ADD COLUMN packed BLOB`)
}

// unpackers holds flate readers for reuse (each holds a 32 KiB window).
var unpackers sync.Pool

// packChunk compresses a chunk's text and context into one value.
func packChunk(text, context string) []byte {
	var n [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(len(text)))
	src := make([]byte, 0, k+len(text)+len(context))
	src = append(append(append(src, n[:k]...), text...), context...)
	out := make([]byte, 1, 1+len(src)/2+32)
	out[0] = packZstd
	return zstdEncoder().EncodeAll(src, out)
}

// unpackChunk sets *text and *context from a packed value; a NULL (nil)
// value leaves the columns' own values.
func unpackChunk(packed []byte, text, context *string) error {
	if packed == nil {
		return nil
	}
	if len(packed) > 0 && packed[0] == packZstd {
		b, err := zstdDecoder().DecodeAll(packed[1:], nil)
		if err != nil {
			return fmt.Errorf("packed text: %w: %w", err, ErrCorrupt)
		}
		return splitUnpacked(b, text, context)
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
	return splitUnpacked(b, text, context)
}

// splitUnpacked sets *text and *context from an unpacked value.
func splitUnpacked(b []byte, text, context *string) error {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return fmt.Errorf("packed text: bad length: %w", ErrCorrupt)
	}
	*text, *context = string(b[k:k+int(n)]), string(b[k+int(n):])
	return nil
}
