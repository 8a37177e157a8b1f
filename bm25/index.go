package bm25

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/situate/situate/analysis"
)

// ErrClosed is returned by every method of a closed Index.
var ErrClosed = errors.New("bm25: index is closed")

// Doc is one indexed unit, usually a chunk.
type Doc struct {
	// ID is unique in the index (a chunk key).
	ID string
	// Group is the unit of replacement and deletion (the document id). Empty
	// means the group passed to Replace.
	Group string
	// Lang is the ISO 639-1 language of the text; empty means detect it.
	// Ignored when Options.Analyzer is set.
	Lang string
	// Fields maps field names (Options.Fields) to text.
	Fields map[string]string
	// Attrs are per-doc attributes handed to Filter.Accept. The index keeps
	// the map: do not modify it afterwards.
	Attrs map[string]string
}

// Query is a disjunctive (OR) query: one clause per unique analysed term,
// boosted by the number of times the term occurs in the query.
type Query struct {
	Text string
	// K is the number of results; zero means DefaultK.
	K int
	// Fields, when not nil, replaces the fields' default weights; fields it
	// does not name are not searched.
	Fields map[string]float64
	Filter *Filter
	// Lang, when set, analyses the query only as this language and searches
	// only documents of that language's analyzer. Ignored when
	// Options.Analyzer is set.
	Lang string
	// WithoutGroups leaves Result.Group empty, for a caller that knows
	// each ID's group (a chunk key holds its document's id): reading the
	// group tables costs cache misses for every result.
	WithoutGroups bool
	// Unordered returns the same results (the top K by score, ties broken
	// by ID) in no particular order, for a caller that combines lists by
	// ID and orders the combination itself: ordering K results compares
	// IDs wherever scores tie.
	Unordered bool
	// Into, when its capacity holds the results, receives them instead of
	// a new slice (its elements are overwritten): a caller that searches
	// again and again can reuse one slice. The results' strings never
	// point into it.
	Into []Result
	// IDBytes, when not nil, is a buffer the results' strings are copied
	// into instead of a new one: *IDBytes is emptied, grown if it must be,
	// and left holding the strings, which point into it. The caller may
	// reuse the buffer only once it no longer needs the results' strings;
	// a caller that searches again and again and keeps few results (a
	// fusion of several lists) saves the allocation of every result's ID.
	IDBytes *[]byte
}

// Filter restricts a search. It is applied while scoring, so K allowed
// results are returned whenever K allowed matches exist.
type Filter struct {
	// Groups, when not nil, is the set of groups allowed.
	Groups map[string]bool
	// Accept, when not nil, is called once per candidate doc; attrs must not
	// be modified, and id, group and attrs are valid only during the call
	// (they point into the index's files: clone what you keep). It must be
	// safe for concurrent use if Search is called concurrently with the
	// same Filter.
	Accept func(id, group string, attrs map[string]string) bool
}

// Result is one match. Score is Lucene's float32 score, widened.
type Result struct {
	ID, Group string
	Score     float64
}

// Index is a BM25 inverted index. All methods are safe for concurrent use;
// writes are serialised, and every search sees one committed state.
type Index struct {
	opts     Options
	k1, b    float32
	fieldIdx map[string]int
	dir      string // "" for an in-memory index
	readOnly bool   // opened by OpenReadOnly: writes fail with ErrReadOnly

	snap atomic.Pointer[snapshot]

	mu      sync.Mutex // serialises writers
	closed  bool
	lock    interface{ Close() error }
	gen     uint64
	nextSeg uint64
	ids     *idIndex    // nil until the first write
	groups  *groupIndex // nil until the first write

	anMu      sync.Mutex
	analyzers map[string]analysis.Analyzer

	dense denseBudget // of the segments' dense term frequencies
}

type docRef struct {
	seg *segment
	doc uint32
}

// New returns an empty in-memory index.
func New(opts Options) (*Index, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ix := &Index{
		opts:      o,
		k1:        float32(o.K1),
		b:         float32(o.B),
		fieldIdx:  map[string]int{},
		analyzers: map[string]analysis.Analyzer{},
	}
	for i, f := range o.Fields {
		ix.fieldIdx[f.Name] = i
	}
	ix.dense.max = max(o.DenseBytes, 0)
	if o.Analyzer != "" {
		if _, err := ix.analyzer(o.Analyzer); err != nil {
			return nil, fmt.Errorf("bm25 options: Analyzer: %w", err)
		}
	}
	ix.snap.Store(newSnapshot(ix, nil, 0))
	return ix, nil
}

