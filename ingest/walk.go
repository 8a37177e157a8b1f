package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/situate/situate"
)

// Walk visits the files under each root (a file or a directory) and calls fn
// once per file: with the parsed Document, or with a *FileError when the
// file is skipped (unreadable, empty, too large, binary, unsupported,
// ignored files are not reported; a skipped file's Document has only ID and
// Path set, a problem with a directory's has neither). fn's error stops the walk and is
// returned. Walk itself returns an error only for invalid options, a
// cancelled ctx or fn's error; problems with roots are passed to fn.
//
// Directories are walked recursively in sorted order of the resulting ids
// (byte order of the relative slash path); .git, .situate and the other
// DefaultSkipDirs are never entered, and other names starting with "." are
// skipped unless Options.Hidden is set. Ignore files are honoured per directory
// like git does. Symbolic links that lead out of the root are followed, each
// file or directory once however many links lead to it; a link to a path
// inside the root is skipped, since its target is indexed under its own path
// (a "latest -> v2" link would otherwise index every document twice). A link
// leading back to one of its own ancestor directories is reported once with
// ErrSymlinkLoop.
func Walk(ctx context.Context, roots []string, opts Options, fn func(doc situate.Document, err error) error) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	for _, root := range roots {
		if err := ctx.Err(); err != nil {
			return err
		}
		w := &walker{ctx: ctx, opts: opts, fn: fn, seen: map[fileID]bool{}}
		if err := w.root(root); err != nil {
			return err
		}
	}
	return nil
}

type walker struct {
	ctx  context.Context
	opts Options
	fn   func(situate.Document, error) error
	// realRoot is the root with its symbolic links resolved; seen holds
	// the files and directories walked, so that a second way to one of
	// them (a link, a hard link) is not walked again.
	realRoot string
	seen     map[fileID]bool
}

