package pdf_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/situate/situate/ingest/pdf"
)

// BenchmarkInit measures PDFium start-up: cold compiles the WebAssembly
// module into an empty cache directory, cached loads the compiled code from
// a directory filled by a previous run (what every later process sees).
func BenchmarkInit(b *testing.B) {
	b.Run("cache=cold", func(b *testing.B) {
		for b.Loop() {
			e := pdf.New(pdf.Options{CacheDir: b.TempDir()})
			if err := e.Init(context.Background()); err != nil {
				b.Fatal(err)
			}
			e.Close()
		}
	})
	b.Run("cache=warm", func(b *testing.B) {
		dir := b.TempDir()
		warm := pdf.New(pdf.Options{CacheDir: dir})
		if err := warm.Init(context.Background()); err != nil {
			b.Fatal(err)
		}
		warm.Close()
		for b.Loop() {
			e := pdf.New(pdf.Options{CacheDir: dir})
			if err := e.Init(context.Background()); err != nil {
				b.Fatal(err)
			}
			e.Close()
		}
	})
}

func BenchmarkExtract(b *testing.B) {
	e := extractor(b)
	for _, n := range []int{1, 100} {
		data := manyPages(b, n)
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := e.ExtractText(context.Background(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	zh := read(b, "../testdata/corpus/zh/yunxi-chayuan.pdf")
	b.Run("fixture=zh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.ExtractText(context.Background(), zh); err != nil {
				b.Fatal(err)
			}
		}
	})
}
