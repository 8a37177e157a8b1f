package glove

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/testskip"
)

// realEmbedder loads the wink vectors from DefaultDir (fetched by
// scripts/fetch-glove.sh), skipping the test when they are absent — or
// failing it when SITUATE_REQUIRE_GLOVE is set (CI that fetched them).
func realEmbedder(t testing.TB, weighting string) *Embedder {
	t.Helper()
	skipWithoutVectors(t)
	e, err := New(Options{Weighting: weighting})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestRealVectors(t *testing.T) {
	start := time.Now()
	e := realEmbedder(t, "")
	t.Logf("loaded %d words x %d in %s", e.t.size(), e.Dim(), time.Since(start))
	if e.t.size() != 341479 || e.Dim() != 100 || e.Name() != "glove:wink-sg-100d" {
		t.Fatalf("got %d words x %d, name %q", e.t.size(), e.Dim(), e.Name())
	}
	// GloVe 6B's first row is "the"; check a value against the file.
	if got := e.t.row(e.t.index["the"])[0]; got != -0.038194 {
		t.Fatalf("the[0] = %v, want -0.038194", got)
	}
	for _, w := range []string{WeightingMean, WeightingSIF} {
		e := realEmbedder(t, w)
		v, err := e.Embed(context.Background(), []string{
			"The cat rested on the carpet.", "The kitten slept on the rug.",
			"The table was in the drawing room.", "How do I parse an HTTP header?",
		}, driver.InputDocument)
		if err != nil {
			t.Fatal(err)
		}
		catKitten, catTable := dot(v[0], v[1]), dot(v[0], v[2])
		t.Logf("%s: cat/kitten %.3f cat/table %.3f cat/http %.3f", w, catKitten, catTable, dot(v[0], v[3]))
		if catKitten <= catTable {
			t.Errorf("%s: cat/kitten %.3f <= cat/table %.3f", w, catKitten, catTable)
		}
	}
}

func skipWithoutVectors(t testing.TB) {
	t.Helper()
	if _, err := resolve(""); err != nil {
		if os.Getenv("SITUATE_REQUIRE_GLOVE") != "" {
			t.Fatalf("SITUATE_REQUIRE_GLOVE is set but the vectors are absent: %v", err)
		}
		testskip.Skipf(t, "GloVe vectors absent (run scripts/fetch-glove.sh)\n%v", err)
	}
}

func BenchmarkLoadCached(b *testing.B) {
	skipWithoutVectors(b)
	file, err := resolve("")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(file + CacheSuffix); err != nil {
		if _, err := readTable(file); err != nil { // writes the cache
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readTable(file); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseWink(b *testing.B) {
	skipWithoutVectors(b)
	file, err := resolve("")
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parseWink(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmbedChunk(b *testing.B) {
	e := realEmbedder(b, WeightingSIF)
	data, err := os.ReadFile(filepath.Join("glove.go"))
	if err != nil {
		b.Fatal(err)
	}
	text := string(data[:2000])
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := e.Embed(context.Background(), []string{text}, driver.InputDocument); err != nil {
			b.Fatal(err)
		}
	}
}

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
