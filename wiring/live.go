package wiring

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate"
)

// NewLiveReader opens a LiveReader over the store directory dir; open
// opens the reader (OpenReader) each time the store changed; log (nil:
// discard) hears why a reopen or sync failed.
func NewLiveReader(open func() (*situate.Engine, Store, error), dir string, log *slog.Logger) (*LiveReader, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &LiveReader{open: open, dir: dir, log: log}
	if err := r.reopen(); err != nil {
		return nil, err
	}
	return r, nil
}

// LiveReader is a read-only engine that stays fresh, as "situate mcp"
// serves it: it takes no lock, so an index run goes on beside it, and a
// use that finds the store changed since the engine was opened (the
// database, its WAL or the BM25 directory) reopens it, at most once a
// second. Over a shared store the engine syncs its own indexes instead.
type LiveReader struct {
	open func() (*situate.Engine, Store, error)
	dir  string
	log  *slog.Logger

	mu     sync.RWMutex
	eng    *situate.Engine
	store  Store
	stamp  string
	opened time.Time
}

// storeStamp changes whenever another process commits to the store.
func (r *LiveReader) storeStamp() string {
	var b strings.Builder
	for _, name := range []string{StoreFile, StoreFile + "-wal", "bm25"} {
		if fi, err := os.Stat(filepath.Join(r.dir, name)); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", name, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

// reopen replaces the engine; the caller holds r.mu for writing (or owns r).
func (r *LiveReader) reopen() error {
	stamp := r.storeStamp()
	eng, store, err := r.open()
	if err != nil {
		return err
	}
	r.closeLocked()
	r.eng, r.store, r.stamp, r.opened = eng, store, stamp, time.Now()
	return nil
}

// Engine returns the current engine, reopened first when the store
// changed; release ends the caller's use of it.
func (r *LiveReader) Engine() (*situate.Engine, func(), error) {
	r.mu.RLock()
	if o := r.eng.Options(); o.SharedStore && o.OpenMode != situate.OpenReader {
		// A shared store (--store-url): the engine syncs its own
		// indexes with what other processes committed (a cheap check
		// when nothing changed).
		if _, err := r.eng.Sync(context.Background()); err != nil {
			r.log.Warn("mcp: sync with the shared store", "err", err)
		}
		return r.eng, r.mu.RUnlock, nil
	}
	if r.stamp == r.storeStamp() || time.Since(r.opened) < time.Second {
		return r.eng, r.mu.RUnlock, nil
	}
	r.mu.RUnlock()
	r.mu.Lock()
	if r.stamp != r.storeStamp() && time.Since(r.opened) >= time.Second {
		if err := r.reopen(); err != nil {
			// Keep serving what was open; say why it is not fresh.
			r.log.Warn("mcp: reopen the store", "err", err)
			r.opened = time.Now()
		}
	}
	r.mu.Unlock()
	r.mu.RLock()
	return r.eng, r.mu.RUnlock, nil
}

func (r *LiveReader) closeLocked() {
	if r.eng != nil {
		r.eng.Close()
		r.store.Close()
		r.eng, r.store = nil, nil
	}
}

// Close closes the engine and its store.
func (r *LiveReader) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeLocked()
}
