package pdf_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/situate/situate/ingest/pdf"
)

// FuzzExtractText feeds mutated PDFs to PDFium: no panic, no hang past the
// timeout, UTF-8 output, and every failure is a damaged-input error or a
// timeout.
func FuzzExtractText(f *testing.F) {
	for _, p := range []string{"../testdata/corpus/de/burg-falkenried.pdf", "../testdata/bad/broken.pdf"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF"))
	e := extractor(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := e.ExtractText(context.Background(), data)
		if err != nil {
			if !errors.Is(err, pdf.ErrDamaged) && !errors.Is(err, pdf.ErrEncrypted) && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8: %q", text)
		}
	})
}
