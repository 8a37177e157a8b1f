package situate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/vector"
)

// A shared store (Options.SharedStore) is written by many processes: servers
// behind a load balancer and workers that contextualize documents. The
// store is the only shared state. The indexes are derived data: each process
// keeps its own copy in its own directory (or in memory) and brings it up to
// the store with Sync, which compares every stored document's version and
// hash with the one the local indexes hold and re-indexes, from the stored
// chunks and contexts, only what changed. No model is called: contexts come
// from the store and vectors from its vector cache.
//
// What the local indexes hold is recorded in the directory's SYNC file,
// written after the indexes commit; the store's engine metadata (the
// pending journal, the index layout) is left alone, since another process's
// indexes are not this one's. A crash between an index commit and the SYNC
// file only makes the next Sync index a document again.
//
// With an index backend (Options.Backend) the index is shared as well:
// Sync only reloads the document records (titles, access lists, filters).
// A store-only engine (OpenStoreOnly, a worker) keeps no index and
// syncs nothing.

// syncFile records what a shared-store engine's local indexes hold.
const syncFile = "SYNC"

// syncState is the content of the SYNC file.
type syncState struct {
	// Layout and Embedder are how the local indexes were built; a change
	// rebuilds them.
	Layout   string `json:"layout"`
	Embedder string `json:"embedder,omitempty"`
	// Docs maps each document the indexes hold to its syncKey.
	Docs map[string]string `json:"docs"`
	// Stamp is the store's change stamp the indexes are synced to, and
	// StoreID the store's id (metaSharedID): an Open over the same store
	// reads only the changes since Stamp (ChangeLister), never the whole
	// document list.
	Stamp   string `json:"stamp,omitempty"`
	StoreID string `json:"store_id,omitempty"`
}

// metaSharedID names a shared store, so that local indexes synced to one
// store (the SYNC file's stamp) are never taken as synced to another that
// reached the same stamp (a database dropped and created again).
const metaSharedID = "shared.id"