// Batch collects replacements and deletions applied atomically by Apply.
// For a group named more than once, the last operation wins.
type Batch struct {
	ops   map[string][]Doc // nil slice = delete
	order []string
	// pre holds the groups' docs analysed ahead (ReplaceAnalyzed).
	pre map[string]*Analyzed
}

// Analyzed is one group's docs analysed ahead of Apply by Index.Analyze.
type Analyzed struct {
	ix    *Index
	group string
	docs  []Doc
	an    []analyzedDoc
}

// Analyze analyses a group's docs, on the caller's goroutine, for a later
// Batch.ReplaceAnalyzed on this index. A writer that prepares documents on
// several goroutines analyses them there, so that Apply, which runs one at
// a time, only inverts and writes them. Apply still validates the docs as
// it does Replace's; the segment it writes is the same byte for byte. The
// result holds the docs' terms compactly, not their texts, so that many can
// wait for Apply.
func (ix *Index) Analyze(group string, docs []Doc) (*Analyzed, error) {
	return ix.AnalyzeSeen(group, docs, "", nil)
}

// AnalyzeSeen is Analyze that also hands seen, for each doc whose field
// text was analysed (in one piece: a text under 1 MiB), the doc's index in
// docs, the analyzer's name and the field's terms in the analyzer's order,
// empty ones included: what analysis.Analyzer.Analyze returns for the text.
// A writer that builds another index from the same terms (situate's
// word-pair arm) is spared analysing the text a second time. The terms are
// the caller's.
func (ix *Index) AnalyzeSeen(group string, docs []Doc, field string, seen func(doc int, analyzer string, terms []string)) (*Analyzed, error) {
	a := &Analyzed{ix: ix, group: group, docs: make([]Doc, len(docs)), an: make([]analyzedDoc, len(docs))}
	counts, _ := countsPool.Get().(map[string]uint32)
	if counts == nil {
		counts = map[string]uint32{}
	}
	defer countsPool.Put(counts)
	for i := range docs {
		d := docs[i]
		d.Group = group
		var err error
		var obs *termObserver
		if seen != nil {
			obs = &termObserver{field: field, seen: func(analyzer string, terms []string) { seen(i, analyzer, terms) }}
		}
		if a.an[i], err = ix.analyzeDoc(&d, counts, obs); err != nil {
			return nil, fmt.Errorf("bm25 analyze: %w", err)
		}
		compactTerms(&a.an[i])
		// Apply checks the field names; the texts are analysed.
		d.Group = docs[i].Group
		names := make(map[string]string, len(d.Fields))
		for k := range d.Fields {
			names[k] = ""
		}
		d.Fields = names
		a.docs[i] = d
	}
	return a, nil
}

