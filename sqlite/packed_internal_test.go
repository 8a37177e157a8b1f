package sqlite

import (
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