// sharedID returns the store's id, setting a new random one when it has
// none; "" when the store keeps no metadata.
func (e *Engine) sharedID(ctx context.Context) (string, error) {
	ms, ok := e.store.(driver.MetaStore)
	if !ok {
		return "", nil
	}
	id, found, err := ms.Meta(ctx, metaSharedID)
	if err != nil || found && id != "" {
		return id, err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id = hex.EncodeToString(b[:])
	// Two processes may both set one: the loser's next Open reads the
	// whole document list once. A store that cannot be written (a read
	// replica) gets none: every Open then reads the list.
	if err := ms.SetMeta(ctx, metaSharedID, id); err != nil {
		e.log.Debug("shared store id not stored; opens will read every document", "err", err)
		return "", nil
	}
	return id, nil
}

// syncKey identifies one stored version of a document.
func syncKey(r DocumentRecord) string {
	return strconv.Itoa(r.Version) + " " + r.Hash
}

// SyncResult says what Sync did to the local indexes.
type SyncResult struct {
	// Indexed counts the documents (re-)indexed from the store; Removed
	// those the store no longer holds.
	Indexed, Removed int
}

func readSyncState(dir string) (syncState, error) {
	var st syncState
	b, err := os.ReadFile(filepath.Join(dir, syncFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("open engine: read %s: %w", filepath.Join(dir, syncFile), err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		// Damaged: the indexes are rebuilt from the store.
		return syncState{}, nil
	}
	return st, nil
}

// writeSync writes the SYNC file atomically; the caller holds writeMu.
func (e *Engine) writeSync() error {
	if e.shared.dir == "" || !e.shared.dirty {
		return nil
	}
	st := syncState{Layout: e.layout, Docs: e.shared.held, Stamp: e.shared.stamp, StoreID: e.shared.id}
	if e.opts.Embedder != nil {
		st.Embedder = e.opts.Embedder.Name()
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	path := filepath.Join(e.shared.dir, syncFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	e.shared.dirty = false
	return nil
}

// sharedState is a shared-store engine's record of its local indexes.
type sharedState struct {
	dir string
	// held maps each document the local indexes hold to its syncKey.
	held  map[string]string
	dirty bool
	// stamp is the store's ChangeStamp at the last complete Sync; id the
	// store's id (metaSharedID).
	stamp, id string
}

// openShared opens a shared-store engine: its local indexes in dir ("" in
// memory; none with StoreOnly), then Sync.
func (e *Engine) openShared(ctx context.Context, dir string) error {
	e.shared.held = map[string]string{}
	if e.storeOnly() {
		return nil
	}
	var st syncState
	if dir != "" {
		lock, err := lockWriter(dir, e.opts.lockWait())
		if err != nil {
			return err
		}
		e.lock = lock
		if st, err = readSyncState(dir); err != nil {
			return err
		}
	}
	embedder := ""
	if e.opts.Embedder != nil {
		embedder = e.opts.Embedder.Name()
	}
	reset := st.Layout != e.layout || st.Embedder != embedder
	if dir != "" && reset && exists(filepath.Join(dir, syncFile)) {
		e.log.Info("rebuilding the local indexes from the shared store", "dir", dir, "reason", "index layout or embedder changed")
	}
open:
	for _, spec := range enabledArms(e.opts) {
		a := &lexArm{spec: spec, weight: spec.weight(e.opts)}
		var err error
		if dir == "" {
			a.ix, err = bm25.New(spec.options(e))
		} else {
			a.dir = filepath.Join(dir, spec.dir)
			if reset {
				if err := bm25.Reset(a.dir, spec.options(e)); err != nil {
					return fmt.Errorf("open engine: %w", err)
				}
			}
			a.ix, err = bm25.Open(a.dir, spec.options(e))
			if errors.Is(err, bm25.ErrCorrupt) && !reset {
				e.log.Warn("index damaged, rebuilding the local indexes from the shared store", "index", a.dir, "err", err)
				e.closeIndexes()
				reset = true
				goto open
			}
		}
		if err != nil {
			return fmt.Errorf("open engine: %s index: %w", spec.dir, err)
		}
		e.arms = append(e.arms, a)
	}
	if e.opts.Embedder != nil && dir != "" {
		e.vecDir = filepath.Join(dir, vectorDirName)
		if reset {
			if err := vector.Reset(e.vecDir, e.vectorOptions(0)); err != nil {
				return fmt.Errorf("open engine: %w", err)
			}
		} else if exists(filepath.Join(e.vecDir, "MANIFEST")) {
			ix, err := vector.Open(e.vecDir, e.vectorOptions(0))
			if errors.Is(err, vector.ErrCorrupt) {
				e.log.Warn("index damaged, rebuilding the local indexes from the shared store", "index", e.vecDir, "err", err)
				e.closeIndexes()
				reset = true
				goto open
			}
			if err != nil {
				return fmt.Errorf("open engine: vector index: %w", err)
			}
			e.vec = ix
		}
	}
	if !reset {
		for id, k := range st.Docs {
			e.shared.held[id] = k
		}
	}
	e.shared.dir = dir
	e.shared.dirty = true
	if err := e.resumeSync(ctx, st, reset); err != nil {
		return err
	}
	if _, err := e.Sync(ctx); err != nil {
		return err
	}
	if !reset {
		// The SYNC file was trusted (and, with a ChangeLister, only the
		// changes since it read): Sync indexed only what it did not list,
		// so an index emptied or lost behind it would stay so.
		ok, err := e.sameChunkCount(ctx)
		if err != nil {
			return err
		}
		if !ok {
			// A commit may have landed between the two reads: sync once
			// more before calling the indexes wrong.
			if _, err := e.Sync(ctx); err != nil {
				return err
			}
			if ok, err = e.sameChunkCount(ctx); err != nil {
				return err
			}
		}
		if !ok {
			e.log.Warn("local indexes do not hold the shared store's chunks, rebuilding them", "dir", dir)
			e.closeIndexes()
			e.shared = sharedState{}
			e.syncedStamp.Store("")
			if err := os.Remove(filepath.Join(dir, syncFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("open engine: %w", err)
			}
			if e.lock != nil {
				e.lock.Close()
				e.lock = nil
			}
			return e.openShared(ctx, dir)
		}
	}
	return nil
}

// resumeSync sets the engine up to read only the store's changes since the
// SYNC file's stamp, when the local indexes were synced to this very store
// and the store lists changes (ChangeLister): then no document list is read
// on Open, and the records are read on first need (ensureDocs).
func (e *Engine) resumeSync(ctx context.Context, st syncState, reset bool) error {
	id, err := e.sharedID(ctx)
	if err != nil {
		return fmt.Errorf("open engine: %w", err)
	}
	e.shared.id = id
	if _, ok := e.store.(driver.ChangeLister); !ok || reset || e.shared.dir == "" || st.Stamp == "" || id == "" || st.StoreID != id {
		return nil
	}
	e.setSyncStamp(st.Stamp)
	e.shared.dirty = false // the SYNC file says it all until something changes
	return nil
}

// sameChunkCount reports whether every BM25 arm holds as many chunks as
// the store (true when the store does not count them).
func (e *Engine) sameChunkCount(ctx context.Context) (bool, error) {
	cc, ok := e.store.(driver.ChunkCounter)
	if !ok || len(e.arms) == 0 || e.arms[0].ix == nil {
		return true, nil
	}
	n, err := cc.ChunkCount(ctx)
	if err != nil {
		return false, fmt.Errorf("open engine: %w", err)
	}
	// Every arm holds one entry per chunk (an arm with nothing to say of a
	// chunk, the declarations arm of prose, holds it empty): an arm whose
	// files were lost opens empty and is caught here, not only the first.
	for _, a := range e.arms {
		if a.ix != nil && a.ix.Len() != n {
			return false, nil
		}
	}
	return true, nil
}

// closeIndexes closes the open indexes (to rebuild them).
func (e *Engine) closeIndexes() {
	for _, a := range e.arms {
		if a.ix != nil {
			a.ix.Close()
		}
	}
	e.arms = nil
	if e.vec != nil {
		e.vec.Close()
		e.vec = nil
	}
}

// Sync brings the Engine's view up to a shared store (Options.SharedStore):
// documents that other processes added, changed or deleted since the last
// Sync are indexed from their stored chunks and contexts, or removed. It
// reads the store's document list (one query) and, for each changed
// document, its chunks; a server calls it periodically. It is a no-op for
// an Engine over an unshared store, whose own commits are all there is.
func (e *Engine) Sync(ctx context.Context) (SyncResult, error) {
	var res SyncResult
	if !e.opts.SharedStore || e.storeOnly() {
		return res, nil
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	// The stamp is read before the list: a commit the list misses changes
	// it, and the next Sync looks again.
	var stamp string
	if cs, ok := e.store.(driver.ChangeStamper); ok {
		var err error
		if stamp, err = cs.ChangeStamp(ctx); err != nil {
			return res, fmt.Errorf("sync: %w", err)
		}
		if stamp != "" && stamp == e.shared.stamp {
			return res, e.writeSync()
		}
	}
	var (
		add    []DocumentRecord
		remove []string
		// records brings the Engine's records to the store's.
		records func()
	)
	if cl, ok := e.store.(driver.ChangeLister); ok && e.shared.stamp != "" {
		// Only what changed since the last Sync.
		ch, err := cl.DocumentChanges(ctx, e.shared.stamp)
		if err != nil {
			return res, fmt.Errorf("sync: %w", err)
		}
		stamp = ch.Stamp
		if e.opts.Backend != nil {
			// The index is shared too: only the records (titles,
			// filters) are this process's.
			e.mu.Lock()
			for _, r := range ch.Written {
				e.setDoc(r)
			}
			for _, id := range ch.Deleted {
				e.dropDoc(id)
			}
			e.mu.Unlock()
			e.setSyncStamp(stamp)
			return res, nil
		}
		for _, r := range ch.Written {
			if e.shared.held[r.ID] != syncKey(r) {
				add = append(add, r)
			}
		}
		for _, id := range ch.Deleted {
			if _, ok := e.shared.held[id]; ok {
				remove = append(remove, id)
			}
		}
		records = func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			for _, r := range ch.Written {
				e.setDoc(r)
			}
			for _, id := range ch.Deleted {
				e.dropDoc(id)
			}
		}
	} else {
		all, err := e.store.Documents(ctx)
		if err != nil {
			return res, fmt.Errorf("sync: %w", err)
		}
		if e.opts.Backend != nil {
			// The index is shared too: only the records (titles,
			// filters) are this process's.
			e.loadDocs(all)
			e.setSyncStamp(stamp)
			return res, nil
		}
		want := make(map[string]DocumentRecord, len(all))
		for _, r := range all {
			want[r.ID] = r
			if e.shared.held[r.ID] != syncKey(r) {
				add = append(add, r)
			}
		}
		for id := range e.shared.held {
			if _, ok := want[id]; !ok {
				remove = append(remove, id)
			}
		}
		records = func() {
			e.mu.RLock()
			same := len(e.docs) == len(all)
			for _, r := range all {
				if !same {
					break
				}
				prev, ok := e.docs[r.ID]
				same = ok && syncKey(prev) == syncKey(r)
			}
			e.mu.RUnlock()
			if !same {
				e.loadDocs(all)
			}
		}
	}
	// The records first, the indexes after: a search that finds a
	// document's new chunks must find its record too (a GET of a hit must
	// not be a 404), and filters must judge new content by its new access
	// list. Records ahead of the indexes are harmless: hits show the
	// store's text, and a document the store no longer holds is skipped.
	records()
	if len(add) == 0 && len(remove) == 0 {
		e.setSyncStamp(stamp)
		return res, e.writeSync()
	}

	const batchSize = 256
	parts := e.indexParts()
	newBatches := func() []partBatch {
		batches := make([]partBatch, len(parts))
		for i, p := range parts {
			batches[i] = p.newBatch()
		}
		return batches
	}
	batches := newBatches()
	for _, id := range remove {
		d := &stagedDoc{rec: DocumentRecord{ID: id}}
		for _, b := range batches {
			b.stage(d)
		}
	}
	flush := func(staged []DocumentRecord) error {
		for _, b := range batches {
			if err := b.apply(ctx); err != nil {
				return fmt.Errorf("sync: index: %w", err)
			}
		}
		for _, r := range staged {
			e.shared.held[r.ID] = syncKey(r)
		}
		e.shared.dirty = true
		batches = newBatches()
		return nil
	}
	var staged []DocumentRecord
	if len(remove) > 0 {
		if err := flush(nil); err != nil {
			return res, err
		}
		for _, id := range remove {
			delete(e.shared.held, id)
		}
		res.Removed = len(remove)
	}
	for _, r := range add {
		chunks, err := e.store.Chunks(ctx, r.ID)
		if errors.Is(err, ErrNotFound) {
			// Deleted since the list: out of the index; the next Sync
			// sees the deletion.
			chunks, err = nil, nil
		}
		if err != nil {
			return res, fmt.Errorf("sync: %w", err)
		}
		d := &stagedDoc{rec: r, chunks: chunks}
		if e.opts.Embedder != nil && len(chunks) > 0 {
			if d.vectors, err = e.storedEmbeddings(ctx, chunks); err != nil {
				return res, fmt.Errorf("sync: %w", err)
			}
		}
		for _, b := range batches {
			b.stage(d)
		}
		staged = append(staged, r)
		if len(staged) == batchSize {
			if err := flush(staged); err != nil {
				return res, err
			}
			res.Indexed += len(staged)
			staged = nil
		}
	}
	if err := flush(staged); err != nil {
		return res, err
	}
	res.Indexed += len(staged)
	e.setSyncStamp(stamp)
	if err := e.writeSync(); err != nil {
		return res, fmt.Errorf("sync: %w", err)
	}
	return res, nil
}

// storedVersion returns the version and hash of a document in a shared
// store (known is false when the store does not hold it).
func (e *Engine) storedVersion(ctx context.Context, id string) (rec DocumentRecord, known bool, err error) {
	rec, err = e.store.Document(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	return rec, true, nil
}

// setSyncStamp records the store's change stamp the Engine is synced to;
// the caller holds writeMu.
func (e *Engine) setSyncStamp(stamp string) {
	e.shared.stamp = stamp
	e.syncedStamp.Store(stamp)
}

// SyncIfChanged is Sync when the shared store changed since the last Sync,
// as its change stamp says (driver.ChangeStamper), and costs that one read
// when it did not: a server calls it before each request, so that a read
// sees every change committed before it by any process — an access list
// another server narrowed above all — not only those of its periodic Sync.
func (e *Engine) SyncIfChanged(ctx context.Context) (SyncResult, error) {
	if !e.opts.SharedStore || e.storeOnly() {
		return SyncResult{}, nil
	}
	cs, ok := e.store.(driver.ChangeStamper)
	if !ok {
		return SyncResult{}, nil
	}
	stamp, err := cs.ChangeStamp(ctx)
	if err != nil {
		return SyncResult{}, fmt.Errorf("sync: %w", err)
	}
	if synced, _ := e.syncedStamp.Load().(string); stamp != "" && stamp == synced {
		return SyncResult{}, nil
	}
	return e.Sync(ctx)
}
