package vector

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// The manifest names the committed segments. Version 2 is
// manifestMagic, the JSON document, and the CRC-32C of both (4 bytes, little
// endian); version 1 (plain JSON, no checksum) is still read, and rewritten
// by the next commit.
const (
	manifestName    = "MANIFEST"
	manifestMagic   = "SITVMAN2"
	lockName        = "LOCK"
	manifestVersion = 2
)

// ErrClosed is returned by calls on a closed Index.
var ErrClosed = errors.New("vector: index closed")

// ErrReadOnly is returned by the writes of an index opened with
// OpenReadOnly.
var ErrReadOnly = errors.New("vector: index is open read-only")

// ErrLocked is wrapped by Open's error when another process held the
// directory's write lock for longer than Options.LockWait; the error says
// which process, as that process recorded it in the LOCK file.
var ErrLocked = errors.New("vector: index is locked by another writer")

// Item is one vector to index.
type Item struct {
	// ID identifies the vector; unique across the index.
	ID string
	// Group is the unit of replacement (situate uses the document ID).
	// Empty means the group passed to Replace.
	Group  string
	Vector []float32
}

// view is a segment as one snapshot sees it: its rows minus tombstones.
type view struct {
	seg  *segment
	dead []uint64 // tombstone bitset over rows; nil when none; copy-on-write
	live int
}

func (v view) isDead(row int) bool {
	return v.dead != nil && v.dead[row>>6]&(1<<(uint(row)&63)) != 0
}

// snapshot is an immutable state of the index that searches read while a
// writer prepares the next one.
type snapshot struct {
	refs  int64 // guarded by Index.mu for increments; see acquire/release
	views []view
	live  int
}

// loc addresses a row.
type loc struct {
	seg *segment
	row int
}

// Index is a dense vector index with exact and binary-quantized search.
// Search may be called concurrently with itself and with one writer
// (Replace, ReplaceBatch, Delete, Compact); writers are serialised.
type Index struct {
	opts Options
	dir  string // "" for an in-memory index
	lock *os.File
	// readOnly: opened by OpenReadOnly; writes fail with ErrReadOnly.
	readOnly bool

	mu     sync.Mutex // guards snap, its refs, closed
	snap   *snapshot
	closed bool

	wmu    sync.Mutex // serialises writers; guards the fields below
	ids    map[string]loc
	groups map[string][]loc
	next   uint64 // next segment number
}

type manifest struct {
	Version  int               `json:"version"`
	Dim      int               `json:"dim"`
	Metric   string            `json:"metric"`
	Next     uint64            `json:"next"`
	Segments []manifestSegment `json:"segments"`
}

type manifestSegment struct {
	File string   `json:"file"`
	Rows int      `json:"rows"`
	Dead []uint32 `json:"dead,omitempty"` // tombstoned rows, ascending
}

// New returns an empty in-memory index.
func New(opts Options) (*Index, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ix := &Index{opts: o, ids: map[string]loc{}, groups: map[string][]loc{}}
	ix.snap = &snapshot{refs: 1}
	return ix, nil
}

// Open opens the index in dir for writing, creating it if dir holds none.
// The process holds an exclusive lock on dir (the LOCK file) until Close,
// waiting up to Options.LockWait for another writer to release it. Segment
// files and manifest temporaries left by a crash, which the manifest does
// not reference, are removed: the index reopens in its last committed
// state. A damaged manifest or segment, or a segment the manifest names that
// is missing, is an error wrapping ErrCorrupt that names the file.
func Open(dir string, opts Options) (*Index, error) {
	if !littleEndian {
		return nil, errors.New("vector open: persistent indexes need a little-endian machine")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("vector open %s: %w", dir, err)
	}
	lf, err := lockDir(dir, opts.lockWait())
	if err != nil {
		return nil, err
	}
	ix, _, err := open(dir, opts, false)
	if err != nil {
		lf.Close()
		return nil, err
	}
	ix.lock = lf
	if slices.ContainsFunc(ix.current().views, func(v view) bool { return v.seg.version < segVersion }) {
		// Segments of an older format work (version 1 computes its
		// first-pass coefficients at every open, version 2 has no payload
		// checksum): one compaction rewrites them. If it fails (disk
		// full), they still work.
		_ = ix.Compact()
	}
	return ix, nil
}

