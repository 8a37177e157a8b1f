package situate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/situate/situate/driver"
)

// A document's attributes are its title, metadata and access list: what a
// reader is allowed to see and how it is described, none of which the
// contextualizer reads from a model. A change of attributes alone is applied
// at once (Patch, and Put or a queued upsert whose content is unchanged):
// the store, the Engine's records that every arm filters on, and the chunk
// cache, with no model call and no job. When content and attributes change
// together, the new attributes apply to the stored version at once, before
// the new content is contextualized, so a slow or failing re-index never
// leaves a document readable by more principals than the last accepted
// change allows.
//
// The offline contextualizer names the title in the contexts it writes:
// those keep the title they were written with until the content changes.

// Patch is a change of a document's attributes; a nil field is left as it
// is. An empty (non-nil) Access makes the document readable by everyone.
type Patch struct {
	Title    *string
	Metadata *map[string]string
	Access   *[]string
}

// Patch applies p to the stored document id at once and returns its new
// record: see the package's note on attributes above. An unknown id is an
// error wrapping ErrNotFound.
func (e *Engine) Patch(ctx context.Context, id string, p Patch) (DocumentRecord, error) {
	if e.readOnly {
		return DocumentRecord{}, fmt.Errorf("patch %s: %w", id, ErrReadOnly)
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	prev, known, err := e.storedVersion(ctx, id)
	if err != nil {
		return DocumentRecord{}, fmt.Errorf("patch %s: %w", id, err)
	}
	if !known {
		return DocumentRecord{}, fmt.Errorf("patch %s: %w", id, ErrNotFound)
	}
	title, meta, access := prev.Title, prev.Metadata, prev.Access
	if p.Title != nil {
		title = *p.Title
	}
	if p.Metadata != nil {
		meta = *p.Metadata
	}
	if p.Access != nil {
		access = *p.Access
	}
	return e.applyAttributes(ctx, prev, title, meta, access, "")
}

// PutAttributes applies doc's attributes to the stored document doc.ID at
// once, as Put would before it contextualizes anything, and reports whether
// the stored content is doc's (then nothing else is left to do: Put of doc
// would make no model call). An unknown document is left alone (stored is
// false). A front end that queues documents for a worker calls it when it
// accepts one, so the access it was given holds before the job runs.
func (e *Engine) PutAttributes(ctx context.Context, doc Document) (stored, contentStored bool, err error) {
	if e.readOnly {
		return false, false, fmt.Errorf("put %s: %w", doc.ID, ErrReadOnly)
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	prev, known, err := e.storedVersion(ctx, doc.ID)
	if err != nil || !known {
		return false, false, err
	}
	same := sameContent(prev, doc, e.processing)
	if !sameAttributes(prev, doc) {
		hash := ""
		if same {
			hash = recordHash(doc, e.processing)
		}
		if _, err := e.applyAttributes(ctx, prev, doc.Title, doc.Metadata, doc.Access, hash); err != nil {
			return true, false, err
		}
	}
	return true, same, nil
}

// applyAttributes stores prev with these attributes and makes every read
// path see them; hash, when set, is the record's new Hash (else it is
// derived from prev's). The caller holds writeMu.
func (e *Engine) applyAttributes(ctx context.Context, prev DocumentRecord, title string, meta map[string]string, access []string, hash string) (DocumentRecord, error) {
	rec := prev
	rec.Title, rec.Metadata, rec.Access = title, maps.Clone(meta), slices.Clone(access)
	if hash == "" {
		hash = rehashAttributes(prev.Hash, rec)
	}
	rec.Hash = hash
	chunks, err := e.store.Chunks(ctx, prev.ID)
	if err != nil {
		return prev, fmt.Errorf("update attributes of %s: %w", prev.ID, err)
	}
	if err := e.store.PutDocument(ctx, rec, chunks); err != nil {
		return prev, fmt.Errorf("update attributes of %s: %w", prev.ID, err)
	}
	if e.opts.Backend != nil {
		// The backend filters natively on the access list and metadata it
		// holds: give it the new ones (with the vectors it holds, from the
		// vector cache). Its hits are not checked against the Engine's
		// records again (situatetest's access-patch case fails without
		// this).
		if err := e.backendAttributes(ctx, rec, chunks); err != nil {
			return rec, fmt.Errorf("update attributes of %s: %w", prev.ID, err)
		}
	} else if err := e.rewriteLexical(ctx, rec, chunks); err != nil {
		return rec, fmt.Errorf("update attributes of %s: %w", prev.ID, err)
	}
	e.mu.Lock()
	if _, ok := e.docs[rec.ID]; ok || e.docsLoaded {
		e.setDoc(rec)
	}
	e.mu.Unlock()
	return rec, nil
}

// contentHash identifies what the contextualizer reads of a document: its
// id, format, language and text.
func contentHash(doc Document) string {
	return Document{ID: doc.ID, Format: doc.Format, Lang: doc.Lang, Text: doc.Text}.Hash()
}

// attributesHash identifies a document's attributes.
func attributesHash(title string, meta map[string]string, access []string) string {
	h := sha256.Sum256([]byte(Document{Title: title, Metadata: meta, Access: access}.Hash()))
	return hex.EncodeToString(h[:8])
}

// recordHash is the Hash a record of doc gets under processing proc: the
// content and the attributes hashed apart ("content+attributes/proc"), so
// that an attribute change is told from a content change. Records written
// before hold doc.Hash()+"/"+proc; sameContent reads both.
func recordHash(doc Document, proc string) string {
	return contentHash(doc) + "+" + attributesHash(doc.Title, doc.Metadata, doc.Access) + hashSeparator + proc
}

// unknownContent stands for the content hash of a record written before
// the two were hashed apart and patched since: the content is then not known
// from the record, and the next Put of the document processes it again (the
// context cache keeps that free of model calls).
const unknownContent = "?"

// rehashAttributes is old (a record's Hash) with the attributes of rec.
func rehashAttributes(old string, rec DocumentRecord) string {
	content, rest, ok := strings.Cut(old, "+")
	_, proc, _ := strings.Cut(old, hashSeparator)
	if ok {
		_, proc, _ = strings.Cut(rest, hashSeparator)
	} else {
		content = unknownContent
	}
	return content + "+" + attributesHash(rec.Title, rec.Metadata, rec.Access) + hashSeparator + proc
}

// sameContent reports whether rec holds doc's content processed by proc
// (by any processing when proc is ""), whatever their attributes.
func sameContent(rec DocumentRecord, doc Document, proc string) bool {
	if content, rest, ok := strings.Cut(rec.Hash, "+"); ok {
		_, p, _ := strings.Cut(rest, hashSeparator)
		return content == contentHash(doc) && (proc == "" || p == proc)
	}
	// Written before: Document.Hash covered the attributes too, so hash
	// doc with the record's.
	legacy := doc
	legacy.Title, legacy.Metadata, legacy.Access = rec.Title, rec.Metadata, rec.Access
	if proc == "" {
		return strings.HasPrefix(rec.Hash, legacy.Hash()+hashSeparator)
	}
	return rec.Hash == legacy.Hash()+hashSeparator+proc
}

// sameAttributes reports whether rec has doc's attributes (an access list in
// another order is the same).
func sameAttributes(rec DocumentRecord, doc Document) bool {
	if rec.Title != doc.Title || len(rec.Metadata) != len(doc.Metadata) || !maps.Equal(rec.Metadata, doc.Metadata) {
		return false
	}
	a, b := slices.Clone(rec.Access), slices.Clone(doc.Access)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// prepareAttributes is what Put does before it contextualizes: it applies
// doc's attributes to the stored version (so they hold at once), and reports
// whether that was all doc changes (patched) or doc is stored as it is
// (unchanged). The caller does not hold writeMu.
func (e *Engine) prepareAttributes(ctx context.Context, doc Document) (patched, unchanged bool, err error) {
	prev, known, err := e.knownVersion(ctx, doc.ID)
	if err != nil || !known {
		return false, false, err
	}
	if sameAttributes(prev, doc) {
		return false, sameContent(prev, doc, e.processing), nil
	}
	if e.readOnly {
		return false, false, nil // Commit says ErrReadOnly
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	// Read again under the lock: a commit may have changed it.
	if prev, known, err = e.storedVersion(ctx, doc.ID); err != nil || !known {
		return false, false, err
	}
	same := sameContent(prev, doc, e.processing)
	if sameAttributes(prev, doc) {
		return false, same, nil
	}
	hash := ""
	if same {
		hash = recordHash(doc, e.processing)
	}
	if _, err := e.applyAttributes(ctx, prev, doc.Title, doc.Metadata, doc.Access, hash); err != nil {
		return false, false, err
	}
	return same, false, nil
}

// knownVersion is the record the Engine holds of id: its own record, or
// over a shared store the store's (another process may have written it).
func (e *Engine) knownVersion(ctx context.Context, id string) (DocumentRecord, bool, error) {
	if e.opts.SharedStore {
		prev, known, err := e.storedVersion(ctx, id)
		if err != nil {
			return prev, false, fmt.Errorf("put document %s: %w", id, err)
		}
		return prev, known, nil
	}
	if err := e.ensureDocs(ctx); err != nil {
		return DocumentRecord{}, false, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	prev, known := e.docs[id]
	return prev, known, nil
}

// backendAttributes gives an index backend a document's new attributes
// with the chunks (and vectors) it already holds.
func (e *Engine) backendAttributes(ctx context.Context, rec DocumentRecord, chunks []StoredChunk) error {
	var vecs [][]float32
	if e.opts.Embedder != nil {
		texts := make([]string, len(chunks))
		for i, c := range chunks {
			texts[i], _ = e.embedText(c.Context.Text, c.Text)
		}
		var err error
		// The vector cache holds these already: no model call.
		if vecs, err = e.embed(ctx, rec.ID, texts); err != nil {
			return err
		}
	}
	return e.opts.Backend.Replace(ctx, []driver.BackendDocument{e.backendDocument(rec, chunks, vecs)})
}

// rewriteLexical writes a stored document's entries in the Engine's BM25
// arms again with its new attributes. The arms' filters read the Engine's
// records, not these; what matters is that the write moves the index's
// commit, which is how a reader beside this writer (situate mcp, a second
// process) learns to read the records again: its next search, Document or
// list sees the change (TestReaderSeesAccessChange). The vectors carry no
// attributes and stay.
func (e *Engine) rewriteLexical(ctx context.Context, rec DocumentRecord, chunks []StoredChunk) error {
	d := &stagedDoc{rec: rec, chunks: chunks}
	for _, part := range e.indexParts() {
		if _, ok := part.(localLexicalPart); !ok {
			continue
		}
		b := part.newBatch()
		b.stage(d)
		if err := b.apply(ctx); err != nil {
			return err
		}
	}
	return nil
}
