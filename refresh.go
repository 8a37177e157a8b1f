package situate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// A read-only Engine searches the commit that was last when it opened. A
// long-lived reader (a server, an MCP session) sees later commits through
// refresh: before a search it compares the indexes' manifests with those it
// opened, and when a writer committed since, it opens the new commit and
// swaps it in while no search runs.

// readerView guards the parts of a read-only Engine that a refresh swaps.
type readerView struct {
	mu sync.RWMutex // searches hold it shared, a swap exclusive
	// dir is the index directory ("" in memory: nothing to refresh).
	dir string
	// stamp is the manifests' state the Engine opened.
	stamp string
	// refreshing serialises refreshes.
	refreshing sync.Mutex
}

// manifestStamp describes the manifests of the indexes in dir: it changes
// with every commit.
func manifestStamp(dir string) string {
	var s string
	for _, name := range append(lexicalDirNames(), vectorDirName) {
		fi, err := os.Stat(filepath.Join(dir, name, "MANIFEST"))
		if err != nil {
			s += name + ":-;"
			continue
		}
		s += fmt.Sprintf("%s:%d:%d;", name, fi.ModTime().UnixNano(), fi.Size())
	}
	return s
}

func lexicalDirNames() []string {
	names := make([]string, len(lexicalArms))
	for i, a := range lexicalArms {
		names[i] = a.dir
	}
	return names
}

// Refresh makes a read-only Engine see the last commit when a writer
// committed since it opened (or last refreshed); Search calls it. It is a
// no-op for a writer, whose own commits are always visible. When the new
// commit cannot be opened, the Engine keeps searching the one it has and
// Refresh returns the error.
func (e *Engine) Refresh(ctx context.Context) error {
	if !e.readOnly || e.view.dir == "" {
		return nil
	}
	current := func() bool {
		stamp := manifestStamp(e.view.dir)
		e.view.mu.RLock()
		defer e.view.mu.RUnlock()
		return stamp == e.view.stamp
	}
	// Most calls find nothing new: they check without queueing behind one
	// another (a reader's every search, Document and list asks).
	if current() {
		return nil
	}
	e.view.refreshing.Lock()
	defer e.view.refreshing.Unlock()
	if current() {
		return nil // another caller refreshed meanwhile
	}
	n, err := Open(ctx, e.view.dir, e.store, e.opts)
	if err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	e.view.mu.Lock()
	oldArms, oldVec := e.arms, e.vec
	e.arms = n.arms
	e.vecMu.Lock()
	e.vec, e.vecDir = n.vec, n.vecDir
	e.vecMu.Unlock()
	e.mu.Lock()
	e.docs, e.analyzers, e.docsLoaded = n.docs, n.analyzers, n.docsLoaded
	e.docsGen++
	e.mu.Unlock()
	e.view.stamp = n.view.stamp
	e.view.mu.Unlock()
	for _, a := range oldArms {
		a.ix.Close()
	}
	if oldVec != nil {
		oldVec.Close()
	}
	return nil
}