// readRetries bounds how often OpenReadOnly starts over when a writer
// replaced the manifest while it was being read.
const readRetries = 50

// OpenReadOnly opens the last committed state of the index in dir for
// searching. It takes no lock and writes nothing, so any number of readers
// run beside one writer, each seeing the commit that was current when it
// opened. A segment that vanishes while being opened (a writer merged it
// away) makes it read the new manifest and start over. A directory without
// an index opens as an empty index of opts.Dim (which may then be 0).
// Writes return ErrReadOnly.
func OpenReadOnly(dir string, opts Options) (*Index, error) {
	if !littleEndian {
		return nil, errors.New("vector open: persistent indexes need a little-endian machine")
	}
	for attempt := 0; ; attempt++ {
		ix, raw, err := open(dir, opts, true)
		if err == nil {
			return ix, nil
		}
		var missing *missingSegmentError
		if !errors.As(err, &missing) || attempt >= readRetries {
			return nil, err
		}
		cur, rerr := os.ReadFile(filepath.Join(dir, manifestName))
		if rerr == nil && string(cur) == string(raw) {
			return nil, err
		}
	}
}

// segmentName matches the segment files a manifest may name.
func validSegmentName(n string) bool {
	rest, ok := strings.CutPrefix(n, "seg-")
	if !ok {
		return false
	}
	num, ok := strings.CutSuffix(rest, ".vec")
	if !ok || num == "" || len(num) > 20 {
		return false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// readManifest reads and checks the manifest at path. raw is its bytes.
func readManifest(path string) (m manifest, raw []byte, err error) {
	raw, err = os.ReadFile(path)
	if err != nil {
		return m, nil, err
	}
	body, v1 := raw, false
	switch {
	case strings.HasPrefix(string(raw), manifestMagic):
		if len(raw) < len(manifestMagic)+4 {
			return m, raw, fmt.Errorf("vector open %s: manifest truncated: %w", path, ErrCorrupt)
		}
		n := len(raw) - 4
		if crc32.Checksum(raw[:n], castagnoli) != binary.LittleEndian.Uint32(raw[n:]) {
			return m, raw, fmt.Errorf("vector open %s: manifest checksum mismatch: %w", path, ErrCorrupt)
		}
		body = raw[len(manifestMagic):n]
	case len(raw) > 0 && raw[0] == '{':
		v1 = true // JSON alone
	default:
		return m, raw, fmt.Errorf("vector open %s: not a manifest (bad header): %w", path, ErrCorrupt)
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return m, raw, fmt.Errorf("vector open %s: %v: %w", path, err, ErrCorrupt)
	}
	if m.Version != 1 && m.Version != manifestVersion {
		return m, raw, fmt.Errorf("vector open %s: version %d, want 1 or %d: %w", path, m.Version, manifestVersion, ErrCorrupt)
	}
	if (m.Version == 1) != v1 {
		return m, raw, fmt.Errorf("vector open %s: version %d in a file of another format: %w", path, m.Version, ErrCorrupt)
	}
	if m.Dim <= 0 || m.Dim > maxDim {
		return m, raw, fmt.Errorf("vector open %s: dimension %d: %w", path, m.Dim, ErrCorrupt)
	}
	for i, ms := range m.Segments {
		if !validSegmentName(ms.File) {
			return m, raw, fmt.Errorf("vector open %s: segment %d: bad file name %q: %w", path, i, ms.File, ErrCorrupt)
		}
		if ms.Rows < 0 {
			return m, raw, fmt.Errorf("vector open %s: segment %s: %d rows: %w", path, ms.File, ms.Rows, ErrCorrupt)
		}
	}
	return m, raw, nil
}

func open(dir string, opts Options, readOnly bool) (*Index, []byte, error) {
	mpath := filepath.Join(dir, manifestName)
	m, raw, err := readManifest(mpath)
	if errors.Is(err, os.ErrNotExist) {
		// A writer's Open writes the first manifest before any segment:
		// segments without one mean the manifest was lost.
		if segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.vec")); len(segs) > 0 {
			return nil, nil, fmt.Errorf("vector open: %s is missing (the directory holds %d segment files): %w", mpath, len(segs), ErrCorrupt)
		}
		if opts.Dim == 0 && !readOnly {
			return nil, nil, fmt.Errorf("vector open %s: no index there, and Options.Dim is 0", dir)
		}
		o, err := opts.withDefaults()
		if readOnly && opts.Dim == 0 {
			o, err = (Options{Dim: 1, Metric: opts.Metric}).withDefaults()
			o.Dim = 0
		}
		if err != nil {
			return nil, nil, err
		}
		ix := &Index{opts: o, dir: dir, ids: map[string]loc{}, groups: map[string][]loc{}, next: 1, readOnly: readOnly}
		ix.snap = &snapshot{refs: 1}
		if readOnly {
			return ix, nil, nil
		}
		if err := ix.writeManifest(nil); err != nil {
			return nil, nil, err
		}
		return ix, nil, ix.removeOrphans(nil)
	}
	if err != nil {
		var perr *fs.PathError
		if errors.As(err, &perr) {
			return nil, raw, fmt.Errorf("vector open: %w", err)
		}
		return nil, raw, err
	}
	if opts.Dim == 0 {
		opts.Dim = m.Dim
	}
	if opts.Dim != m.Dim {
		return nil, raw, fmt.Errorf("vector open %s: Options.Dim %d, index dimension %d", mpath, opts.Dim, m.Dim)
	}
	if opts.Metric == "" {
		opts.Metric = m.Metric
	}
	if opts.Metric != m.Metric {
		return nil, raw, fmt.Errorf("vector open %s: Options.Metric %q, index metric %q", mpath, opts.Metric, m.Metric)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, raw, fmt.Errorf("vector open %s: %w", mpath, err)
	}
	ix := &Index{opts: o, dir: dir, ids: map[string]loc{}, groups: map[string][]loc{}, next: m.Next, readOnly: readOnly}
	s := &snapshot{refs: 1}
	fail := func(err error) (*Index, []byte, error) {
		for _, v := range s.views {
			v.seg.release()
		}
		return nil, raw, err
	}
	keep := map[string]bool{}
	for _, ms := range m.Segments {
		seg, err := openSegment(dir, ms.File, o.Dim)
		if err != nil {
			var missing *missingSegmentError
			if errors.As(err, &missing) {
				return fail(fmt.Errorf("vector open: segment %s named by %s is missing: %w", missing.path, mpath, err))
			}
			return fail(fmt.Errorf("vector open: %w", err))
		}
		seg.acquire()
		v := view{seg: seg, live: seg.rows}
		s.views = append(s.views, v)
		if seg.rows != ms.Rows {
			return fail(fmt.Errorf("vector open %s: segment %s has %d rows, manifest says %d: %w", mpath, ms.File, seg.rows, ms.Rows, ErrCorrupt))
		}
		if len(ms.Dead) > 0 {
			v.dead = make([]uint64, (seg.rows+63)/64)
			for _, r := range ms.Dead {
				if int(r) >= seg.rows {
					return fail(fmt.Errorf("vector open %s: segment %s: dead row %d of %d: %w", mpath, ms.File, r, seg.rows, ErrCorrupt))
				}
				if !v.isDead(int(r)) {
					v.dead[r>>6] |= 1 << (r & 63)
					v.live--
				}
			}
			s.views[len(s.views)-1] = v
		}
		s.live += v.live
		keep[ms.File] = true
	}
	ix.snap = s
	if err := ix.rebuildMaps(s); err != nil {
		return fail(fmt.Errorf("vector open %s: %w: %w", mpath, err, ErrCorrupt))
	}
	if !readOnly {
		if err := ix.removeOrphans(keep); err != nil {
			return fail(err)
		}
	}
	return ix, raw, nil
}

// removeOrphans deletes segment files and temporaries the manifest does
// not reference (left by a crash or an interrupted compaction).
func (ix *Index) removeOrphans(keep map[string]bool) error {
	ents, err := os.ReadDir(ix.dir)
	if err != nil {
		return fmt.Errorf("vector open %s: %w", ix.dir, err)
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, ".tmp") || (strings.HasPrefix(n, "seg-") && !keep[n]) {
			if err := os.Remove(filepath.Join(ix.dir, n)); err != nil {
				return fmt.Errorf("vector open: remove orphan: %w", err)
			}
		}
	}
	return nil
}

