package situate

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/situate/situate/driver"
)

// metaSkipped keys, in the store's meta, the files earlier runs skipped for
// a reason their content gives (binary, image, empty, broken...): a JSON
// object from document id to "stamp\treason". A later run that finds such a
// file with the same stamp neither reads it nor reports it again.
const metaSkipped = "index.skipped-files"

// skipMemory is what an Index run knows of the files skipped before. It is
// loaded at the first use and written once at the end of the run when it
// changed. Its fields are guarded by indexRun.mu.
type skipMemory struct {
	loaded bool
	files  map[string]string // id -> stamp "\t" reason
	seen   map[string]bool   // ids the source reported skipped in this run
	dirty  bool
}

// skipsLocked returns the remembered skips, loading them once; r.mu is held.
func (r *indexRun) skipsLocked() map[string]string {
	m := &r.skips
	if !m.loaded {
		m.loaded = true
		m.files = map[string]string{}
		m.seen = map[string]bool{}
		if ms, ok := r.e.store.(driver.MetaStore); ok {
			if v, found, err := ms.Meta(r.ctx, metaSkipped); err == nil && found {
				if err := json.Unmarshal([]byte(v), &m.files); err != nil {
					// A damaged entry only costs reading those files again.
					m.files = map[string]string{}
					m.dirty = true
				}
			}
		}
	}
	return m.files
}

// SkippedBefore reports whether the file of document id, whose stamp is
// stamp, was skipped by an earlier run (see SkipFile with remember) and has
// not changed since: the source need not read it, and the run counts it in
// IndexResult.SkippedBefore instead of reporting it again. The stamp should
// also cover the source's settings that decide skips (a size limit, say).
func (f *Feed) SkippedBefore(id, stamp string) bool {
	if stamp == "" {
		return false
	}
	r := f.r
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.skipsLocked()[id]
	if !ok || len(v) <= len(stamp) || v[:len(stamp)] != stamp || v[len(stamp)] != '\t' {
		return false
	}
	r.skips.seen[id] = true
	r.res.SkippedBefore++
	return true
}

// SkipFile reports, like Skip, a file the source could not use as document
// id. With remember (the reason lies in the file's content, not in a
// passing I/O error) and a stamp, later runs skip the file unread and
// unreported while its stamp stays the same (see SkippedBefore).
func (f *Feed) SkipFile(id, stamp string, err error, remember bool) {
	r := f.r
	if id != "" && !remember && !errors.Is(err, fs.ErrNotExist) {
		// There but unreadable (permissions, an I/O error): prune keeps
		// its document rather than lose it to a passing problem.
		r.mu.Lock()
		r.unreadable[id] = true
		r.mu.Unlock()
	}
	if id != "" && stamp != "" {
		r.mu.Lock()
		files := r.skipsLocked()
		r.skips.seen[id] = true
		if remember {
			if v := stamp + "\t" + err.Error(); files[id] != v {
				files[id] = v
				r.skips.dirty = true
			}
		} else if _, ok := files[id]; ok {
			delete(files, id)
			r.skips.dirty = true
		}
		r.mu.Unlock()
	}
	f.Skip(err)
}

// forgetSkipLocked drops a remembered skip for a document the source could
// read this time; r.mu is held. Sources that ask SkippedBefore have loaded
// the memory by then; others never skipped anything worth forgetting.
func (r *indexRun) forgetSkipLocked(id string) {
	if !r.skips.loaded {
		return
	}
	if _, ok := r.skips.files[id]; ok {
		delete(r.skips.files, id)
		r.skips.dirty = true
	}
}

// saveSkips writes the remembered skips when the run changed them. With
// prune (a complete run), skips the source did not report again are
// dropped: their files are gone or no longer selected.
func (r *indexRun) saveSkips(prune bool) {
	r.mu.Lock()
	m := &r.skips
	if !m.loaded {
		r.mu.Unlock()
		return
	}
	if prune {
		for id := range m.files {
			if !m.seen[id] {
				delete(m.files, id)
				m.dirty = true
			}
		}
	}
	if !m.dirty {
		r.mu.Unlock()
		return
	}
	b, err := json.Marshal(m.files)
	m.dirty = false
	r.mu.Unlock()
	ms, ok := r.e.store.(driver.MetaStore)
	if !ok || err != nil {
		return
	}
	if err := ms.SetMeta(context.WithoutCancel(r.ctx), metaSkipped, string(b)); err != nil {
		r.e.log.Warn("remember skipped files", "err", err)
	}
}
