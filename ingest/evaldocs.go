package ingest

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/situate/situate"
	"github.com/situate/situate/eval"
)

// EvalDocuments replaces the documents of an answers dataset
// (eval.LoadAnswers records only those its questions name) with every file
// under dir that Walk indexes with opts, leaving out the queries file
// itself: the other documents compete for the top ranks, as they do in use.
// A file Walk cannot read goes to skip (when set) and is left out. A
// question whose document is not among them could never be answered: that
// is an error wrapping situate.ErrInvalid.
//
// "situate eval --format answers" and the quality gate (bench/quality) both
// build their answers datasets with it.
func EvalDocuments(ctx context.Context, ds *eval.Dataset, dir, queriesPath string, opts Options, skip func(error)) error {
	qabs, _ := filepath.Abs(queriesPath)
	var docs []eval.Doc
	err := Walk(ctx, []string{dir}, opts, func(doc situate.Document, err error) error {
		if err != nil {
			if skip != nil {
				skip(err)
			}
			return nil
		}
		if abs, _ := filepath.Abs(doc.Path); abs == qabs {
			return nil
		}
		docs = append(docs, eval.Doc{ID: doc.ID, Path: doc.Path})
		return nil
	})
	if err != nil {
		return fmt.Errorf("answers: walk %s: %w", dir, err)
	}
	have := make(map[string]bool, len(docs))
	for _, d := range docs {
		have[d.ID] = true
	}
	for _, q := range ds.Queries {
		if !have[q.AnswerDoc] {
			return fmt.Errorf("answers: query %s: its document %s is not indexed (left out by --include, --exclude or an ignore file): %w",
				q.ID, q.AnswerDoc, situate.ErrInvalid)
		}
	}
	ds.Docs = docs
	return nil
}
