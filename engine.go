package situate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/situate/situate/analysis"
	"github.com/situate/situate/bm25"
	"github.com/situate/situate/chunk"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/vector"
)

const (
	metaPending     = "engine.pending"
	metaIndexLayout = "engine.index-layout"
	chunkKeySep     = "#"
	fieldText       = "text"
	fieldChunk      = "chunk"
	fieldContext    = "context"
	attrAccess      = "access"
	attrMetaPrefix  = "meta."
	accessSeparator = "\x1f"
	hashSeparator   = "/"
)

// Change says what Put did with a document.
type Change int

const (
	Unchanged Change = iota
	Added
	Updated
)

func (c Change) String() string {
	switch c {
	case Added:
		return "added"
	case Updated:
		return "updated"
	default:
		return "unchanged"
	}
}

// Engine indexes documents into a store, BM25 indexes and (with an Embedder)
// a vector index, and searches them.
// It is safe for concurrent use: documents are chunked and contextualized in
// parallel, while store and index commits are serialized.
type Engine struct {
	opts  Options
	store driver.Store
	// arms are the lexical arms Options enables, in lexicalArms order;
	// arms[0] is the language arm.
	arms []*lexArm
	// vec is the dense arm (nil without an embedder, or before the first
	// vectors are committed); vecDir is where it lives ("" in memory).
	vec    *vector.Index
	vecDir string
	vecMu  sync.Mutex
	log    *slog.Logger
	layout string
	// readOnly: opened with OpenReader; lock is the writer's lock
	// on the index directory (nil for readers and in memory).
	readOnly bool
	lock     *os.File
	// view lets a reader swap in a later commit (Refresh).
	view readerView
	// processing fingerprints what turns a document into chunks and
	// contexts; a change re-processes every document on its next Put.
	processing string

	// shared is what the local indexes hold (Options.SharedStore).
	shared sharedState
	// syncedStamp is shared.stamp, read without writeMu (SyncIfChanged).
	syncedStamp atomic.Value
	// closed is set by the first Close.
	closed atomic.Bool

	writeMu sync.Mutex // serializes store+index commits and the pending journal
	// contextualizerRecorded: the store holds this Engine's contextualizer
	// identity (recordContextualizer); guarded by writeMu.
	contextualizerRecorded bool
	mu                     sync.RWMutex
	docs                   map[string]DocumentRecord
	// analyzers counts the documents per language analyzer name, so a
	// query learns which analyzers to pair its words with without
	// walking every document.
	analyzers map[string]int
	// docsLoaded: docs holds every stored record. A reader that found its
	// indexes in step with the store loads them on first need
	// (ensureDocs), so a search that needs none reads none.
	docsLoaded bool
	docsLoad   sync.Mutex // serialises ensureDocs
	// docsGen counts the changes to docs; allowed caches the document sets
	// of recent filters, valid while docsGen is unchanged.
	docsGen uint64
	allowed filterCache
	// chunks caches the stored chunks of recent hits (nil: off).
	chunks *chunkCache
}

// setDoc records rec; the caller holds e.mu (or owns e alone).
func (e *Engine) setDoc(rec DocumentRecord) {
	e.docsGen++
	e.dropDoc(rec.ID)
	e.docs[rec.ID] = rec
	e.analyzers[analysis.ForLanguage(rec.Lang).Name()]++
}

// dropDoc forgets document id; the caller holds e.mu (or owns e alone).
func (e *Engine) dropDoc(id string) {
	e.docsGen++
	prev, ok := e.docs[id]
	if !ok {
		return
	}
	delete(e.docs, id)
	name := analysis.ForLanguage(prev.Lang).Name()
	if e.analyzers[name]--; e.analyzers[name] <= 0 {
		delete(e.analyzers, name)
	}
}

// Close closes the indexes; the store belongs to the caller. A second
// Close does nothing: an index backend, a client other processes may share,
// is closed once.
func (e *Engine) Close() error {
	if !e.closed.CompareAndSwap(false, true) {
		return nil
	}
	e.writeMu.Lock()
	err := e.writeSync()
	e.writeMu.Unlock()
	e.view.mu.Lock()
	defer e.view.mu.Unlock()
	for _, a := range e.arms {
		if a.ix != nil {
			err = errors.Join(err, a.ix.Close())
		}
	}
	if e.vec != nil {
		err = errors.Join(err, e.vec.Close())
	}
	if e.opts.Backend != nil {
		err = errors.Join(err, e.opts.Backend.Close())
	}
	if e.lock != nil {
		err = errors.Join(err, e.lock.Close())
		e.lock = nil
	}
	return err
}

