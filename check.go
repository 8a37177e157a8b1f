package situate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/vector"
)

// CheckFile is the verdict on one index file.
type CheckFile struct {
	Path string
	Size int64
	// Err is nil when the file checks out; it wraps bm25.ErrCorrupt or
	// vector.ErrCorrupt when the file is damaged or missing.
	Err error
}

// CheckArm is what Check found in one index (a BM25 arm or the vectors).
type CheckArm struct {
	// Name is the arm's directory name in the store: bm25, bm25-code,
	// bm25-pairs, bm25-defs or vectors.
	Name, Dir string
	// Files are the arm's files as checked (manifest first); none when the
	// arm holds no index.
	Files []CheckFile
	// Docs is how many chunks (vectors) the arm holds, and Groups how many
	// documents, when readable.
	Docs, Groups int
	// Missing are stored documents with chunks that the arm lacks; Extra
	// are documents the arm holds that the store does not have.
	Missing, Extra []string
	// WantDocs is how many chunks the store has for the arm.
	WantDocs int
	// Err is an error that kept the arm from being checked at all.
	Err error
}

// Damaged reports whether a file of the arm failed its check.
func (a CheckArm) Damaged() bool {
	for _, f := range a.Files {
		if f.Err != nil {
			return true
		}
	}
	return a.Err != nil
}

// OK reports whether the arm is sound and holds exactly the store's
// documents and chunks.
func (a CheckArm) OK() bool {
	return !a.Damaged() && len(a.Missing) == 0 && len(a.Extra) == 0 && a.Docs == a.WantDocs
}

// CheckReport is the result of Check.
type CheckReport struct {
	// Store is the store's file when known; StoreProblems what its
	// integrity check found (nil: sound, or no IntegrityChecker), StoreErr
	// an error that kept it from being checked.
	StoreProblems []string
	StoreErr      error
	StoreChecked  bool
	// Documents and Chunks are the store's counts.
	Documents, Chunks int
	// Pending are documents whose index update was interrupted (the
	// engine's journal); the next writer repairs them.
	Pending []string
	Arms    []CheckArm
	// Repaired names the arms Repair rebuilt; RepairErr is why a repair
	// failed.
	Repaired  []string
	RepairErr error
}

// OK reports whether nothing is damaged or out of line.
func (r CheckReport) OK() bool {
	if len(r.StoreProblems) > 0 || r.StoreErr != nil || r.RepairErr != nil || len(r.Pending) > 0 {
		return false
	}
	for _, a := range r.Arms {
		if !a.OK() {
			return false
		}
	}
	return true
}

// Check verifies a store and the indexes in dir without writing anything:
// the store's integrity check (when it implements IntegrityChecker), every
// file of every index arm opts configures (checksums, format, presence),
// and that every arm holds exactly the store's documents and chunk count.
// It runs beside a writer: index arms are read at their last commit. The
// error is for a store that cannot be read at all.
func Check(ctx context.Context, dir string, store driver.Store, opts Options) (CheckReport, error) {
	var r CheckReport
	if ic, ok := store.(driver.IntegrityChecker); ok {
		r.StoreChecked = true
		r.StoreProblems, r.StoreErr = ic.IntegrityCheck(ctx, false)
	}
	records, err := store.Documents(ctx)
	if err != nil {
		if r.StoreErr == nil {
			r.StoreErr = err
		}
		return r, nil
	}
	want := map[string]bool{}
	r.Documents = len(records)
	for _, rec := range records {
		r.Chunks += rec.Chunks
		if rec.Chunks > 0 {
			want[rec.ID] = true
		}
	}
	if ms, ok := store.(driver.MetaStore); ok {
		v, found, err := ms.Meta(ctx, metaPending)
		if err != nil {
			r.StoreErr = errors.Join(r.StoreErr, err)
		} else if found && v != "" {
			if err := json.Unmarshal([]byte(v), &r.Pending); err != nil {
				r.StoreErr = errors.Join(r.StoreErr, fmt.Errorf("pending journal: %w", err))
			}
		}
	}
	if dir == "" {
		return r, nil
	}
	for _, arm := range checkArms(ctx, dir, store, opts) {
		a := CheckArm{Name: arm.name, Dir: filepath.Join(dir, arm.name), WantDocs: r.Chunks}
		if arm.pairs {
			a.WantDocs = -1 // the pair arm holds a doc per chunk with word pairs only
		}
		var groups []string
		if arm.vectors {
			groups, a.Docs, a.Files, a.Err = checkVectorArm(a.Dir)
		} else {
			groups, a.Docs, a.Files, a.Err = checkLexicalArm(a.Dir)
		}
		if a.WantDocs < 0 {
			a.WantDocs = a.Docs
		}
		if !a.Damaged() {
			a.Groups = len(groups)
			a.Missing, a.Extra = diffSets(want, groups)
		}
		r.Arms = append(r.Arms, a)
	}
	return r, nil
}