// compactTerms copies a doc's terms into one string of their own, so they
// no longer hold the analyzer's buffers (all the text's tokens) alive.
func compactTerms(ad *analyzedDoc) {
	n := 0
	for _, f := range ad.fields {
		for _, t := range f.terms {
			n += len(t)
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, f := range ad.fields {
		for _, t := range f.terms {
			b.WriteString(t)
		}
	}
	all, off := b.String(), 0
	for fi := range ad.fields {
		terms := ad.fields[fi].terms
		for i, t := range terms {
			terms[i] = all[off : off+len(t)]
			off += len(t)
		}
	}
}

// countsPool holds analyzeDoc's term count maps.
var countsPool sync.Pool

// ReplaceAnalyzed is Replace with docs analysed ahead by Index.Analyze for
// this group. Apply refuses them on another index (they hold no texts to
// analyse again).
func (b *Batch) ReplaceAnalyzed(group string, a *Analyzed) {
	b.Replace(group, a.docs)
	if b.pre == nil {
		b.pre = map[string]*Analyzed{}
	}
	b.pre[group] = a
}

// Replace replaces all docs of group with docs (none: delete the group).
func (b *Batch) Replace(group string, docs []Doc) {
	if b.ops == nil {
		b.ops = map[string][]Doc{}
	}
	if _, ok := b.ops[group]; !ok {
		b.order = append(b.order, group)
	}
	if docs == nil {
		docs = []Doc{}
	}
	b.ops[group] = docs
	delete(b.pre, group)
}

// Delete removes all docs of group.
func (b *Batch) Delete(group string) { b.Replace(group, nil) }

// Len is the number of groups in the batch.
func (b *Batch) Len() int { return len(b.order) }

// Replace atomically replaces all docs of group with docs; no docs deletes
// the group. On a persistent index it is durable when it returns.
func (ix *Index) Replace(group string, docs []Doc) error {
	var b Batch
	b.Replace(group, docs)
	return ix.Apply(&b)
}

// Delete removes all docs of group; deleting an unknown group is not an error.
func (ix *Index) Delete(group string) error {
	var b Batch
	b.Delete(group)
	return ix.Apply(&b)
}

// Apply commits a batch atomically: a search sees all of it or none, and on
// a persistent index it is durable when Apply returns. Batching many groups
// is much faster than one Replace each.
func (ix *Index) Apply(b *Batch) error {
	bt, err := ix.Build(b)
	if err != nil {
		return err
	}
	return ix.ApplyBuilt(bt)
}

// Built is a batch checked, analysed and inverted into a segment by Build:
// the costly part of Apply, which takes no lock and writes nothing, so a
// caller can run it while it writes elsewhere and publish it after
// (ApplyBuilt). The batch must not change in between.
type Built struct {
	ix   *Index
	b    *Batch
	seen map[string]string // doc ID -> group
	data []byte            // the new segment; nil when the batch only deletes
}

// Build does the first part of Apply: ApplyBuilt does the rest.
func (ix *Index) Build(b *Batch) (*Built, error) {
	if ix.readOnly {
		return nil, ErrReadOnly
	}
	if b == nil || len(b.order) == 0 {
		return &Built{ix: ix}, nil
	}
	var docs []Doc
	// pre[i]: docs[i] analysed ahead, or nil.
	var pre []*analyzedDoc
	seen := map[string]string{}
	for _, g := range b.order {
		a := b.pre[g]
		if a != nil && (a.ix != ix || a.group != g || len(a.an) != len(b.ops[g])) {
			return nil, fmt.Errorf("bm25 apply: group %q: its docs were analysed by another index or for another group", g)
		}
		if g == "" {
			return nil, fmt.Errorf("bm25 apply: empty group name")
		}
		for i, d := range b.ops[g] {
			if d.ID == "" {
				return nil, fmt.Errorf("bm25 apply: group %q doc %d: empty ID", g, i)
			}
			if d.Group != "" && d.Group != g {
				return nil, fmt.Errorf("bm25 apply: group %q doc %q: Group is %q", g, d.ID, d.Group)
			}
			if og, dup := seen[d.ID]; dup {
				return nil, fmt.Errorf("bm25 apply: doc ID %q given twice (groups %q and %q)", d.ID, og, g)
			}
			seen[d.ID] = g
			for name := range d.Fields {
				if _, ok := ix.fieldIdx[name]; !ok {
					return nil, fmt.Errorf("bm25 apply: group %q doc %q: unknown field %q", g, d.ID, name)
				}
			}
			d.Group = g
			docs = append(docs, d)
			if a != nil {
				pre = append(pre, &a.an[i])
			} else {
				pre = append(pre, nil)
			}
		}
	}
	analyzed, err := ix.analyzeDocsPre(docs, pre)
	if err != nil {
		return nil, fmt.Errorf("bm25 apply: %w", err)
	}
	var data []byte
	if len(analyzed) > 0 {
		if data, err = buildSegment(ix.fieldNames(), analyzed); err != nil {
			return nil, fmt.Errorf("bm25 apply: %w", err)
		}
	}
	return &Built{ix: ix, b: b, seen: seen, data: data}, nil
}

// Warm does now what a long-running process's first searches and first
// write would otherwise do while requests wait: it gives every segment its
// id ordinals (segment.ord), which searches use to break ties, and, unless
// the index is read-only, builds the id maps that the first write needs.
// A server calls it before it reports ready: on a 100k-chunk store the
// first write's maps took 0.4 s of processor time and the ordinals some
// tens of milliseconds per arm, and the searches of the server's first
// second waited up to 0.2 s behind them. Results do not change.
func (ix *Index) Warm() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return ErrClosed
	}
	s := ix.snap.Load()
	for i := range s.segs {
		s.segs[i].seg.ordinals()
	}
	if ix.ids == nil && !ix.readOnly {
		ix.ids, ix.groups = newIDIndex(), newGroupIndex()
		ix.updateMaps(nil, s.segs)
	}
	return nil
}