// Options returns the options the engine was opened with.
func (e *Engine) Options() Options { return e.opts }

func (e *Engine) processingFingerprint() string {
	name := "none"
	if e.opts.Contextualizer != nil {
		name = e.opts.Contextualizer.Name()
		if f, ok := e.opts.Contextualizer.(driver.Fingerprinter); ok {
			name += "#" + f.Fingerprint()
		}
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("chunk=%d/%d contextualizer=%s", e.opts.ChunkSize, e.opts.ChunkOverlap, name)))
	return hex.EncodeToString(h[:8])
}

// Split chunks a document as an Engine opened with opts would (its
// ChunkSize and ChunkOverlap), without a store: what "situate cost" plans
// with.
func Split(doc Document, opts Options) ([]Chunk, error) {
	spans, err := chunk.Split(doc.Text, chunk.Options{
		Size: opts.ChunkSize, Overlap: opts.ChunkOverlap, Format: doc.Format, Path: doc.Path,
	})
	if err != nil {
		return nil, fmt.Errorf("chunk %s: %w", doc.ID, err)
	}
	chunks := make([]Chunk, len(spans))
	for i, s := range spans {
		chunks[i] = Chunk{DocID: doc.ID, Index: i, Start: s.Start, End: s.End,
			Text: doc.Text[s.Start:s.End], Heading: s.Heading, Tokens: s.Tokens}
	}
	return chunks, nil
}

// Split chunks a document with the engine's chunking options.
func (e *Engine) Split(doc Document) ([]Chunk, error) { return Split(doc, e.opts) }

// Prepared is a document chunked and contextualized, ready for Commit.
type Prepared struct {
	doc      Document
	hash     string
	chunks   []Chunk
	contexts []Context
	vectors  [][]float32 // nil without an embedder
	// lex are the document's docs for each lexical arm (e.arms order),
	// analysed by prepareLexical on the preparing goroutine; nil when the
	// Engine keeps no lexical arms.
	lex []*bm25.Analyzed
	// lexBytes is the text analysed into lex that an index run counts
	// against its budget (lexAheadBudget) until the document is committed.
	lexBytes int64
	// storedAttributes: a stored record's attributes stand over doc's
	// (prepareJob).
	storedAttributes bool
}

// DocID is the id of the prepared document.
func (p *Prepared) DocID() string { return p.doc.ID }

// Chunks is the number of chunks the document was split into.
func (p *Prepared) Chunks() int { return len(p.chunks) }

// Put indexes one document: unchanged content does no work; changed content
// is re-chunked and re-contextualized as a whole, and its new version
// replaces the old one atomically in the store and the index.
func (e *Engine) Put(ctx context.Context, doc Document) (Change, error) {
	p, patched, err := e.prepare(ctx, doc)
	if err != nil || p == nil {
		if patched {
			return Updated, err
		}
		return Unchanged, err
	}
	changes, err := e.Commit(ctx, []*Prepared{p})
	if err != nil {
		return Unchanged, err
	}
	return changes[0], nil
}

// Prepare chunks and contextualizes a document for Commit; it returns nil
// when the document is unchanged since it was indexed. Prepare is the slow
// part (the contextualizer) and may run concurrently; Commit is serialized,
// so callers prepare in parallel and commit in batches.
func (e *Engine) Prepare(ctx context.Context, doc Document) (*Prepared, error) {
	p, _, err := e.prepare(ctx, doc)
	return p, err
}

// prepare is Prepare; patched reports a document whose attributes alone
// changed, which it applied (see Patch).
func (e *Engine) prepare(ctx context.Context, doc Document) (p *Prepared, patched bool, err error) {
	if doc.ID == "" {
		return nil, false, fmt.Errorf("put document: ID: must not be empty: %w", ErrInvalid)
	}
	patched, same, err := e.prepareAttributes(ctx, doc)
	if err != nil || patched || same {
		return nil, patched, err
	}
	p, err = e.prepareWith(ctx, doc, recordHash(doc, e.processing), e.opts.Contextualizer, nil)
	if err != nil {
		return nil, false, err
	}
	if err := e.prepareLexical(p); err != nil {
		return nil, false, err
	}
	return p, false, nil
}

