package wiring

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
)

// ReadDocuments reads documents from paths as an index run does: files
// and directories through ingest.Walk (with the include, exclude and
// max-file-size settings; the --store directory is left out), JSONL files,
// or stdin ('-', as document stdinID). A file that cannot be read is
// skipped: skip hears of it.
func ReadDocuments(ctx context.Context, s Settings, env Env, paths []string, stdin io.Reader, stdinID string, skip func(error)) ([]situate.Document, error) {
	maxSize, err := Int(s, "max-file-size")
	if err != nil {
		return nil, err
	}
	pdfx := pdf.New(pdf.Options{})
	defer pdfx.Close() // releases PDFium's WebAssembly runtime, if a PDF started it
	opts := ingest.Options{Include: List(s, "include"), Exclude: List(s, "exclude"),
		MaxFileSize: int64(maxSize), PDF: pdfx}
	if err := opts.Validate(); err != nil {
		return nil, UsageError{err}
	}
	var docs []situate.Document
	collect := func(doc situate.Document, err error) error {
		if err != nil {
			var fe *ingest.FileError
			if errors.As(err, &fe) {
				skip(err)
				return nil
			}
			return err
		}
		docs = append(docs, doc)
		return nil
	}
	storeDir := StoreDir(s, env)
	for _, p := range paths {
		switch {
		case p == "-":
			doc, err := ingest.ParseReader(ctx, stdin, stdinID, stdinID, opts)
			if err := collect(doc, err); err != nil {
				return nil, err
			}
		case strings.HasSuffix(strings.ToLower(p), ".jsonl"):
			f, err := os.Open(p)
			if err != nil {
				skip(&ingest.FileError{Op: "open", Path: p, Err: err})
				continue
			}
			err = ingest.JSONL(ctx, f, p, collect)
			f.Close()
			if err != nil {
				return nil, err
			}
		default:
			if abs, _ := filepath.Abs(p); abs == storeDir {
				continue
			}
			if err := ingest.Walk(ctx, []string{p}, opts, collect); err != nil {
				return nil, err
			}
		}
	}
	return docs, nil
}

// StoredDocuments re-reads the documents of a store from the files they
// were indexed from (the store keeps chunks, not whole documents); a
// document whose file is gone is noted and left out.
func StoredDocuments(ctx context.Context, store driver.Store, note func(format string, args ...any)) ([]situate.Document, error) {
	recs, err := store.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("generate: list documents: %w", err)
	}
	pdfx := pdf.New(pdf.Options{})
	defer pdfx.Close()
	var docs []situate.Document
	for _, r := range recs {
		if r.Path == "" {
			note("skip %s: the store does not know its file", r.ID)
			continue
		}
		d, err := ingest.ParseFile(ctx, r.Path, r.ID, ingest.Options{PDF: pdfx})
		if err != nil {
			note("skip %s: %v", r.ID, err)
			continue
		}
		if r.Lang != "" {
			d.Lang = r.Lang
		}
		docs = append(docs, d)
	}
	return docs, nil
}