// ApplyBuilt publishes what Build made, as Apply does.
func (ix *Index) ApplyBuilt(bt *Built) error {
	if bt.ix != ix {
		return fmt.Errorf("bm25 apply: the batch was built for another index")
	}
	if bt.b == nil {
		return nil
	}
	b, seen, data := bt.b, bt.seen, bt.data

	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return ErrClosed
	}
	if ix.ids == nil {
		// Built on the first write, so a process that only searches does
		// not hold a map entry per doc.
		ix.ids, ix.groups = newIDIndex(), newGroupIndex()
		ix.updateMaps(nil, ix.snap.Load().segs)
	}
	for id, g := range seen {
		if ref, ok := ix.ids.get(id); ok {
			if og := ref.seg.group(ref.doc); og != g {
				if _, replaced := b.ops[og]; !replaced {
					return fmt.Errorf("bm25 apply: doc ID %q of group %q already belongs to group %q", id, g, og)
				}
			}
		}
	}
	tx := ix.begin()
	defer tx.abort()
	for _, g := range b.order {
		tx.deleteGroup(g)
	}
	if data != nil {
		if err := tx.addSegment(data); err != nil {
			return fmt.Errorf("bm25 apply: %w", err)
		}
	}
	if err := tx.merge(); err != nil {
		return fmt.Errorf("bm25 apply: %w", err)
	}
	return tx.commit()
}

func (ix *Index) fieldNames() []string {
	names := make([]string, len(ix.opts.Fields))
	for i, f := range ix.opts.Fields {
		names[i] = f.Name
	}
	return names
}

// Close releases the index. Searches already running finish.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil
	}
	ix.closed = true
	ix.snap.Store(nil)
	if ix.lock != nil {
		return ix.lock.Close()
	}
	return nil
}

// snapshot is an immutable committed state: what one search sees.
type snapshot struct {
	dense  *denseBudget // the Index's; nil when it keeps no dense tables
	gen    uint64
	segs   []snapSeg
	maxDoc int
	parts  map[partKey]*partStats

	statsOnce sync.Once
	stats     Stats
}

type snapSeg struct {
	seg  *segment
	base int
	// del marks deleted docs; nil when none. Never modified once published.
	del      []uint64
	delCount int
}

func (s *snapSeg) deleted(d uint32) bool {
	return s.del != nil && s.del[d>>6]&(1<<(d&63)) != 0
}

type partKey struct{ field, analyzer string }

// partStats are the live collection statistics of one partition.
type partStats struct {
	docCount, sumTTF int64
	avgdl            float32
	cache            *[256]float32
}

func newSnapshot(ix *Index, segs []snapSeg, gen uint64) *snapshot {
	s := &snapshot{gen: gen, segs: segs, parts: map[partKey]*partStats{}}
	if ix.dense.max > 0 {
		s.dense = &ix.dense
	}
	for i := range s.segs {
		ss := &s.segs[i]
		ss.base = s.maxDoc
		s.maxDoc += ss.seg.numDocs
		seg := ss.seg
		for _, p := range seg.parts {
			k := partKey{seg.fields[p.field].name, p.analyzer}
			ps := s.parts[k]
			if ps == nil {
				ps = &partStats{}
				s.parts[k] = ps
			}
			ps.docCount += p.docCount
			ps.sumTTF += p.sumTTF
		}
		if ss.delCount == 0 {
			continue
		}
		for d := 0; d < seg.numDocs; d++ {
			if !ss.deleted(uint32(d)) {
				continue
			}
			for f := range seg.fields {
				if l := seg.fields[f].length(uint32(d)); l > 0 {
					ps := s.parts[partKey{seg.fields[f].name, seg.analyzers[seg.docAnalyzer(uint32(d))]}]
					ps.docCount--
					ps.sumTTF -= int64(l)
				}
			}
		}
	}
	for k, ps := range s.parts {
		if ps.docCount <= 0 {
			delete(s.parts, k)
			continue
		}
		ps.avgdl = avgFieldLength(ps.sumTTF, ps.docCount)
		ps.cache = normCache(ix.k1, ix.b, ps.avgdl)
	}
	return s
}

// tx is a write transaction: a working copy of the segment list.
type tx struct {
	ix      *Index
	segs    []snapSeg
	added   []*segment        // new segments (files to remove on abort)
	dropped []*segment        // segments merged away or emptied
	owned   map[*segment]bool // deletion bitmaps already copied by this tx
	done    bool
}

func (ix *Index) begin() *tx {
	cur := ix.snap.Load()
	return &tx{ix: ix, segs: append([]snapSeg(nil), cur.segs...)}
}

