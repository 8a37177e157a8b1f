package vector

import (
	"math/rand/v2"
	"testing"
)

// TestPopcountsAVX512MatchesGo compares the assembly kernel with the Go
// loop on every code length up to 3 blocks (masks included).
func TestPopcountsAVX512MatchesGo(t *testing.T) {
	if !hasSignDotsAVX512 {
		t.Skip("this CPU has no AVX-512 VPOPCNTQ")
	}
	r := rand.New(rand.NewPCG(5, 5))
	for dim := 1; dim <= 24*64; dim += 37 {
		words := wordsFor(dim)
		qp := newQueryPlanes(gaussian(r, dim), words)
		const rows = 13
		codes := make([]uint64, rows*words)
		for i := range codes {
			codes[i] = r.Uint64()
		}
		got := make([]uint64, rows)
		qp.popcounts(codes, got)
		hasSignDotsAVX512 = false
		want := make([]uint64, rows)
		qp.popcounts(codes, want)
		hasSignDotsAVX512 = true
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("dim %d row %d: assembly %#x, Go %#x", dim, i, got[i], want[i])
			}
		}
	}
}

func BenchmarkPopcounts(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	qp := newQueryPlanes(gaussian(r, 1024), 16)
	codes := make([]uint64, 16*4096)
	for i := range codes {
		codes[i] = r.Uint64()
	}
	out := make([]uint64, 4096)
	for _, asm := range []bool{false, true} {
		if asm && !hasSignDotsAVX512 {
			continue
		}
		name := map[bool]string{false: "go", true: "avx512"}[asm]
		b.Run(name, func(b *testing.B) {
			save := hasSignDotsAVX512
			hasSignDotsAVX512 = asm
			defer func() { hasSignDotsAVX512 = save }()
			for b.Loop() {
				qp.popcounts(codes, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/row")
		})
	}
}