// rebuildMaps recomputes the writer's ID and group maps from s.
func (ix *Index) rebuildMaps(s *snapshot) error {
	ix.ids = make(map[string]loc, s.live)
	ix.groups = map[string][]loc{}
	for _, v := range s.views {
		for r := range v.seg.rows {
			if v.isDead(r) {
				continue
			}
			id := v.seg.ids[r]
			if prev, dup := ix.ids[id]; dup {
				return fmt.Errorf("ID %q live twice (groups %q and %q)", id, prev.seg.groupName(prev.row), v.seg.groupName(r))
			}
			l := loc{v.seg, r}
			ix.ids[id] = l
			g := v.seg.groupName(r)
			ix.groups[g] = append(ix.groups[g], l)
		}
	}
	return nil
}

func (ix *Index) writeManifest(views []view) error {
	m := manifest{Version: manifestVersion, Dim: ix.opts.Dim, Metric: ix.opts.Metric, Next: ix.next, Segments: []manifestSegment{}}
	for _, v := range views {
		ms := manifestSegment{File: v.seg.name, Rows: v.seg.rows}
		if v.dead != nil {
			for w, x := range v.dead {
				for x != 0 {
					ms.Dead = append(ms.Dead, uint32(w*64+bits.TrailingZeros64(x)))
					x &= x - 1
				}
			}
		}
		m.Segments = append(m.Segments, ms)
	}
	js, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("vector commit: %w", err)
	}
	b := append([]byte(manifestMagic), js...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	path := filepath.Join(ix.dir, manifestName)
	tmp := path + ".tmp"
	// The os package's errors name the file (and a rename both files).
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("vector commit: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("vector commit: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("vector commit: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("vector commit: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("vector commit: %w", err)
	}
	return syncDir(ix.dir)
}

// acquire returns the current snapshot, referenced until release.
func (ix *Index) acquire() (*snapshot, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil, ErrClosed
	}
	ix.snap.refs++
	return ix.snap, nil
}