func (t *tx) segIndex(s *segment) int {
	for i := range t.segs {
		if t.segs[i].seg == s {
			return i
		}
	}
	return -1
}

func (t *tx) deleteGroup(g string) {
	for _, ref := range t.ix.groups.docs(g, nil) {
		i := t.segIndex(ref.seg)
		if i < 0 {
			continue
		}
		t.markDeleted(i, ref.doc)
	}
}

func (t *tx) markDeleted(i int, d uint32) {
	ss := &t.segs[i]
	if ss.deleted(d) {
		return
	}
	if !t.owned[ss.seg] {
		// Copy on write: published bitmaps never change.
		nd := make([]uint64, (ss.seg.numDocs+63)/64)
		copy(nd, ss.del)
		ss.del = nd
		if t.owned == nil {
			t.owned = map[*segment]bool{}
		}
		t.owned[ss.seg] = true
	}
	ss.del[d>>6] |= 1 << (d & 63)
	ss.delCount++
}

func (t *tx) addSegment(data []byte) error {
	var seg *segment
	var err error
	if t.ix.dir != "" {
		t.ix.nextSeg++
		name := segFileName(t.ix.nextSeg)
		if err := writeFileSync(t.ix.dir, name, data); err != nil {
			return err
		}
		// Serve the file through the page cache, not the heap copy.
		seg, err = mapSegment(filepath.Join(t.ix.dir, name), name)
	} else {
		seg, err = openSegment("", data)
	}
	if err != nil {
		return err
	}
	t.added = append(t.added, seg)
	t.segs = append(t.segs, snapSeg{seg: seg})
	return nil
}

// commit publishes the transaction: manifest first (durable), then the new
// snapshot and the writer's maps.
func (t *tx) commit() error {
	ix := t.ix
	// Drop segments with no live docs.
	kept := t.segs[:0]
	for _, ss := range t.segs {
		if ss.delCount >= ss.seg.numDocs {
			t.dropped = append(t.dropped, ss.seg)
			continue
		}
		kept = append(kept, ss)
	}
	t.segs = kept
	gen := ix.gen + 1
	if ix.dir != "" {
		if err := writeManifest(ix.dir, gen, ix.nextSeg, t.segs); err != nil {
			return err
		}
	}
	t.done = true
	ix.gen = gen
	old := ix.snap.Load()
	ix.snap.Store(newSnapshot(ix, t.segs, gen))
	if ix.ids != nil {
		ix.updateMaps(old, t.segs)
	}
	for _, s := range t.dropped {
		s.retireDense(&ix.dense)
	}
	if ix.dir != "" {
		for _, s := range t.dropped {
			removeFile(ix.dir, s.name)
		}
	}
	return nil
}

func (t *tx) abort() {
	if t.done {
		return
	}
	if t.ix.dir != "" {
		for _, s := range t.added {
			removeFile(t.ix.dir, s.name)
		}
	}
}

// updateMaps brings ids and groups in line with the new segment list.
func (ix *Index) updateMaps(old *snapshot, segs []snapSeg) {
	oldSet := map[*segment]*snapSeg{}
	if old != nil {
		for i := range old.segs {
			oldSet[old.segs[i].seg] = &old.segs[i]
		}
	}
	newSet := map[*segment]bool{}
	for _, ss := range segs {
		newSet[ss.seg] = true
	}
	touched := map[string]bool{}
	// Remove docs that are gone: dropped segments and new deletions.
	for seg, os := range oldSet {
		ns := (*snapSeg)(nil)
		if newSet[seg] {
			for i := range segs {
				if segs[i].seg == seg {
					ns = &segs[i]
				}
			}
			if ns.delCount == os.delCount {
				continue
			}
		}
		for d := 0; d < seg.numDocs; d++ {
			if os.deleted(uint32(d)) || (ns != nil && !ns.deleted(uint32(d))) {
				continue
			}
			ix.ids.deleteIn(seg.id(uint32(d)), seg)
			if g := seg.group(uint32(d)); !touched[g] {
				touched[strings.Clone(g)] = true
			}
		}
	}
	// Add docs of new segments.
	for i := range segs {
		seg := segs[i].seg
		if _, ok := oldSet[seg]; ok {
			continue
		}
		for d := 0; d < seg.numDocs; d++ {
			if segs[i].deleted(uint32(d)) {
				continue
			}
			ix.ids.set(seg.id(uint32(d)), docRef{seg, uint32(d)})
			if g := seg.group(uint32(d)); !touched[g] {
				touched[strings.Clone(g)] = true
			}
		}
	}
	if len(touched) == 0 {
		return
	}
	// A touched group's live docs: those it had in segments still there
	// (from its refs, not a scan of every segment: a commit costs what it
	// changed, not the size of the index), then those in new segments.
	kept := map[*segment]*snapSeg{}
	for i := range segs {
		if _, ok := oldSet[segs[i].seg]; ok {
			kept[segs[i].seg] = &segs[i]
		}
	}
	refs := map[string][]docRef{}
	var buf []docRef
	for g := range touched {
		buf = ix.groups.docs(g, buf[:0])
		for _, r := range buf {
			if ss := kept[r.seg]; ss != nil && !ss.deleted(r.doc) {
				refs[g] = append(refs[g], r)
			}
		}
	}
	for i := range segs {
		seg := segs[i].seg
		if kept[seg] != nil {
			continue
		}
		for d := 0; d < seg.numDocs; d++ {
			if g := seg.group(uint32(d)); touched[g] && !segs[i].deleted(uint32(d)) {
				refs[g] = append(refs[g], docRef{seg, uint32(d)})
			}
		}
	}
	for g := range touched {
		ix.groups.set(g, refs[g])
	}
}

