package bm25

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Groups returns the groups with at least one live doc, sorted.
func (ix *Index) Groups() []string {
	s := ix.snap.Load()
	if s == nil {
		return nil
	}
	seen := map[string]bool{}
	for i := range s.segs {
		ss := &s.segs[i]
		for d := 0; d < ss.seg.numDocs; d++ {
			if g := ss.seg.group(uint32(d)); !ss.deleted(uint32(d)) && !seen[g] {
				seen[strings.Clone(g)] = true // the list outlives the segment's bytes
			}
		}
	}
	out := make([]string, 0, len(seen))
	for g := range seen {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
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
// names (present, of the recorded size and checksum, decodable). It returns
// one FileStatus per file checked, the manifest first. A directory without
// a manifest holds no index: Verify returns no files and no error. The error
// is for a directory that cannot be read at all.
func Verify(dir string) ([]FileStatus, error) {
	path := filepath.Join(dir, manifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(dir); serr != nil && !errors.Is(serr, fs.ErrNotExist) {
			return nil, fmt.Errorf("bm25 verify: %w", serr)
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bm25 verify: %w", err)
	}
	_, entries, err := readManifest(path, data)
	out := []FileStatus{{Path: path, Size: int64(len(data)), Err: err}}
	if err != nil {
		return out, nil
	}
	for _, e := range entries {
		st := FileStatus{Path: filepath.Join(dir, e.name)}
		if fi, err := os.Stat(st.Path); err == nil {
			st.Size = fi.Size()
		}
		seg, err := openEntry(dir, path, e)
		if err == nil {
			if err = seg.verifyAll(); err != nil {
				err = fmt.Errorf("bm25 verify: %s: %w", st.Path, err)
			}
		}
		st.Err = err
		out = append(out, st)
	}
	return out, nil
}

// Reset empties the index in dir so that the next Open starts from no
// documents, as a repair does before rebuilding a damaged index from its
// source. It takes the write lock (waiting up to opts.LockWait, like Open),
// removes the manifest and every segment and temporary, and releases the
// lock. A missing directory is not an error.
func Reset(dir string, opts Options) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	lock, err := lockDir(dir, opts.lockWait())
	if err != nil {
		return err
	}
	defer lock.Close()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("bm25 reset: %w", err)
	}
	// The manifest first: from then on the directory holds no index even if
	// removing the segments fails half-way.
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("bm25 reset: %w", err)
	}
	for _, e := range entries {
		if n := e.Name(); n != lockName && n != manifestName {
			if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
				return fmt.Errorf("bm25 reset: %w", err)
			}
		}
	}
	return syncDir(dir)
}

// Len returns the number of live docs; it reads no document.
func (ix *Index) Len() int {
	s := ix.snap.Load()
	if s == nil {
		return 0
	}
	n := 0
	for i := range s.segs {
		n += s.segs[i].seg.numDocs - s.segs[i].delCount
	}
	return n
}

// Segments returns the number of segments of the current state.
func (ix *Index) Segments() int {
	s := ix.snap.Load()
	if s == nil {
		return 0
	}
	return len(s.segs)
}

// Analyzers returns the names of the analyzers that hold at least one
// token of a live doc, sorted; it reads no document.
func (ix *Index) Analyzers() []string {
	s := ix.snap.Load()
	if s == nil {
		return nil
	}
	var out []string
	for k := range s.parts {
		if !slices.Contains(out, k.analyzer) {
			out = append(out, k.analyzer)
		}
	}
	sort.Strings(out)
	return out
}
