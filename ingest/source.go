package ingest

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/situate/situate"
)

// SourceOptions configure Source.
type SourceOptions struct {
	Options
	// Stdin is read for the path "-", as one document with id StdinID
	// (default "stdin").
	Stdin   io.Reader
	StdinID string
	// SkipDir is a directory never indexed (the store's own).
	SkipDir string
	// Reread reads and reports again the files earlier runs skipped for
	// their content, even when they have not changed since.
	Reread bool
}

// Source returns the documents under paths as a situate.Source for
// Engine.Index: files and directories (walked as Walk does; a file the
// engine holds as it is, by size and modification time, is not read again),
// JSONL files (".jsonl"), and stdin for "-". A path of paths that does not
// exist or cannot be opened is the Source's error, before anything is
// read; files under a directory that cannot be read are reported to
// Feed.Skip with the FileError saying why; a file skipped for
// its content (binary, image, empty, broken...) is remembered by the engine
// and, while its size and modification time stay the same, not read or
// reported again (Feed.SkippedBefore).
func Source(paths []string, opts SourceOptions) situate.Source {
	return func(ctx context.Context, f *situate.Feed) error {
		var mu sync.Mutex
		stamps := map[string]string{}
		wo := opts.Options
		wo.Unchanged = func(id string, info fs.FileInfo) bool {
			stamp := situate.FileStamp(info)
			mu.Lock()
			stamps[id] = stamp
			mu.Unlock()
			return f.Unchanged(id, stamp) || !opts.Reread && f.SkippedBefore(id, skipStamp(stamp, wo))
		}
		add := func(doc situate.Document, err error) error {
			var fe *FileError
			switch {
			case errors.Is(err, ErrUnchanged):
				return nil
			case errors.As(err, &fe):
				if doc.ID == "" && fe.Op == opReadDir {
					// A directory that could not be listed: what is
					// under it is unknown to this run.
					f.Partial(err)
					return nil
				}
				if doc.ID == "" || fe.Line > 0 {
					f.Skip(err)
					return nil
				}
				mu.Lock()
				stamp := stamps[doc.ID]
				mu.Unlock()
				f.SkipFile(doc.ID, skipStamp(stamp, wo), err, lasting(err))
				return nil
			case err != nil:
				return err
			}
			mu.Lock()
			stamp := stamps[doc.ID]
			mu.Unlock()
			return f.Add(doc, stamp)
		}
		// A path the caller named that is not there, or cannot be read
		// (opening a directory needs its read permission), is an error of
		// the run, found before anything is read: as a skipped file, a typo
		// in it indexed nothing and let --prune remove every document.
		for _, p := range paths {
			if p == "-" {
				continue
			}
			r, err := os.Open(p)
			if err != nil {
				return &FileError{Op: "open", Path: p, Err: unwrapPathError(err)}
			}
			r.Close()
		}
		skipDir := ""
		if opts.SkipDir != "" {
			skipDir, _ = filepath.Abs(opts.SkipDir)
		}
		for _, p := range paths {
			switch {
			case p == "-":
				id := opts.StdinID
				if id == "" {
					id = "stdin"
				}
				stdin := opts.Stdin
				if stdin == nil {
					stdin = os.Stdin
				}
				doc, err := ParseReader(ctx, stdin, id, id, wo)
				if err := add(doc, err); err != nil {
					return err
				}
			case strings.HasSuffix(strings.ToLower(p), ".jsonl"):
				r, err := os.Open(p)
				if err != nil {
					return &FileError{Op: "open", Path: p, Err: unwrapPathError(err)}
				}
				err = JSONL(ctx, r, p, add)
				r.Close()
				if err != nil {
					return err
				}
			default:
				if abs, _ := filepath.Abs(p); skipDir != "" && abs == skipDir {
					continue
				}
				if err := Walk(ctx, []string{p}, wo, add); err != nil {
					return err
				}
			}
		}
		return nil
	}
}