// checkTarget is an index Check verifies.
type checkTarget struct {
	name string
	// vectors: the dense arm; pairs: a lexical arm of derived docs, whose
	// chunk count is its own.
	vectors, pairs bool
}

// checkArms lists the lexical arms opts configures (lexicalArms), and the
// vectors when the store records an embedder (their directory must then
// hold them).
func checkArms(ctx context.Context, dir string, store driver.Store, opts Options) []checkTarget {
	var arms []checkTarget
	for _, spec := range enabledArms(opts) {
		arms = append(arms, checkTarget{name: spec.dir, pairs: spec.docs != nil})
	}
	emb := opts.Embedder != nil
	if ms, ok := store.(driver.MetaStore); ok {
		if v, found, err := ms.Meta(ctx, metaEmbedder); err == nil && found && v != "" {
			emb = true
		}
	}
	if emb {
		arms = append(arms, checkTarget{name: vectorDirName, vectors: true})
	}
	return arms
}

func checkLexicalArm(dir string) (groups []string, docs int, files []CheckFile, err error) {
	st, err := bm25.Verify(dir)
	if err != nil {
		return nil, 0, nil, err
	}
	for _, f := range st {
		files = append(files, CheckFile{Path: f.Path, Size: f.Size, Err: f.Err})
		if f.Err != nil {
			return nil, 0, files, nil
		}
	}
	ix, err := bm25.OpenReadOnly(dir, bm25.Options{})
	if err != nil {
		return nil, 0, files, err
	}
	defer ix.Close()
	return ix.Groups(), ix.Stats().Docs, files, nil
}

func checkVectorArm(dir string) (groups []string, docs int, files []CheckFile, err error) {
	st, err := vector.Verify(dir)
	if err != nil {
		return nil, 0, nil, err
	}
	for _, f := range st {
		files = append(files, CheckFile{Path: f.Path, Size: f.Size, Err: f.Err})
		if f.Err != nil {
			return nil, 0, files, nil
		}
	}
	if len(st) == 0 {
		return nil, 0, nil, nil
	}
	ix, err := vector.OpenReadOnly(dir, vector.Options{})
	if err != nil {
		return nil, 0, files, err
	}
	defer ix.Close()
	groups, err = ix.Groups()
	return groups, ix.Len(), files, err
}

