package sqlite

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"strings"
	"testing"
)

func BenchmarkUnpackChunk(b *testing.B) {
	text := strings.Repeat("func (s *Server) Serve(l net.Listener) error { return s.serve(l) }\n", 12)
	packed := packChunk(text, "Go file server.go, package http.")
	b.ReportAllocs()
	for b.Loop() {
		var t, c string
		if err := unpackChunk(packed, &t, &c); err != nil || t != text {
			b.Fatal(err)
		}
	}
}

// BenchmarkPackChunk packs chunk-sized pieces of this package's source
// with their context.
func BenchmarkPackChunk(b *testing.B) {
	src, err := os.ReadFile("store.go")
	if err != nil {
		b.Fatal(err)
	}
	var chunks []string
	for s := string(src); len(s) > 0; {
		n := min(len(s), 900)
		chunks = append(chunks, s[:n])
		s = s[n:]
	}
	b.ReportAllocs()
	in, out := 0, 0
	for b.Loop() {
		for _, c := range chunks {
			in += len(c)
			out += len(packChunk(c, "Go file sqlite/store.go, package sqlite: PutDocument."))
		}
	}
	b.SetBytes(int64(len(src)))
	b.ReportMetric(float64(out)/float64(in), "ratio")
}

// TestRowSumIsTheChecksumOfTheEncoding: rowSum, which runs the CRC piece by
// piece, equals the CRC-32C of the whole encoding (each string prefixed
// with its length as a uvarint, each integer as 8 little-endian bytes), as
// rows written by earlier builds carry it.
func TestRowSumIsTheChecksumOfTheEncoding(t *testing.T) {
	rows := [][]any{
		{},
		{"", 0, int64(0)},
		{"doc.md", 3, 17, 42, "chunk text with ümlauts and 中文", "H1 > H2", 12, "context", "offline", "[]"},
		{strings.Repeat("x", 300), int64(-1), -7, "a"},
	}
	for i, values := range rows {
		var b []byte
		for _, v := range values {
			switch x := v.(type) {
			case string:
				b = binary.AppendUvarint(b, uint64(len(x)))
				b = append(b, x...)
			case int:
				b = binary.LittleEndian.AppendUint64(b, uint64(x))
			case int64:
				b = binary.LittleEndian.AppendUint64(b, uint64(x))
			}
		}
		if got, want := rowSum(values...), int64(crc32.Checksum(b, castagnoli)); got != want {
			t.Errorf("row %d: rowSum %d, want %d", i, got, want)
		}
	}
}
