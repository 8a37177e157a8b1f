package sqlite

import (
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