// prepareJob is Prepare for a queued job's document: the front end that
// accepted it applied its attributes then (PutAttributes), and a later
// change may have replaced them since, so the stored attributes stand and
// the job changes only the content (storedAttributes). A document whose
// content is stored is left alone.
func (e *Engine) prepareJob(ctx context.Context, doc Document) (*Prepared, error) {
	if doc.ID == "" {
		return nil, fmt.Errorf("put document: ID: must not be empty: %w", ErrInvalid)
	}
	prev, known, err := e.knownVersion(ctx, doc.ID)
	if err != nil {
		return nil, err
	}
	if known && sameContent(prev, doc, e.processing) {
		return nil, nil
	}
	p, err := e.prepareWith(ctx, doc, recordHash(doc, e.processing), e.opts.Contextualizer, nil)
	if err != nil {
		return nil, err
	}
	p.storedAttributes = true
	if err := e.prepareLexical(p); err != nil {
		return nil, err
	}
	return p, nil
}

// unchanged reports whether document id is stored with hash: as this
// Engine knows it, or, over a shared store, as the store holds it now.
func (e *Engine) unchanged(ctx context.Context, id, hash string) (bool, error) {
	if e.opts.SharedStore {
		prev, known, err := e.storedVersion(ctx, id)
		if err != nil {
			return false, fmt.Errorf("put document %s: %w", id, err)
		}
		return known && prev.Hash == hash, nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	prev, known := e.docs[id]
	return known && prev.Hash == hash, nil
}

// PutChunks indexes a document that is already chunked, with contexts given
// (one per chunk) or, when contexts is nil, written by the contextualizer.
// Evaluation datasets that ship their own chunks and contexts use it.
func (e *Engine) PutChunks(ctx context.Context, doc Document, chunks []Chunk, contexts []Context) (Change, error) {
	p, err := e.PrepareChunks(ctx, doc, chunks, contexts)
	if err != nil || p == nil {
		return Unchanged, err
	}
	changes, err := e.Commit(ctx, []*Prepared{p})
	if err != nil {
		return Unchanged, err
	}
	return changes[0], nil
}

// PrepareChunks is Prepare for a document that is already chunked.
func (e *Engine) PrepareChunks(ctx context.Context, doc Document, chunks []Chunk, contexts []Context) (*Prepared, error) {
	p, err := e.prepareChunks(ctx, doc, chunks, contexts)
	if p == nil || err != nil {
		return nil, err
	}
	if err := e.prepareLexical(p); err != nil {
		return nil, err
	}
	return p, nil
}

// prepareChunks is PrepareChunks without the arms' analysis.
func (e *Engine) prepareChunks(ctx context.Context, doc Document, chunks []Chunk, contexts []Context) (*Prepared, error) {
	if doc.ID == "" {
		return nil, fmt.Errorf("put chunks: ID: must not be empty: %w", ErrInvalid)
	}
	if contexts != nil && len(contexts) != len(chunks) {
		return nil, fmt.Errorf("put chunks %s: %d contexts for %d chunks: %w", doc.ID, len(contexts), len(chunks), ErrInvalid)
	}
	doc.Lang = driver.ResolveLanguage(doc)
	for i := range chunks {
		chunks[i].DocID = doc.ID
		chunks[i].Index = i
	}
	if contexts == nil {
		var err error
		if contexts, err = e.contextualize(ctx, doc, chunks); err != nil {
			return nil, err
		}
	}
	h := sha256.New()
	for i, c := range chunks {
		fmt.Fprintf(h, "%d:%q:%q\n", len(c.Text), c.Text, contexts[i].Text)
	}
	hash := doc.Hash() + hashSeparator + "prechunked-" + hex.EncodeToString(h.Sum(nil)[:8])
	if same, err := e.unchanged(ctx, doc.ID, hash); err != nil || same {
		return nil, err
	}
	p := &Prepared{doc: doc, hash: hash, chunks: chunks, contexts: contexts}
	if err := e.embedPrepared(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

func (e *Engine) contextualize(ctx context.Context, doc Document, chunks []Chunk) ([]Context, error) {
	return contextualizeWith(ctx, e.opts.Contextualizer, doc, chunks)
}

// Commit stores prepared documents and indexes them. Each document's new
// version replaces its old one atomically; the index is updated in one
// batch for all of them (one durable index commit instead of one per
// document). A crash at any point is repaired on the next Open: the store is
// the source of truth and documents in flight are journalled.
//
// When storing a document fails (a full disk), the documents before it in
// batch are stored: Commit indexes them too and returns their changes (a
// prefix of batch, shorter than it) with the error, so a caller counts what
// was really done. When the store took every document but indexing them
// failed, Commit returns every change with the error: they are stored and
// journalled, and the next Open indexes them.
func (e *Engine) Commit(ctx context.Context, batch []*Prepared) ([]Change, error) {
	if e.readOnly {
		return nil, fmt.Errorf("commit %d documents: %w", len(batch), ErrReadOnly)
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()

	ids := make([]string, len(batch))
	for i, p := range batch {
		ids[i] = p.doc.ID
	}
	if err := e.markPending(ctx, ids...); err != nil {
		return nil, err
	}
	if err := e.recordContextualizer(ctx, len(batch)); err != nil {
		return nil, err
	}
	changes := make([]Change, len(batch))
	records := make([]DocumentRecord, len(batch))
	versions := map[string]int{}
	// First each document's record, from what the store and this batch
	// hold; then all of them stored, in one transaction where the store
	// can (putAll).
	puts := make([]driver.DocumentPut, 0, len(batch))
	var readErr error
	for i, p := range batch {
		doc := p.doc
		e.mu.RLock()
		prev, known := e.docs[doc.ID]
		e.mu.RUnlock()
		if e.opts.SharedStore {
			// Another process may have stored a later version.
			var err error
			if prev, known, err = e.storedVersion(ctx, doc.ID); err != nil {
				readErr = fmt.Errorf("store %s: %w", doc.ID, err)
				break
			}
		}
		if p.storedAttributes && known {
			doc.Title, doc.Metadata, doc.Access = prev.Title, prev.Metadata, prev.Access
			p.hash = rehashAttributes(p.hash, prev)
		}
		version, change := 1, Added
		if v, ok := versions[doc.ID]; ok {
			version, change = v+1, Updated
		} else if known {
			version, change = prev.Version+1, Updated
			// Re-processed after a settings change (same content, other
			// processing) with the chunks and contexts it had: stored
			// again under the new processing, but the same version.
			if same, err := e.reprocessedUnchanged(ctx, prev, p); err != nil {
				readErr = fmt.Errorf("store %s: %w", doc.ID, err)
				break
			} else if same {
				version, change = prev.Version, Unchanged
			}
		}
		versions[doc.ID] = version
		stored := make([]StoredChunk, len(p.chunks))
		for j := range p.chunks {
			stored[j] = StoredChunk{Chunk: p.chunks[j], Context: p.contexts[j]}
		}
		// The record's hash covers the content and how it was processed
		// (chunking, contextualizer), so a settings change re-processes it.
		rec := DocumentRecord{ID: doc.ID, Title: doc.Title, Format: doc.Format, Lang: doc.Lang, Path: doc.Path,
			Hash: p.hash, Metadata: doc.Metadata, Access: doc.Access, Version: version, Chunks: len(p.chunks), IndexedAt: time.Now()}
		puts = append(puts, driver.DocumentPut{Record: rec, Chunks: stored})
		changes[i], records[i] = change, rec
	}
	// The arms' segments are built while the store writes (Build needs
	// neither), and published after the store has committed, as always:
	// the two were a third and two thirds of a commit's processor time.
	batches := e.stageStored(batch, puts)
	var buildErr error
	var building sync.WaitGroup
	if len(puts) > 0 {
		building.Go(func() {
			for _, b := range batches {
				if buildErr = b.build(); buildErr != nil {
					return
				}
			}
		})
	}
	n, err := e.putAll(ctx, puts)
	building.Wait()
	if err = errors.Join(readErr, err); err != nil {
		if n == 0 {
			return nil, err
		}
		// The documents before the failure are stored: index them as
		// well. All that were staged (a failed read stopped the batch
		// before the puts) reuse the segments built; a prefix is staged
		// and built again alone.
		if n < len(puts) || buildErr != nil {
			batches = e.stageStored(batch, puts[:n])
		}
		if ierr := e.indexCommitted(ctx, ids[:n], records[:n], batches); ierr != nil {
			// Stored but not indexed: the journal repairs the index on
			// the next Open; they count as done.
			err = errors.Join(err, ierr)
		}
		return changes[:n], err
	}
	if buildErr != nil {
		// Stored but not indexed, as above.
		return changes, fmt.Errorf("index %d documents: %w", len(ids), buildErr)
	}
	if err := e.indexCommitted(ctx, ids, records, batches); err != nil {
		return changes, err
	}
	return changes, nil
}

// stageStored stages the first len(puts) documents of batch, stored as
// puts, in a batch of every index part.
func (e *Engine) stageStored(batch []*Prepared, puts []driver.DocumentPut) []partBatch {
	parts := e.indexParts()
	batches := make([]partBatch, len(parts))
	for i, part := range parts {
		batches[i] = part.newBatch()
	}
	for i, put := range puts {
		p := batch[i]
		d := &stagedDoc{rec: put.Record, chunks: put.Chunks, vectors: p.vectors, analysed: p.lex}
		for _, b := range batches {
			b.stage(d)
		}
	}
	return batches
}

// putAll stores puts in order, in one transaction when the store is a
// BatchStore, and returns how many it stored: when the transaction fails,
// each is stored alone, so the documents before a failing one are kept and
// the error names that one.
func (e *Engine) putAll(ctx context.Context, puts []driver.DocumentPut) (int, error) {
	if bs, ok := e.store.(driver.BatchStore); ok && len(puts) > 1 {
		if err := bs.PutDocuments(ctx, puts); err == nil {
			return len(puts), nil
		}
	}
	for i, p := range puts {
		if err := e.store.PutDocument(ctx, p.Record, p.Chunks); err != nil {
			return i, fmt.Errorf("store %s: %w", p.Record.ID, err)
		}
	}
	return len(puts), nil
}

// reprocessedUnchanged says whether p re-processes prev's content (the
// same document hash, another processing fingerprint) into exactly the
// chunks and contexts stored for it.
func (e *Engine) reprocessedUnchanged(ctx context.Context, prev DocumentRecord, p *Prepared) (bool, error) {
	content, _, _ := strings.Cut(p.hash, hashSeparator)
	if prev.Hash == p.hash || !strings.HasPrefix(prev.Hash, content+hashSeparator) || prev.Chunks != len(p.chunks) {
		return false, nil
	}
	old, err := e.store.Chunks(ctx, prev.ID)
	if err != nil {
		return false, err
	}
	if len(old) != len(p.chunks) {
		return false, nil
	}
	for i, o := range old {
		c, x := p.chunks[i], p.contexts[i]
		if o.Text != c.Text || o.Start != c.Start || o.End != c.End || o.Heading != c.Heading ||
			o.Context.Text != x.Text || o.Context.Source != x.Source || !slices.Equal(o.Context.Flags, x.Flags) {
			return false, nil
		}
	}
	return true, nil
}

// indexCommitted applies every index part's batch of stored documents,
// clears their journal entries and records them.
func (e *Engine) indexCommitted(ctx context.Context, ids []string, records []DocumentRecord, batches []partBatch) error {
	for _, b := range batches {
		if err := b.apply(ctx); err != nil {
			return fmt.Errorf("index %d documents: %w", len(ids), err)
		}
	}
	if e.storeOnly() {
		// A worker of a shared store: the serving processes record them.
		return nil
	}
	if err := e.clearPending(ctx, ids...); err != nil {
		return err
	}
	e.mu.Lock()
	for _, rec := range records {
		e.setDoc(rec)
		if e.opts.SharedStore {
			e.shared.held[rec.ID] = syncKey(rec)
			e.shared.dirty = true
		}
	}
	e.mu.Unlock()
	return nil
}

// Delete removes a document from the store and the index.
func (e *Engine) Delete(ctx context.Context, id string) error {
	if e.readOnly {
		return fmt.Errorf("delete %s: %w", id, ErrReadOnly)
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if err := e.markPending(ctx, id); err != nil {
		return err
	}
	if err := e.store.DeleteDocument(ctx, id); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	if e.storeOnly() && e.opts.Backend == nil {
		return nil
	}
	for _, part := range e.indexParts() {
		if err := part.delete(ctx, id); err != nil {
			return fmt.Errorf("delete %s: %w", id, err)
		}
	}
	if err := e.clearPending(ctx, id); err != nil {
		return err
	}
	e.mu.Lock()
	e.dropDoc(id)
	if e.opts.SharedStore {
		delete(e.shared.held, id)
		e.shared.dirty = true
	}
	e.mu.Unlock()
	return nil
}

// ensureDocs loads every stored record into docs unless it holds them.
func (e *Engine) ensureDocs(ctx context.Context) error {
	e.mu.RLock()
	ok := e.docsLoaded
	e.mu.RUnlock()
	if ok {
		return nil
	}
	e.docsLoad.Lock()
	defer e.docsLoad.Unlock()
	e.mu.RLock()
	ok = e.docsLoaded
	e.mu.RUnlock()
	if ok {
		return nil
	}
	// A shared store's Sync may record a newer version while the list is
	// read: the list is read again rather than overwrite it with an
	// older one; the third time under the write lock, which Sync and the
	// commits hold while they record documents.
	for attempt := 0; ; attempt++ {
		if attempt == 2 {
			e.writeMu.Lock()
			defer e.writeMu.Unlock()
		}
		e.mu.RLock()
		gen := e.docsGen
		e.mu.RUnlock()
		records, err := e.store.Documents(ctx)
		if err != nil {
			return fmt.Errorf("documents: %w", err)
		}
		e.mu.Lock()
		if e.docsGen == gen {
			e.loadDocsLocked(records)
			e.mu.Unlock()
			return nil
		}
		e.mu.Unlock()
	}
}

// refreshReader brings a reader to the writer's last commit before it
// answers from its records, as its searches do (Refresh), so an access list
// the writer narrowed holds for every read path; a failure keeps the
// commit it has, as a search does.
func (e *Engine) refreshReader() {
	if !e.readOnly {
		return
	}
	if err := e.Refresh(context.Background()); err != nil {
		e.log.Warn("answering from the commit opened before; a later one could not be opened", "err", err)
	}
}

// Documents returns the records of all indexed documents, ordered by id.
func (e *Engine) Documents() []DocumentRecord {
	e.refreshReader()
	if err := e.ensureDocs(context.Background()); err != nil {
		e.log.Warn("reading the documents failed", "err", err)
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]DocumentRecord, 0, len(e.docs))
	for _, r := range e.docs {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b DocumentRecord) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Document returns one document's record, or an error wrapping ErrNotFound.
func (e *Engine) Document(id string) (DocumentRecord, error) {
	e.refreshReader()
	e.mu.RLock()
	defer e.mu.RUnlock()
	if !e.docsLoaded {
		// A reader that has not loaded the records reads this one.
		return e.store.Document(context.Background(), id)
	}
	r, ok := e.docs[id]
	if !ok {
		return DocumentRecord{}, fmt.Errorf("document %q: %w", id, ErrNotFound)
	}
	return r, nil
}

// Chunks returns a document's chunks with their contexts.
func (e *Engine) Chunks(ctx context.Context, id string) ([]StoredChunk, error) {
	if _, err := e.Document(id); err != nil {
		return nil, err
	}
	return e.store.Chunks(ctx, id)
}

// IndexStats describes the language arm's BM25 index: the chunks it holds,
// its unique terms (summed over its analyzer partitions) and its indexed
// tokens. An index backend keeps its own statistics: there it is zero.
type IndexStats struct {
	Chunks int
	Terms  int
	Tokens int64
}

// IndexStats describes the language arm's BM25 index.
func (e *Engine) IndexStats() IndexStats {
	e.view.mu.RLock()
	defer e.view.mu.RUnlock()
	if len(e.arms) == 0 || e.arms[0].ix == nil {
		return IndexStats{}
	}
	st := e.arms[0].ix.Stats()
	return IndexStats{Chunks: st.Docs, Terms: st.Terms, Tokens: st.Tokens}
}

// lexicalDocs are the language arm's docs of a stored document. The access
// list and metadata still travel in the docs' Attrs so that segments stay
// byte-identical to earlier builds, but no arm filters on them: every arm
// filters on the Engine's records (allowedDocs).
func (e *Engine) lexicalDocs(rec DocumentRecord, chunks []StoredChunk) []bm25.Doc {
	attrs := map[string]string{}
	if len(rec.Access) > 0 {
		attrs[attrAccess] = strings.Join(rec.Access, accessSeparator)
	}
	for k, v := range rec.Metadata {
		attrs[attrMetaPrefix+k] = v
	}
	lang := rec.Lang
	docs := make([]bm25.Doc, len(chunks))
	for i, c := range chunks {
		var fields map[string]string
		if e.opts.ContextWeight > 0 {
			fields = map[string]string{fieldChunk: c.Text, fieldContext: c.Context.Text}
		} else {
			fields = map[string]string{fieldText: driver.Contextualize(c.Context.Text, c.Text)}
		}
		docs[i] = bm25.Doc{ID: chunkKey(rec.ID, c.Index), Group: rec.ID, Lang: lang, Fields: fields, Attrs: attrs}
	}
	return docs
}

func chunkKey(docID string, index int) string {
	return docID + chunkKeySep + strconv.Itoa(index)
}

// chunkDoc is the document id of a chunk key (a substring of it).
func chunkDoc(key string) (string, error) {
	i := strings.LastIndex(key, chunkKeySep)
	if i < 0 {
		return "", fmt.Errorf("chunk key %q: no %q", key, chunkKeySep)
	}
	return key[:i], nil
}

func parseChunkKey(key string) (string, int, error) {
	i := strings.LastIndex(key, chunkKeySep)
	if i < 0 {
		return "", 0, fmt.Errorf("chunk key %q: no %q", key, chunkKeySep)
	}
	n, err := strconv.Atoi(key[i+1:])
	if err != nil {
		return "", 0, fmt.Errorf("chunk key %q: %w", key, err)
	}
	return key[:i], n, nil
}

func (e *Engine) pending(ctx context.Context) ([]string, driver.MetaStore, error) {
	ms, ok := e.store.(driver.MetaStore)
	if !ok || e.opts.SharedStore {
		// A shared store's journal would mix processes' indexes; the
		// local SYNC file does its work (shared.go).
		return nil, nil, nil
	}
	v, found, err := ms.Meta(ctx, metaPending)
	if err != nil || !found || v == "" {
		return nil, ms, err
	}
	var ids []string
	if err := json.Unmarshal([]byte(v), &ids); err != nil {
		return nil, ms, fmt.Errorf("pending journal: %w", err)
	}
	return ids, ms, nil
}

func (e *Engine) markPending(ctx context.Context, add ...string) error {
	ids, ms, err := e.pending(ctx)
	if err != nil || ms == nil {
		return err
	}
	for _, id := range add {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	b, _ := json.Marshal(ids)
	return ms.SetMeta(ctx, metaPending, string(b))
}

func (e *Engine) clearPending(ctx context.Context, done ...string) error {
	ids, ms, err := e.pending(ctx)
	if err != nil || ms == nil {
		return err
	}
	ids = slices.DeleteFunc(ids, func(s string) bool { return slices.Contains(done, s) })
	b, _ := json.Marshal(ids)
	return ms.SetMeta(ctx, metaPending, string(b))
}

// ProcessingFingerprint identifies the current chunking and contextualizer
// settings; documents whose record hash ends in another one are stale.
func (e *Engine) ProcessingFingerprint() string { return e.processing }

// storeOnly reports whether the engine keeps no index (OpenStoreOnly).
func (e *Engine) storeOnly() bool { return e.opts.OpenMode == OpenStoreOnly }

// recordContextualizer records in the store, once per Engine and before its
// first commit of any document, the contextualizer the documents are
// committed with (driver.MetaContextualizer), for every path that commits.
// The caller holds writeMu.
func (e *Engine) recordContextualizer(ctx context.Context, docs int) error {
	ms, ok := e.store.(driver.MetaStore)
	if e.contextualizerRecorded || docs == 0 || !ok {
		return nil
	}
	id, err := driver.IdentifyContextualizer(e.opts.Contextualizer)
	if err != nil {
		return err
	}
	b, err := json.Marshal(id)
	if err != nil {
		return fmt.Errorf("store meta %s: %w", driver.MetaContextualizer, err)
	}
	if err := ms.SetMeta(ctx, driver.MetaContextualizer, string(b)); err != nil {
		return fmt.Errorf("store meta %s: %w", driver.MetaContextualizer, err)
	}
	e.contextualizerRecorded = true
	return nil
}