// diffSets returns the members of want missing from have, and those of
// have not in want, each sorted.
func diffSets(want map[string]bool, have []string) (missing, extra []string) {
	seen := make(map[string]bool, len(have))
	for _, g := range have {
		seen[g] = true
		if !want[g] {
			extra = append(extra, g)
		}
	}
	for id := range want {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}

// CheckBackend compares an index backend with the store: every stored
// document with chunks must be held at its stored version, and no other
// document at all. The arm it returns is named "backend"; Docs and
// WantDocs count documents (the backend reports no chunk count), Missing
// are documents the backend lacks or holds at another version. Opening a
// writing Engine over the backend (Open with Options.Backend) repairs it.
func CheckBackend(ctx context.Context, store driver.Store, b driver.IndexBackend) CheckArm {
	a := CheckArm{Name: "backend"}
	records, err := store.Documents(ctx)
	if err != nil {
		a.Err = err
		return a
	}
	held, err := b.Versions(ctx)
	if err != nil {
		a.Err = err
		return a
	}
	want := map[string]bool{}
	var have []string
	for _, r := range records {
		if r.Chunks == 0 {
			continue
		}
		a.WantDocs++
		want[r.ID] = true
		if v, ok := held[r.ID]; ok && v != r.Version {
			delete(held, r.ID) // at another version: counts as missing
		}
	}
	for id := range held {
		have = append(have, id)
	}
	a.Docs, a.Groups = len(held), len(held)
	a.Missing, a.Extra = diffSets(want, have)
	return a
}

// Repair checks the store like Check and rebuilds from it every index arm
// that is damaged or does not hold exactly the store's documents: the arm
// is emptied (under its write lock) and the engine, opened over the store,
// rebuilds it — the vectors by re-embedding the stored chunks with
// opts.Embedder, whose vector cache normally answers every text. A damaged
// store is not touched: the indexes cannot be rebuilt from it. It returns
// the report of a Check run after the repair, with Repaired naming the arms
// rebuilt.
func Repair(ctx context.Context, dir string, store driver.Store, opts Options) (CheckReport, error) {
	r, err := Check(ctx, dir, store, opts)
	if err != nil || dir == "" {
		return r, err
	}
	if len(r.StoreProblems) > 0 || r.StoreErr != nil {
		r.RepairErr = fmt.Errorf("repair: the store is damaged; indexes are rebuilt only from a sound store")
		return r, nil
	}
	if opts.SharedStore {
		return repairShared(ctx, dir, store, opts, r)
	}
	var rebuilt []string
	for _, a := range r.Arms {
		if a.OK() {
			continue
		}
		var err error
		if a.Name == vectorDirName {
			if opts.Embedder == nil {
				r.RepairErr = errors.Join(r.RepairErr, fmt.Errorf("repair %s: no embedder to rebuild the vectors with", a.Dir))
				continue
			}
			err = vector.Reset(a.Dir, vector.Options{})
		} else {
			err = bm25.Reset(a.Dir, bm25.Options{})
		}
		if err != nil {
			r.RepairErr = errors.Join(r.RepairErr, fmt.Errorf("repair: %w", err))
			continue
		}
		rebuilt = append(rebuilt, a.Name)
	}
	if len(rebuilt) == 0 && len(r.Pending) == 0 {
		return r, nil
	}
	// Opening the engine rebuilds the emptied arms from the store and
	// applies the pending journal.
	return reopenAndCheck(ctx, dir, store, opts, r, "rebuild", rebuilt)
}

// reopenAndCheck opens an Engine over the store and closes it, which
// brings its indexes to the store, and checks again: the report says what
// was repaired (rebuilt) and what failed (step names the repair in an error).
func reopenAndCheck(ctx context.Context, dir string, store driver.Store, opts Options, r CheckReport, step string, rebuilt []string) (CheckReport, error) {
	eng, err := Open(ctx, dir, store, opts)
	if err != nil {
		r.RepairErr = errors.Join(r.RepairErr, fmt.Errorf("repair: %s %s: %w", step, strings.Join(rebuilt, ", "), err))
		return r, nil
	}
	if err := eng.Close(); err != nil {
		r.RepairErr = errors.Join(r.RepairErr, fmt.Errorf("repair: %w", err))
	}
	after, err := Check(ctx, dir, store, opts)
	if err != nil {
		return r, err
	}
	after.Repaired = rebuilt
	after.RepairErr = r.RepairErr
	return after, nil
}

// repairShared brings a shared store's local indexes (see Sync) to the
// store: an open syncs them; a damaged arm makes it rebuild them all, from
// the store, with no SYNC file to resume from.
func repairShared(ctx context.Context, dir string, store driver.Store, opts Options, r CheckReport) (CheckReport, error) {
	var rebuilt []string
	damaged := false
	for _, a := range r.Arms {
		if !a.OK() {
			rebuilt = append(rebuilt, a.Name)
			damaged = damaged || a.Damaged()
		}
	}
	if len(rebuilt) == 0 {
		return r, nil
	}
	if damaged {
		if err := os.Remove(filepath.Join(dir, syncFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.RepairErr = fmt.Errorf("repair: %w", err)
			return r, nil
		}
	}
	return reopenAndCheck(ctx, dir, store, opts, r, "sync", rebuilt)
}