func (ix *Index) release(s *snapshot) {
	ix.mu.Lock()
	s.refs--
	done := s.refs == 0
	ix.mu.Unlock()
	if done {
		for _, v := range s.views {
			v.seg.release()
		}
	}
}

// install makes s current; every segment in s must already be acquired
// for it.
func (ix *Index) install(s *snapshot) {
	s.refs = 1
	ix.mu.Lock()
	old := ix.snap
	ix.snap = s
	ix.mu.Unlock()
	ix.release(old)
}

// current returns the current snapshot without a reference; only writers
// (holding wmu) may use it, since only they replace it.
func (ix *Index) current() *snapshot {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.snap
}

// Len returns the number of live vectors.
func (ix *Index) Len() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.snap.live
}

// Dim returns the index dimension.
func (ix *Index) Dim() int { return ix.opts.Dim }

// Metric returns the index metric.
func (ix *Index) Metric() string { return ix.opts.Metric }

// checkVector validates a vector for ID id ("query" for a query) and
// returns it ready to store or search: a normalised copy under cosine.
func (ix *Index) checkVector(op, id string, v []float32) ([]float32, error) {
	if len(v) != ix.opts.Dim {
		return nil, fmt.Errorf("vector %s: %s: dimension %d, index dimension %d", op, id, len(v), ix.opts.Dim)
	}
	var sum float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("vector %s: %s: component %d is %v", op, id, i, x)
		}
		sum += float64(x) * float64(x)
	}
	if ix.opts.Metric != MetricCosine {
		return v, nil
	}
	if sum == 0 {
		return nil, fmt.Errorf("vector %s: %s: zero vector has no cosine", op, id)
	}
	inv := 1 / math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, nil
}

// batchRows is a rowSource over validated items.
type batchRows struct {
	vecs   [][]float32
	ids    []string
	groups []string
}