// linksInside reports whether the symbolic link at path leads to a path
// inside the root, which is walked under its own path.
func (w *walker) linksInside(path string) bool {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false // reported by the caller's stat
	}
	rel, err := filepath.Rel(w.realRoot, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// visited reports whether fi was walked before, and marks it walked.
func (w *walker) visited(fi fs.FileInfo) bool {
	fid, ok := idOf(fi)
	if !ok {
		return false
	}
	if w.seen[fid] {
		return true
	}
	w.seen[fid] = true
	return false
}

// opReadDir is the FileError.Op of a directory that could not be listed.
const opReadDir = "read dir"

func (w *walker) report(path, op string, err error) error {
	return w.fn(situate.Document{}, &FileError{Path: path, Op: op, Err: err})
}

func (w *walker) root(root string) error {
	fi, err := os.Stat(root)
	if err != nil {
		return w.report(root, "stat", unwrapPathError(err))
	}
	if !fi.IsDir() {
		id := filepath.Base(root)
		if !selected(id, w.opts.Include, w.opts.Exclude) {
			return nil
		}
		return w.file(root, id, fi)
	}
	if w.realRoot, err = filepath.EvalSymlinks(root); err != nil {
		return w.report(root, "stat", unwrapPathError(err))
	}
	var ancestors []fileID
	if fid, ok := idOf(fi); ok {
		ancestors = append(ancestors, fid)
	}
	return w.dir(root, "", ancestors, nil)
}

type entry struct {
	name string
	path string
	id   string
	fi   fs.FileInfo
	dir  bool
	err  error // stat error (broken symlink, permission)
	link bool
}

// MaxDepth bounds directory nesting below a root. It stops symlink loops on
// systems without inode numbers and pathological trees everywhere.
const MaxDepth = 256

// dir walks the directory at path whose id is dirID ("" for the root).
func (w *walker) dir(path, dirID string, ancestors []fileID, ignores ignoreStack) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if strings.Count(dirID, "/") >= MaxDepth {
		return w.report(path, "walk", fmt.Errorf("directory nested deeper than %d levels (symlink loop?)", MaxDepth))
	}
	des, err := os.ReadDir(path)
	if err != nil {
		// Report and keep whatever entries could be read.
		if rerr := w.report(path, opReadDir, unwrapPathError(err)); rerr != nil || len(des) == 0 {
			return rerr
		}
	}
	// Ignore files of this directory apply to it and everything below.
	var own *ignoreFile
	for _, name := range w.opts.ignoreFiles() {
		data, err := os.ReadFile(filepath.Join(path, name))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				if rerr := w.report(filepath.Join(path, name), "read", unwrapPathError(err)); rerr != nil {
					return rerr
				}
			}
			continue
		}
		if own == nil {
			own = &ignoreFile{dir: dirID}
		}
		own.rules = append(own.rules, parseIgnore(data)...)
	}
	if own != nil {
		ignores = append(slices.Clip(ignores), own)
	}
	entries := make([]entry, 0, len(des))
	for _, de := range des {
		name := de.Name()
		e := entry{name: name, path: filepath.Join(path, name), id: joinID(dirID, name)}
		e.link = de.Type()&fs.ModeSymlink != 0
		if e.link {
			e.fi, e.err = os.Stat(e.path)
		} else {
			e.fi, e.err = de.Info()
		}
		e.dir = e.err == nil && e.fi.IsDir()
		entries = append(entries, e)
	}
	// Sort by id so that the visiting order is the ids' byte order: a
	// directory sorts as "name/".
	key := func(e entry) string {
		if e.dir {
			return e.name + "/"
		}
		return e.name
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(key(a), key(b)) })
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if e.dir && slices.Contains(DefaultSkipDirs, e.name) {
			continue
		}
		if !w.opts.Hidden && strings.HasPrefix(e.name, ".") {
			continue
		}
		if ignores.ignored(e.id, e.dir) {
			continue
		}
		if err := checkName(e.name); err != nil {
			// Once for a directory, not once per file under it.
			if err := w.report(e.path, "walk", err); err != nil {
				return err
			}
			continue
		}
		if e.err != nil {
			op := "stat"
			if e.link {
				op = "follow symlink"
			}
			if err := w.report(e.path, op, unwrapPathError(e.err)); err != nil {
				return err
			}
			continue
		}
		if e.dir {
			if prunedDir(e.id, w.opts.Exclude) {
				continue
			}
			fid, ok := idOf(e.fi)
			if ok && slices.Contains(ancestors, fid) {
				if err := w.report(e.path, "walk", fmt.Errorf("%w: leads back to an ancestor directory", ErrSymlinkLoop)); err != nil {
					return err
				}
				continue
			}
			if e.link && w.linksInside(e.path) || w.visited(e.fi) {
				continue
			}
			next := ancestors
			if ok {
				next = append(slices.Clip(ancestors), fid)
			}
			if err := w.dir(e.path, e.id, next, ignores); err != nil {
				return err
			}
			continue
		}
		if !e.fi.Mode().IsRegular() {
			continue // devices, sockets, pipes: never documents
		}
		if slices.Contains(w.opts.ignoreFiles(), e.name) {
			continue
		}
		if e.link && w.linksInside(e.path) || w.visited(e.fi) {
			continue
		}
		if !selected(e.id, w.opts.Include, w.opts.Exclude) {
			continue
		}
		if err := w.file(e.path, e.id, e.fi); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) file(path, id string, fi fs.FileInfo) error {
	if w.opts.Unchanged != nil && w.opts.Unchanged(id, fi) {
		// Not read at all: the caller knows this file as it is.
		return w.fn(situate.Document{ID: id, Path: path}, ErrUnchanged)
	}
	doc, err := parseFileInfo(w.ctx, path, id, fi.Size(), w.opts)
	if err != nil {
		if ctxErr := w.ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return w.fn(situate.Document{ID: id, Path: path}, err)
	}
	return w.fn(doc, nil)
}

func joinID(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
