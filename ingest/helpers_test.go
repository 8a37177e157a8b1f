package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/situate/situate"
)

// fakePDF stands in for ingest/pdf's PDFium extractor in this package's
// tests (the real one is tested in ingest/pdf, including a Walk over the
// corpus). It accepts anything starting with "%PDF-", returns a fixed text
// naming the input size, and a "title" from metadata when asked.
type fakePDF struct{ title string }

func (f fakePDF) ExtractText(ctx context.Context, data []byte) (string, error) {
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return "", errors.New("pdf: damaged or not a PDF")
	}
	return fmt.Sprintf("First line of a %d-byte PDF\n\nsecond page\n", len(data)), nil
}

type fakePDFMeta struct{ fakePDF }

func (f fakePDFMeta) ExtractTextMetadata(ctx context.Context, data []byte) (string, map[string]string, error) {
	text, err := f.ExtractText(ctx, data)
	return text, map[string]string{"title": f.title}, err
}

// collect walks roots and returns documents and errors in order.
func collect(t testing.TB, roots []string, opts Options) (docs []situate.Document, errs []*FileError) {
	t.Helper()
	err := Walk(context.Background(), roots, opts, func(doc situate.Document, err error) error {
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Walk passed a %T, want *FileError: %v", err, err)
			}
			errs = append(errs, fe)
			return nil
		}
		docs = append(docs, doc)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return docs, errs
}

func ids(docs []situate.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.ID)
	}
	return out
}

func errPaths(errs []*FileError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Path)
	}
	return out
}

// squash removes all whitespace, so that a phrase broken over lines by
// a layout still matches.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}
