package wiring

import (
	"context"
	"log/slog"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/sqlite"
)

// Regenerated is what Regenerate did: Read documents were read back as
// they were indexed and put again, Failed of them could not be.
type Regenerated struct {
	Read, Failed int
}

// Regenerate re-contextualizes the documents ids of the SQLite store in
// the --store directory with the LLM the settings name: contexts that
// carry flags are asked again (their cache entries are bypassed), clean
// ones come from the cache, and the new version replaces the old one in
// the store and the index (the old one stays searchable until then). Each
// document is read back from the file it was indexed from and must be what
// was indexed; recs are the store's records by id. log takes the
// engine's warnings; note hears of each document skipped, failed or
// regenerated.
func Regenerate(ctx context.Context, s Settings, env Env, store *sqlite.Store, recs map[string]situate.DocumentRecord, ids []string,
	log *slog.Logger, note func(format string, args ...any)) (Regenerated, error) {
	var res Regenerated
	maxSize, err := Int(s, "max-file-size")
	if err != nil {
		return res, err
	}
	models, err := NewLLM(s, env)
	if err != nil {
		return res, err
	}
	o, err := LLMOptions(s)
	if err != nil {
		return res, err
	}
	o.Cache, o.Usage = skipFlagged{store}, store
	if len(models) > 1 {
		o.Replicas = models[1:]
	}
	ctxz, err := llm.New(models[0], o)
	if err != nil {
		return res, UsageError{err}
	}
	eo, err := EngineOptions(s, env, store, store, log)
	if err == nil {
		err = WithBackend(ctx, s, env, &eo, "", false)
	}
	if err != nil {
		return res, err
	}
	if eo.Contextualizer == nil || eo.Contextualizer.Name() != ctxz.Name() {
		return res, usagef("--regenerate: the contextualizer must be the LLM (--llm %s)", s.Value("llm"))
	}
	eo.Contextualizer = ctxz
	eng, err := situate.Open(ctx, StoreDir(s, env), store, eo)
	if err != nil {
		return res, err
	}
	defer eng.Close()

	pdfx := pdf.New(pdf.Options{})
	defer pdfx.Close() // releases PDFium's WebAssembly runtime, if a PDF started it
	ingestOpts := ingest.Options{MaxFileSize: int64(maxSize), PDF: pdfx}
	var todo []situate.Document
	var stale []string
	for _, id := range ids {
		rec := recs[id]
		if rec.Path == "" {
			note("skip %s: indexed without a source file (stdin or JSONL); re-index it with the LLM instead", id)
			continue
		}
		doc, err := ingest.ParseFile(ctx, rec.Path, rec.ID, ingestOpts)
		if err != nil {
			note("skip %s: %v", id, err)
			continue
		}
		if !eng.Indexed(doc) {
			doc.Title, doc.Metadata, doc.Access = rec.Title, rec.Metadata, rec.Access
		}
		if !eng.Indexed(doc) {
			note("skip %s: %s changed since it was indexed; run 'situate index' first", id, rec.Path)
			continue
		}
		todo = append(todo, doc)
		stale = append(stale, doc.ID)
	}
	res.Read = len(todo)
	if len(todo) == 0 {
		return res, nil
	}
	// The old version stays searchable until the new one is committed.
	if err := eng.MarkStale(ctx, stale...); err != nil {
		return res, err
	}
	for _, doc := range todo {
		if _, err := eng.Put(ctx, doc); err != nil {
			res.Failed++
			note("fail %s: %v", doc.ID, err)
			continue
		}
		chunks, err := eng.Chunks(ctx, doc.ID)
		if err != nil {
			return res, err
		}
		still := 0
		for _, ch := range chunks {
			if len(ch.Context.Flags) > 0 {
				still++
			}
		}
		rec, _ := eng.Document(doc.ID)
		note("regenerated %s: version %d, %d chunks, %d still flagged", doc.ID, rec.Version, len(chunks), still)
	}
	return res, nil
}

// skipFlagged is the store's context cache with flagged entries treated as
// missing, so they are asked again; the new answers replace them.
type skipFlagged struct{ *sqlite.Store }

func (s skipFlagged) CachedContext(ctx context.Context, key string) (situate.Context, bool, error) {
	x, ok, err := s.Store.CachedContext(ctx, key)
	if err != nil || !ok || len(x.Flags) > 0 {
		return situate.Context{}, false, err
	}
	return x, true, nil
}