func (b *batchRows) len() int { return len(b.ids) }
func (b *batchRows) row(i int) ([]float32, string, string) {
	return b.vecs[i], b.ids[i], b.groups[i]
}

// Replace atomically replaces every vector of group with items (none:
// the group is deleted). An item's Group must be empty or group.
func (ix *Index) Replace(group string, items []Item) error {
	return ix.ReplaceBatch(map[string][]Item{group: items})
}

// Delete removes every vector of group.
func (ix *Index) Delete(group string) error {
	return ix.ReplaceBatch(map[string][]Item{group: nil})
}

// ReplaceBatch replaces several groups in one commit: either all of them
// are replaced or, on error, none.
func (ix *Index) ReplaceBatch(batch map[string][]Item) error {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if ix.isClosed() {
		return ErrClosed
	}
	if ix.readOnly {
		return ErrReadOnly
	}
	names := make([]string, 0, len(batch))
	for g := range batch {
		names = append(names, g)
	}
	sort.Strings(names)
	rows := &batchRows{}
	seen := map[string]string{}
	for _, g := range names {
		for i, it := range batch[g] {
			if it.Group != "" && it.Group != g {
				return fmt.Errorf("vector replace %q: items[%d] (ID %q): Group %q differs", g, i, it.ID, it.Group)
			}
			if it.ID == "" {
				return fmt.Errorf("vector replace %q: items[%d]: empty ID", g, i)
			}
			if pg, dup := seen[it.ID]; dup {
				return fmt.Errorf("vector replace %q: ID %q given twice (also in group %q)", g, it.ID, pg)
			}
			seen[it.ID] = g
			if l, ok := ix.ids[it.ID]; ok {
				// The ID may move only from a group this batch replaces.
				if og := l.seg.groupName(l.row); og != g {
					if _, replaced := batch[og]; !replaced {
						return fmt.Errorf("vector replace %q: ID %q already belongs to group %q", g, it.ID, og)
					}
				}
			}
			v, err := ix.checkVector("replace", fmt.Sprintf("ID %q", it.ID), it.Vector)
			if err != nil {
				return err
			}
			rows.vecs = append(rows.vecs, v)
			rows.ids = append(rows.ids, it.ID)
			rows.groups = append(rows.groups, g)
		}
	}
	cur := ix.current()
	views := slices.Clone(cur.views)
	idx := map[*segment]int{}
	for i, v := range views {
		idx[v.seg] = i
	}
	cloned := map[*segment]bool{}
	changed := false
	for _, g := range names {
		for _, l := range ix.groups[g] {
			i := idx[l.seg]
			v := &views[i]
			if !cloned[l.seg] {
				if v.dead == nil {
					v.dead = make([]uint64, (l.seg.rows+63)/64)
				} else {
					v.dead = slices.Clone(v.dead)
				}
				cloned[l.seg] = true
			}
			v.dead[l.row>>6] |= 1 << (uint(l.row) & 63)
			v.live--
			changed = true
		}
	}
	var seg *segment
	if rows.len() > 0 {
		var err error
		if seg, err = ix.newSegment(rows); err != nil {
			return err
		}
		views = append(views, view{seg: seg, live: seg.rows})
		changed = true
	}
	if !changed {
		return nil
	}
	// Drop segments with no live rows left.
	var dropped []*segment
	views = slices.DeleteFunc(views, func(v view) bool {
		if v.live == 0 {
			dropped = append(dropped, v.seg)
			return true
		}
		return false
	})
	if err := ix.commit(views, dropped); err != nil {
		if seg != nil {
			seg.obsolete.Store(true)
			seg.acquire()
			seg.release()
		}
		return err
	}
	for _, g := range names {
		for _, l := range ix.groups[g] {
			delete(ix.ids, l.seg.ids[l.row])
		}
		delete(ix.groups, g)
	}
	if seg != nil {
		for r := range seg.rows {
			l := loc{seg, r}
			ix.ids[seg.ids[r]] = l
			g := seg.groupName(r)
			ix.groups[g] = append(ix.groups[g], l)
		}
	}
	if len(views) > ix.opts.MaxSegments {
		if err := ix.merge(false); err != nil {
			return fmt.Errorf("vector replace: committed, but merging segments failed: %w", err)
		}
	}
	return nil
}

