package situate

import (
	"context"
	"fmt"
	"strings"
)

// staleMark is appended to a document record's hash to make the engine
// re-process the document; a run killed before the new version is
// committed leaves it stale, and the next Index re-processes it.
const staleMark = "~regenerate"

// prechunkedMark starts the processing part of the hash of documents
// indexed with PutChunks: their chunks and contexts were given, so no
// setting makes them stale.
const prechunkedMark = "prechunked-"

// MarkStale marks indexed documents for re-situating: the next Index or Put
// of each re-chunks and re-contextualizes it even though its content is
// unchanged (after a prompt or model change, or for contexts whose calls
// failed). Until then the document stays searchable as it is. The mark is
// kept in the store, so it survives a restart.
func (e *Engine) MarkStale(ctx context.Context, ids ...string) error {
	if e.readOnly {
		return fmt.Errorf("mark stale: %w", ErrReadOnly)
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	for _, id := range ids {
		rec, err := e.Document(id)
		if err != nil {
			return fmt.Errorf("mark stale: %w", err)
		}
		if strings.HasSuffix(rec.Hash, staleMark) {
			continue
		}
		chunks, err := e.store.Chunks(ctx, id)
		if err != nil {
			return fmt.Errorf("mark stale %s: %w", id, err)
		}
		rec.Hash += staleMark
		if err := e.store.PutDocument(ctx, rec, chunks); err != nil {
			return fmt.Errorf("mark stale %s: %w", id, err)
		}
		e.mu.Lock()
		e.setDoc(rec)
		e.mu.Unlock()
	}
	return nil
}

// Stale returns the records of the documents that the next Index
// re-processes although their content did not change: indexed with other
// chunking or contextualizer settings, or marked by MarkStale.
func (e *Engine) Stale() []DocumentRecord {
	var out []DocumentRecord
	for _, r := range e.Documents() {
		_, proc, _ := strings.Cut(r.Hash, hashSeparator)
		if proc != e.processing && !strings.HasPrefix(proc, prechunkedMark) {
			out = append(out, r)
		}
	}
	return out
}

// Indexed reports whether doc's content (text, title, metadata, access) is
// what is indexed under its id, whatever the settings it was processed
// with. A document not indexed is not.
func (e *Engine) Indexed(doc Document) bool {
	rec, err := e.Document(doc.ID)
	return err == nil && sameContent(rec, doc, "") && sameAttributes(rec, doc)
}
