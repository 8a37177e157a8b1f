package vector

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Groups returns the groups with at least one live vector, sorted.
func (ix *Index) Groups() ([]string, error) {
	s, err := ix.acquire()
	if err != nil {
		return nil, err
	}
	defer ix.release(s)
	seen := map[string]bool{}
	for _, v := range s.views {
		for r := range v.seg.rows {
			if !v.isDead(r) {
				seen[v.seg.groupName(r)] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for g := range seen {
		out = append(out, g)
	}
	sort.Strings(out)
	return out, nil
}

// FileStatus is the verdict on one file of an index directory.
type FileStatus struct {
	// Path is the file's path.
	Path string
	// Size is its size in bytes (0 when it is missing).
	Size int64
	// Err is nil when the file checks out; otherwise it wraps ErrCorrupt
	// (damaged or missing) or says why the file could not be read.
	Err error
}

// Verify checks the committed state of the index in dir without opening it
// for writing: the manifest's checksum and format, and every segment it
// names (present, checksums of header, payload and ID table, rows as the
// manifest says). It returns one FileStatus per file checked, the manifest
// first. A directory without a manifest holds no index: Verify returns no
// files and no error.
func Verify(dir string) ([]FileStatus, error) {
	mpath := filepath.Join(dir, manifestName)
	m, raw, err := readManifest(mpath)
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat(dir); serr != nil && !errors.Is(serr, os.ErrNotExist) {
			return nil, fmt.Errorf("vector verify: %w", serr)
		}
		return nil, nil
	}
	out := []FileStatus{{Path: mpath, Size: int64(len(raw)), Err: err}}
	if err != nil {
		return out, nil
	}
	for _, ms := range m.Segments {
		st := FileStatus{Path: filepath.Join(dir, ms.File)}
		if fi, err := os.Stat(st.Path); err == nil {
			st.Size = fi.Size()
		}
		seg, err := openSegment(dir, ms.File, m.Dim)
		if err == nil {
			if seg.rows != ms.Rows {
				err = fmt.Errorf("segment %s has %d rows, manifest says %d: %w", st.Path, seg.rows, ms.Rows, ErrCorrupt)
			}
			seg.acquire()
			seg.release()
		}
		st.Err = err
		out = append(out, st)
	}
	return out, nil
}

// Reset removes the index in dir, the directory included, so that the next
// Open of dir finds no index, as a repair does before rebuilding a damaged
// index from its source. It takes the write lock first (waiting up to
// opts.LockWait, like Open), so an index a writer holds is not removed
// under it. A missing directory is not an error.
func Reset(dir string, opts Options) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	lock, err := lockDir(dir, opts.lockWait())
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("vector reset: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("vector reset: %w", err)
	}
	return nil
}