func (ix *Index) isClosed() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.closed
}

// newSegment writes (or, in memory, builds) a segment from src.
func (ix *Index) newSegment(src rowSource) (*segment, error) {
	if ix.dir == "" {
		return newMemSegment(ix.opts.Dim, src), nil
	}
	name := fmt.Sprintf("seg-%012d.vec", ix.next)
	ix.next++
	return writeSegment(ix.dir, name, ix.opts.Dim, src)
}

// commit persists views as the new state and installs it. dropped are
// segments of the previous state that views no longer reference.
func (ix *Index) commit(views []view, dropped []*segment) error {
	if ix.dir != "" {
		if err := ix.writeManifest(views); err != nil {
			return err
		}
	}
	s := &snapshot{views: views}
	for _, v := range views {
		v.seg.acquire()
		s.live += v.live
	}
	for _, d := range dropped {
		d.obsolete.Store(true)
	}
	ix.install(s)
	return nil
}

// viewRows is a rowSource over the live rows of some views.
type viewRows struct {
	locs []loc
}

func (r *viewRows) len() int { return len(r.locs) }
func (r *viewRows) row(i int) ([]float32, string, string) {
	l := r.locs[i]
	return l.seg.vec(l.row), l.seg.ids[l.row], l.seg.groupName(l.row)
}

// Compact rewrites all live vectors into one segment, dropping tombstoned
// rows and their files.
func (ix *Index) Compact() error {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if ix.isClosed() {
		return ErrClosed
	}
	if ix.readOnly {
		return ErrReadOnly
	}
	return ix.merge(true)
}

// merge rewrites segments into one: all of them (all) or, when there are
// more than MaxSegments, the smallest half plus any that are mostly dead.
func (ix *Index) merge(all bool) error {
	cur := ix.current()
	views := cur.views
	if len(views) == 0 || (all && len(views) == 1 && views[0].dead == nil && views[0].seg.version == segVersion) {
		return nil
	}
	pick := make([]bool, len(views))
	if all {
		for i := range pick {
			pick[i] = true
		}
	} else {
		order := make([]int, len(views))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return views[order[a]].live < views[order[b]].live })
		for _, i := range order[:len(views)-ix.opts.MaxSegments/2+1] {
			pick[i] = true
		}
		for i, v := range views {
			if v.live*2 < v.seg.rows {
				pick[i] = true
			}
		}
	}
	src := &viewRows{}
	var keep []view
	var dropped []*segment
	for i, v := range views {
		if !pick[i] {
			keep = append(keep, v)
			continue
		}
		dropped = append(dropped, v.seg)
		for r := range v.seg.rows {
			if !v.isDead(r) {
				src.locs = append(src.locs, loc{v.seg, r})
			}
		}
	}
	if src.len() > 0 {
		seg, err := ix.newSegment(src)
		if err != nil {
			return fmt.Errorf("vector compact: %w", err)
		}
		keep = append(keep, view{seg: seg, live: seg.rows})
		if err := ix.commit(keep, dropped); err != nil {
			seg.obsolete.Store(true)
			seg.acquire()
			seg.release()
			return fmt.Errorf("vector compact: %w", err)
		}
	} else if err := ix.commit(keep, dropped); err != nil {
		return fmt.Errorf("vector compact: %w", err)
	}
	return ix.rebuildMaps(ix.current())
}

// Close releases the index. Searches in flight finish on their snapshot;
// later calls return ErrClosed.
func (ix *Index) Close() error {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.mu.Lock()
	if ix.closed {
		ix.mu.Unlock()
		return nil
	}
	ix.closed = true
	s := ix.snap
	ix.mu.Unlock()
	ix.release(s)
	ix.ids, ix.groups = nil, nil
	if ix.lock != nil {
		err := ix.lock.Close() // releases the flock
		ix.lock = nil
		if err != nil {
			return fmt.Errorf("vector close: %w", err)
		}
	}
	return nil
}
