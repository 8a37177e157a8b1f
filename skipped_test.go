package situate_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"testing"

	"github.com/situate/situate"
)

// A file skipped for its content is remembered by stamp: later runs do not
// read or report it while the stamp stays; a new stamp, a readable file and
// prune each forget it, and a passing I/O error is never remembered.
func TestSkippedFilesRemembered(t *testing.T) {
	ctx := context.Background()
	eng, st := openIndexEngine(t, &callContextualizer{name: "test:llm"})
	type file struct {
		stamp, text string
		bad         error // the reason the source skips it
		lasting     bool  // the reason lies in the content
	}
	files := map[string]*file{
		"ok.txt":    {stamp: "1:1", text: "warehouse contracts"},
		"img.png":   {stamp: "2:2", bad: errors.New("parse img.png: unsupported format: .png"), lasting: true},
		"nul.txt":   {stamp: "3:3", bad: errors.New("parse nul.txt: binary content"), lasting: true},
		"perm.txt":  {stamp: "4:4", bad: errors.New("read perm.txt: permission denied")},
		"later.txt": {stamp: "5:5", bad: errors.New("read later.txt: empty file"), lasting: true},
	}
	run := func(prune bool) (res situate.IndexResult, read []string) {
		t.Helper()
		src := func(ctx context.Context, f *situate.Feed) error {
			ids := make([]string, 0, len(files))
			for id := range files {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			for _, id := range ids {
				fl := files[id]
				if f.Unchanged(id, fl.stamp) || f.SkippedBefore(id, fl.stamp) {
					continue
				}
				read = append(read, id)
				if fl.bad != nil {
					f.SkipFile(id, fl.stamp, fl.bad, fl.lasting)
					continue
				}
				if err := f.Add(idxDoc(id, fl.text), fl.stamp); err != nil {
					return err
				}
			}
			return nil
		}
		res, err := eng.Index(ctx, src, situate.IndexOptions{Prune: prune})
		if err != nil {
			t.Fatal(err)
		}
		return res, read
	}
	check := func(step string, res situate.IndexResult, read []string, wantSkipped, wantBefore int, wantRead string) {
		t.Helper()
		if len(res.Skipped) != wantSkipped || res.SkippedBefore != wantBefore || fmt.Sprint(read) != wantRead {
			t.Errorf("%s: skipped %d, skipped before %d, read %v; want %d, %d, %s",
				step, len(res.Skipped), res.SkippedBefore, read, wantSkipped, wantBefore, wantRead)
		}
	}
	res, read := run(false)
	check("first run", res, read, 4, 0, "[img.png later.txt nul.txt ok.txt perm.txt]")
	res, read = run(false)
	check("rerun", res, read, 1, 3, "[perm.txt]")

	// The remembered skips survive the engine: they are in the store.
	eng.Close()
	eng = reopenIndexEngine(t, st, &callContextualizer{name: "test:llm"})
	res, read = run(false)
	check("reopened", res, read, 1, 3, "[perm.txt]")

	files["nul.txt"].stamp = "3:4" // touched: read again, still binary
	files["later.txt"] = &file{stamp: "5:6", text: "now with text"}
	res, read = run(false)
	check("changed stamps", res, read, 2, 1, "[later.txt nul.txt perm.txt]")
	if res.Added != 1 {
		t.Errorf("later.txt not added: %+v", res)
	}
	res, read = run(false)
	check("after change", res, read, 1, 2, "[perm.txt]")

	// A file skipped before that becomes readable with the same stamp
	// cannot happen; one that disappears is forgotten by a pruning run.
	delete(files, "img.png")
	res, read = run(true)
	check("prune", res, read, 1, 1, "[perm.txt]")
	files["img.png"] = &file{stamp: "2:2", bad: errors.New("parse img.png: unsupported format: .png"), lasting: true}
	res, read = run(false)
	check("back after prune", res, read, 2, 1, "[img.png perm.txt]")
}

// Prune keeps what a passing problem hid: a file that is there but could
// not be read keeps its document, a source that could not list part of
// itself (Feed.Partial) removes nothing and says so, and a file that is
// gone is removed.
func TestPruneKeepsWhatItCouldNotRead(t *testing.T) {
	ctx := context.Background()
	eng, _ := openIndexEngine(t, &callContextualizer{name: "test:llm"})
	type file struct {
		text    string
		problem error // set: the source reports the file as unreadable
	}
	files := map[string]file{"a.txt": {text: "apples"}, "b.txt": {text: "bananas"}, "sub/c.txt": {text: "cherries"}}
	run := func(partial error) situate.IndexResult {
		t.Helper()
		src := func(ctx context.Context, f *situate.Feed) error {
			if partial != nil {
				f.Partial(partial)
			}
			ids := slices.Sorted(maps.Keys(files))
			for _, id := range ids {
				fl := files[id]
				if fl.problem != nil {
					f.SkipFile(id, "1:1", fl.problem, false)
					continue
				}
				if err := f.Add(idxDoc(id, fl.text), ""); err != nil {
					return err
				}
			}
			return nil
		}
		res, err := eng.Index(ctx, src, situate.IndexOptions{Prune: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	docs := func() string {
		var ids []string
		for _, rec := range eng.Documents() {
			ids = append(ids, rec.ID)
		}
		slices.Sort(ids)
		return fmt.Sprint(ids)
	}
	run(nil)
	const all = "[a.txt b.txt sub/c.txt]"

	files["a.txt"] = file{problem: &fs.PathError{Op: "open", Path: "a.txt", Err: fs.ErrPermission}}
	if res := run(nil); res.Removed != 0 || docs() != all {
		t.Errorf("a file that could not be read: removed %d, documents %s; want 0, %s", res.Removed, docs(), all)
	}
	delete(files, "sub/c.txt") // hidden in a directory that could not be listed
	res := run(&fs.PathError{Op: "read dir", Path: "sub", Err: fs.ErrPermission})
	if !res.PruneWithheld || res.Removed != 0 || docs() != all {
		t.Errorf("a directory that could not be listed: withheld %v, removed %d, documents %s; want true, 0, %s",
			res.PruneWithheld, res.Removed, docs(), all)
	}
	files["a.txt"] = file{problem: &fs.PathError{Op: "open", Path: "a.txt", Err: fs.ErrNotExist}} // vanished while read
	if res := run(nil); res.PruneWithheld || res.Removed != 2 || docs() != "[b.txt]" {
		t.Errorf("a file gone and a directory gone: withheld %v, removed %d, documents %s; want false, 2, [b.txt]",
			res.PruneWithheld, res.Removed, docs())
	}
}