// Stats describe the live contents of an index.
type Stats struct {
	Docs     int
	Groups   int
	Segments int
	// Terms counts unique terms per partition, summed; Tokens is the number
	// of indexed tokens (Lucene's sumTotalTermFreq), summed over partitions.
	Terms  int
	Tokens int64
	// Partitions is keyed "field.analyzer" (e.g. "text.english").
	Partitions map[string]PartitionStats
	// Fields sums the partitions of each field.
	Fields map[string]PartitionStats
}

// PartitionStats describe one field, or one field's partition of one
// analyzer. Docs counts docs with at least one token in it.
type PartitionStats struct {
	Docs   int
	Terms  int
	Tokens int64
}

// Stats returns statistics of the current state. Counting unique terms
// walks every term dictionary; the result is cached per committed state.
func (ix *Index) Stats() Stats {
	s := ix.snap.Load()
	if s == nil {
		return Stats{}
	}
	s.statsOnce.Do(func() { s.stats = s.computeStats() })
	runtime.KeepAlive(s)
	return s.stats
}

func (s *snapshot) computeStats() Stats {
	st := Stats{Segments: len(s.segs), Partitions: map[string]PartitionStats{}, Fields: map[string]PartitionStats{}}
	groups := map[string]bool{}
	for i := range s.segs {
		ss := &s.segs[i]
		st.Docs += ss.seg.numDocs - ss.delCount
		for d := 0; d < ss.seg.numDocs; d++ {
			if !ss.deleted(uint32(d)) {
				groups[ss.seg.group(uint32(d))] = true
			}
		}
	}
	st.Groups = len(groups)
	keys := make([]partKey, 0, len(s.parts))
	for k := range s.parts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].field != keys[j].field {
			return keys[i].field < keys[j].field
		}
		return keys[i].analyzer < keys[j].analyzer
	})
	for _, k := range keys {
		ps := s.parts[k]
		terms := map[string]bool{}
		var p postings
		for i := range s.segs {
			ss := &s.segs[i]
			pi := ss.seg.findPart(k.field, k.analyzer)
			if pi < 0 {
				continue
			}
			for it := newTermIter(ss.seg, &ss.seg.parts[pi]); it.ok; it.advance() {
				term := it.term
				if terms[term] {
					continue
				}
				if ss.delCount > 0 {
					p.reset(it.ent)
					live := false
					for p.next() {
						if !ss.deleted(p.doc) {
							live = true
							break
						}
					}
					if !live {
						continue
					}
				}
				terms[term] = true
			}
		}
		pst := PartitionStats{Docs: int(ps.docCount), Terms: len(terms), Tokens: ps.sumTTF}
		st.Partitions[k.field+"."+k.analyzer] = pst
		f := st.Fields[k.field]
		f.Docs += pst.Docs
		f.Terms += pst.Terms
		f.Tokens += pst.Tokens
		st.Fields[k.field] = f
		st.Terms += pst.Terms
		st.Tokens += pst.Tokens
	}
	return st
}

func weight32(w float64) float32 {
	if w > math.MaxFloat32 {
		return math.MaxFloat32
	}
	return float32(w)
}
