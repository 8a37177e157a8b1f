package bm25

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/situate/situate/analysis"
)

// clause is one term of the query in one partition, across all segments.
type clause struct {
	term   string
	weight float32 // boost * idf
	cache  *[256]float32
	ub     float64 // upper bound of the clause's score for any doc
	lists  []segList
}

type segList struct {
	seg   int // index into snapshot.segs
	norms []byte
	entry termEntry
}

// Search runs a disjunctive BM25 query. Per partition (field × analyzer) the
// query is analysed with that partition's analyzer; each term present
// becomes a clause with boost = its count in the query × the field weight,
// scored like Lucene's BM25Similarity, and a doc's score is the sum of its
// clauses (no coordination factor). Results are ordered by score, then ID.
//
// Evaluation is term-at-a-time with MaxScore-style pruning: clauses are
// taken in decreasing order of their score bound; once no unseen doc can
// reach the current k-th score, the remaining clauses only update the
// surviving candidates, skipping postings block by block. The pruning is
// exact: results equal those of exhaustive evaluation.
func (ix *Index) Search(q Query) ([]Result, error) {
	s := ix.snap.Load()
	if s == nil {
		return nil, ErrClosed
	}
	k := q.K
	if k < 0 {
		return nil, fmt.Errorf("bm25 search: K: must be >= 0, got %d", k)
	}
	if k == 0 {
		k = DefaultK
	}
	weights := map[string]float32{}
	if q.Fields != nil {
		for name, w := range q.Fields {
			if _, ok := ix.fieldIdx[name]; !ok {
				return nil, fmt.Errorf("bm25 search: Fields: unknown field %q", name)
			}
			if err := checkWeight(w); err != nil {
				return nil, fmt.Errorf("bm25 search: Fields[%q]: %w", name, err)
			}
			weights[name] = weight32(w)
		}
	} else {
		for _, f := range ix.opts.Fields {
			weights[f.Name] = weight32(f.Weight)
		}
	}
	onlyAnalyzer := ""
	if q.Lang != "" && ix.opts.Analyzer == "" {
		onlyAnalyzer = ix.langAnalyzer(q.Lang).Name()
	}
	lists := listsPool.Get().(*[]segList)
	defer func() {
		clear((*lists)[:cap(*lists)])
		*lists = (*lists)[:0]
		listsPool.Put(lists)
	}()
	clauses, err := ix.clauses(s, q.Text, weights, onlyAnalyzer, lists)
	if err != nil {
		return nil, err
	}
	if len(clauses) == 0 {
		if q.Into != nil {
			// Into keeps its array for the caller's next search.
			return q.Into[:0], nil
		}
		return []Result{}, nil
	}
	if q.Filter != nil && q.Filter.Accept != nil {
		for i := range s.segs {
			if err := s.segs[i].seg.checkSlice(s.segs[i].seg.attrBytes); err != nil {
				return nil, fmt.Errorf("bm25 search: %w", err)
			}
		}
	}
	res := s.run(clauses, k, q.Filter, !q.WithoutGroups, !q.Unordered, q.Into, q.IDBytes)
	runtime.KeepAlive(s) // clauses point into its segments' mappings
	return res, nil
}

// listsPool holds the buffers that a search's clauses take their lists
// from: allocating each clause's list was a tenth of what a server's
// searches allocated.
var listsPool = sync.Pool{New: func() any { return new([]segList) }}

// clauses analyses the query per partition and looks its terms up. The
// clauses' lists are appended to buf.
func (ix *Index) clauses(s *snapshot, text string, weights map[string]float32, onlyAnalyzer string, buf *[]segList) ([]clause, error) {
	keys := make([]partKey, 0, len(s.parts))
	for k := range s.parts {
		if weights[k.field] > 0 && (onlyAnalyzer == "" || k.analyzer == onlyAnalyzer) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].field != keys[j].field {
			return ix.fieldIdx[keys[i].field] < ix.fieldIdx[keys[j].field]
		}
		return keys[i].analyzer < keys[j].analyzer
	})
	type analysed struct {
		a      analysis.Analyzer
		terms  []string
		counts []float32
	}
	byAnalyzer := map[string]*analysed{}
	var out []clause
	for _, k := range keys {
		qa := byAnalyzer[k.analyzer]
		if qa == nil {
			a, err := ix.analyzer(k.analyzer)
			if err != nil {
				return nil, fmt.Errorf("bm25 search: %w", err)
			}
			qa = &analysed{a: a}
			var counts []int
			qa.terms, counts = analyzeQuery(a, text)
			if len(qa.terms) > MaxQueryTerms {
				return nil, fmt.Errorf("bm25 search: query has %d unique terms, more than %d", len(qa.terms), MaxQueryTerms)
			}
			for _, c := range counts {
				qa.counts = append(qa.counts, float32(c))
			}
			byAnalyzer[k.analyzer] = qa
		}
		ps := s.parts[k]
		fw := weights[k.field]
		parts := make([]int, len(s.segs))
		for i := range s.segs {
			parts[i] = s.segs[i].seg.findPart(k.field, k.analyzer)
		}
		terms, counts := qa.terms, qa.counts
		if c, ok := qa.a.(analysis.Compounder); ok && ix.opts.CompoundWeight > 0 {
			// Known means held by a live doc: the terms of deleted docs stay
			// in their segment until a merge, and counting them would make
			// an index search differently from one built without those docs.
			var lerr error
			terms, counts = expandCompounds(c, text, terms, counts, float32(ix.opts.CompoundWeight), func(t string) bool {
				for i := range s.segs {
					if parts[i] < 0 || lerr != nil {
						continue
					}
					ss := &s.segs[i]
					e, ok, err := ss.seg.lookup(&ss.seg.parts[parts[i]], t)
					if err != nil {
						lerr = err
						return false
					}
					if ok && liveDF(ss, e) > 0 {
						return true
					}
				}
				return false
			})
			if lerr != nil {
				return nil, fmt.Errorf("bm25 search: %w", lerr)
			}
		}
		for ti, term := range terms {
			start := len(*buf)
			df := int64(0)
			for i := range s.segs {
				if parts[i] < 0 {
					continue
				}
				ss := &s.segs[i]
				sp := &ss.seg.parts[parts[i]]
				ent, ok, err := ss.seg.lookup(sp, term)
				if err != nil {
					return nil, fmt.Errorf("bm25 search: %w", err)
				}
				if !ok {
					continue
				}
				n := liveDF(ss, ent)
				if n == 0 {
					continue
				}
				df += int64(n)
				*buf = append(*buf, segList{seg: i, norms: ss.seg.fields[sp.field].norms, entry: ent})
			}
			if df == 0 {
				continue
			}
			// (A later append may move buf; lists keeps the array it has.)
			lists := (*buf)[start:len(*buf):len(*buf)]
			// BoostQuery(BoostQuery(TermQuery, count), fieldWeight): boosts
			// multiply as floats.
			boost := float32(fw * counts[ti])
			c := clause{term: term, weight: float32(boost * idf(df, ps.docCount)), cache: ps.cache, lists: lists}
			for _, l := range lists {
				b := termScore(c.weight, float32(l.entry.maxTf), c.cache[l.entry.minNorm])
				c.ub = math.Max(c.ub, float64(b))
			}
			if c.weight > 0 {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// expandCompounds applies Options.CompoundWeight (see there): terms the
// partition does not know are replaced by their known parts, and known
// compounds of neighbouring query words are added. The original terms keep
// their counts; terms already in the query are not added twice.
func expandCompounds(c analysis.Compounder, text string, terms []string, counts []float32, weight float32, known func(string) bool) ([]string, []float32) {
	have := make(map[string]bool, len(terms))
	for _, t := range terms {
		have[t] = true
	}
	outT, outC := terms, counts
	add := func(t string) {
		if !have[t] {
			have[t] = true
			outT = append(outT[:len(outT):len(outT)], t)
			outC = append(outC[:len(outC):len(outC)], weight)
		}
	}
	for _, t := range terms {
		if !known(t) {
			for _, p := range c.Decompose(t, known) {
				add(p)
			}
		}
	}
	for _, t := range c.Compose(text, c.Analyze(text), known) {
		add(t)
	}
	return outT, outC
}

// liveDF is the number of postings of a term in a segment whose doc is not
// deleted: Lucene counts deleted docs until a merge, this index does not.
func liveDF(ss *snapSeg, e termEntry) int {
	df := int(e.df)
	if ss.delCount == 0 {
		return df
	}
	var p postings
	p.reset(e)
	if ss.delCount*16 < df {
		// Few deletions: probe each deleted doc through the skip table.
		for w, word := range ss.del {
			for word != 0 {
				d := uint32(w*64 + bits.TrailingZeros64(word))
				word &= word - 1
				if !p.advance(d) {
					return df
				}
				if p.doc == d {
					df--
				}
			}
		}
		return df
	}
	n := 0
	for p.next() {
		if !ss.deleted(p.doc) {
			n++
		}
	}
	return n
}

type scratch struct {
	acc     []float64
	touched []int32
	fstate  []uint8
	fdone   []int32
	vals    []float32
	top     []float32 // kthLargest's
	// refine's
	cands []int32
	// sortDocs's: a bit per doc, all zero between uses
	bits []uint64
	// topK's
	sel, ties []int32
	runs      []tieRun
	hits      []hit
	keys      []uint64
}

var scratchPool sync.Pool

func getScratch(n int) *scratch {
	sc, _ := scratchPool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	sc.fit(n)
	return sc
}

// fit makes the per-doc arrays hold n docs, with headroom: a server's
// writes add a few docs per commit, and sizing them to the doc count
// reallocated every pooled scratch (0.9 MB each for 100k docs) after each
// commit, 6% of what a server under the load test's writer allocated.
func (sc *scratch) fit(n int) {
	if len(sc.acc) < n {
		n += n/8 + 1024
		sc.acc = make([]float64, n)
		sc.fstate = make([]uint8, n)
	}
}

func putScratch(sc *scratch) {
	for _, d := range sc.touched {
		sc.acc[d] = 0
	}
	for _, d := range sc.fdone {
		sc.fstate[d] = 0
	}
	sc.touched, sc.fdone, sc.vals = sc.touched[:0], sc.fdone[:0], sc.vals[:0]
	sc.sel, sc.ties = sc.sel[:0], sc.ties[:0]
	clear(sc.runs[:cap(sc.runs)]) // no segment kept alive by the pool
	sc.runs = sc.runs[:0]
	clear(sc.hits[:cap(sc.hits)])
	sc.hits, sc.cands = sc.hits[:0], sc.cands[:0]
	scratchPool.Put(sc)
}

// allowed evaluates the filter once per doc per query.
func (s *snapshot) allowed(sc *scratch, f *Filter, ss *snapSeg, d uint32) bool {
	g := int32(ss.base) + int32(d)
	switch sc.fstate[g] {
	case 1:
		return true
	case 2:
		return false
	}
	ok := true
	seg := ss.seg
	if f.Groups != nil && !f.Groups[seg.group(d)] {
		ok = false
	}
	if ok && f.Accept != nil {
		ok = f.Accept(seg.id(d), seg.group(d), seg.attr(d))
	}
	sc.fdone = append(sc.fdone, g)
	if ok {
		sc.fstate[g] = 1
	} else {
		sc.fstate[g] = 2
	}
	return ok
}

// slack widens score bounds against float64 summation order effects.
const slack = 1 + 1e-9

func (s *snapshot) run(clauses []clause, k int, filter *Filter, groups, ordered bool, into []Result, idBytes *[]byte) []Result {
	sort.SliceStable(clauses, func(i, j int) bool { return clauses[i].ub > clauses[j].ub })
	rest := make([]float64, len(clauses)+1) // rest[i] = bound of clauses[i:]
	for i := len(clauses) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + clauses[i].ub
	}
	if filter != nil && filter.Groups == nil && filter.Accept == nil {
		filter = nil
	}
	sc := getScratch(s.maxDoc)
	defer putScratch(sc)

	var p postings
	maxAcc := 0.0
	theta := float32(0)
	ci := 0
	phase2 := false
	for ; ci < len(clauses); ci++ {
		c := &clauses[ci]
		// Once theta is known (the k-th score so far: scores only grow, so
		// the final k-th is at least theta), a doc that this clause finds
		// for the first time, and that cannot reach theta with this
		// clause's score and the bound of the clauses after it, can never
		// be a result, nor tie with one: it is left out of the candidates,
		// which then stay few for kth, refine and topK. It cannot come back
		// through a later clause either: its score there plus the bound
		// after that is less still.
		after := rest[ci+1]
		// Scores of tf = 1, the most common case, by norm byte.
		var one [256]float32
		for i := range one {
			one[i] = termScore(c.weight, 1, c.cache[i])
		}
		for _, l := range c.lists {
			ss := &s.segs[l.seg]
			base := int32(ss.base)
			p.reset(l.entry)
			for p.next() {
				d := p.doc
				if ss.deleted(d) || (filter != nil && !s.allowed(sc, filter, ss, d)) {
					continue
				}
				g := base + int32(d)
				var score float32
				if p.tf == 1 {
					score = one[l.norms[d]]
				} else {
					score = termScore(c.weight, float32(p.tf), c.cache[l.norms[d]])
				}
				if score == 0 {
					continue // only with an absurd k1; keeps acc == 0 meaning "new"
				}
				old := sc.acc[g]
				if old == 0 {
					if theta > 0 && float32((float64(score)+after)*slack) < theta {
						continue
					}
					sc.touched = append(sc.touched, g)
				}
				v := old + float64(score)
				sc.acc[g] = v
				if v > maxAcc {
					maxAcc = v
				}
			}
		}
		if ci+1 < len(clauses) && len(sc.touched) >= k {
			bound := float32(rest[ci+1] * slack)
			if float32(maxAcc) > bound {
				theta = s.kth(sc, sc.touched, k)
				if theta > bound {
					ci++
					phase2 = true
					break
				}
			}
		}
	}
	cands := sc.touched
	if phase2 {
		cands = s.refine(sc, clauses[ci:], rest[ci:], theta, k)
	}
	return s.topK(sc, cands, k, groups, ordered, into, idBytes)
}

// refine finishes evaluation for candidates only: no other doc can enter the
// top k. It returns the surviving candidates.
func (s *snapshot) refine(sc *scratch, clauses []clause, rest []float64, theta float32, k int) []int32 {
	cands := sc.cands[:0]
	for _, g := range sc.touched {
		if float32((sc.acc[g]+rest[0])*slack) >= theta {
			cands = append(cands, g)
		}
	}
	if !slices.IsSorted(cands) { // sorted when one clause made them
		s.sortDocs(sc, cands)
	}
	var p postings
	for ci := range clauses {
		c := &clauses[ci]
		for _, l := range c.lists {
			ss := &s.segs[l.seg]
			lo, hi := int32(ss.base), int32(ss.base+ss.seg.numDocs)
			i := sort.Search(len(cands), func(i int) bool { return cands[i] >= lo })
			if tf := ss.seg.denseTF(l.entry, s.dense); tf != nil {
				for ; i < len(cands) && cands[i] < hi; i++ {
					d := uint32(cands[i] - lo)
					if t := tf[d]; t != 0 {
						sc.acc[cands[i]] += float64(termScore(c.weight, float32(t), c.cache[l.norms[d]]))
					}
				}
				continue
			}
			p.reset(l.entry)
			for ; i < len(cands) && cands[i] < hi; i++ {
				d := uint32(cands[i] - lo)
				if !p.advance(d) {
					break
				}
				if p.doc == d {
					sc.acc[cands[i]] += float64(termScore(c.weight, float32(p.tf), c.cache[l.norms[d]]))
				}
			}
		}
		if ci+1 < len(clauses) {
			theta = max(theta, s.kth(sc, cands, k))
			kept := cands[:0]
			for _, g := range cands {
				if float32((sc.acc[g]+rest[ci+1])*slack) >= theta {
					kept = append(kept, g)
				}
			}
			cands = kept
		}
	}
	sc.cands = cands
	return cands
}

// kth returns the k-th largest float32 score among docs (0 if fewer).
func (s *snapshot) kth(sc *scratch, docs []int32, k int) float32 {
	if len(docs) < k {
		return 0
	}
	v := sc.vals[:0]
	for _, g := range docs {
		v = append(v, float32(sc.acc[g]))
	}
	sc.vals = v
	theta, top := kthLargest(v, k, sc.top[:0])
	sc.top = top[:0]
	return theta
}

// kthLargest returns the k-th largest of v (1 <= k <= len(v)), reordering
// v; buf is scratch space, returned for reuse. A search asks for the
// 150th score among thousands, and quickselect over all of them was a
// twentieth of a server's search time. Past a thousand values, a threshold
// that about 2k of them reach is read off an evenly spaced sample of 256,
// one pass copies the values at or above it to buf, and quickselect runs
// on those: the k-th largest of v is among them whenever at least k of
// them reach the threshold (falling back to all of v when not).
func kthLargest(v []float32, k int, buf []float32) (float32, []float32) {
	const samples = 256
	n := len(v)
	if n < 1024 || k*8 > n {
		return quickselect(v, k-1), buf
	}
	var sample [samples]float32
	step := n / samples
	for i := range sample {
		sample[i] = v[i*step]
	}
	// The k-th largest of v sits near rank k*samples/n of the sample;
	// going twice as deep, plus a margin for small ranks, leaves room for
	// the sample's error.
	r := 2*k*samples/n + 8
	if r >= samples {
		return quickselect(v, k-1), buf
	}
	threshold := quickselect(sample[:], r)
	buf = slices.Grow(buf[:0], n)[:n]
	j := 0
	for _, x := range v {
		buf[j] = x
		if x >= threshold {
			j++
		}
	}
	buf = buf[:j]
	if len(buf) < k {
		return quickselect(v, k-1), buf
	}
	return quickselect(buf, k-1), buf
}

// quickselect returns the element that would be at index n if v were sorted
// in descending order. It reorders v.
func quickselect(v []float32, n int) float32 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		pivot := v[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for v[i] > pivot {
				i++
			}
			for v[j] < pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case n <= j:
			hi = j
		case n >= i:
			lo = i
		default:
			return v[n]
		}
	}
	return v[n]
}

// topK returns the best k of cands by score, ties broken by ID.
//
// Scores tie often (a rare term's postings differ only by their length
// norm, a byte), so many candidates can share the k-th score, and only
// the smallest IDs among those may be results. Comparing ID strings for
// every tied candidate was a fifth of a search's time; instead the tied
// candidates of each segment are ordered by the segment's ID ordinals
// (integers, computed once per segment), and strings are compared only to
// merge those per-segment lists and to order the few results that share a
// score across segments.
func (s *snapshot) topK(sc *scratch, cands []int32, k int, groups, ordered bool, into []Result, idBytes *[]byte) []Result {
	theta := float32(0)
	if len(cands) > k {
		theta = s.kth(sc, cands, k)
	}
	// Fewer than k candidates score above theta: all are results. Those at
	// theta take the places left, smallest IDs first.
	above := sc.sel[:0]
	tiesBuf := sc.ties[:0]
	ties := tiesBuf
	for _, g := range cands {
		switch score := float32(sc.acc[g]); {
		case score > theta:
			above = append(above, g)
		case score == theta:
			ties = append(ties, g)
		}
	}
	tiesOrdered := false
	if need := k - len(above); len(ties) > need {
		ties, tiesOrdered = s.leastIDs(sc, ties, need), true
	}
	hs := slices.Grow(sc.hits[:0], len(above)+len(ties))[:len(above)+len(ties)]
	sc.hits = hs
	for i, g := range above {
		hs[i] = s.hit(sc, g)
	}
	for i, g := range ties {
		hs[len(above)+i] = s.hit(sc, g)
	}
	sc.sel = above[:0]
	if cap(ties) > cap(tiesBuf) {
		tiesBuf = ties
	}
	sc.ties = tiesBuf[:0]
	if ordered {
		slices.SortFunc(hs[:len(above)], func(a, b hit) int {
			switch {
			case a.score > b.score:
				return -1
			case a.score < b.score:
				return 1
			}
			return a.compareID(&b)
		})
		if !tiesOrdered {
			slices.SortFunc(hs[len(above):], func(a, b hit) int { return a.compareID(&b) })
		}
	}

	// The strings point into the segment and results outlive it: one copy
	// holds all of them (in the caller's buffer, if it gave one).
	n := 0
	for i := range hs {
		h := &hs[i]
		n += len(h.id)
		if !groups {
			continue
		}
		if h.group = h.ss.seg.group(h.d); !strings.HasPrefix(h.id, h.group) {
			n += len(h.group)
		}
	}
	var buf []byte
	switch {
	case idBytes == nil:
		buf = make([]byte, 0, n)
	case cap(*idBytes) < n:
		buf = make([]byte, 0, n+n/4)
	default:
		buf = (*idBytes)[:0]
	}
	// buf never grows past n below, so no string is left pointing into a
	// buffer that append replaced.
	out := into[:0]
	if cap(out) < len(hs) {
		out = make([]Result, len(hs))
	}
	out = out[:len(hs)]
	for i := range hs {
		h := &hs[i]
		start := len(buf)
		buf = append(buf, h.id...)
		r := Result{ID: unsafeString(buf[start:]), Score: float64(h.score)}
		switch {
		case !groups:
		case strings.HasPrefix(h.id, h.group):
			// Chunk IDs start with their group (the document id).
			r.Group = r.ID[:len(h.group)]
		default:
			start = len(buf)
			buf = append(buf, h.group...)
			r.Group = unsafeString(buf[start:])
		}
		out[i] = r
	}
	if idBytes != nil {
		*idBytes = buf
	}
	return out
}

// hit is a result before its strings are copied.
type hit struct {
	score     float32
	ss        *snapSeg
	d         uint32
	id, group string // pointing into the segment
}

func (s *snapshot) hit(sc *scratch, g int32) hit {
	ss, d := s.locate(g)
	return hit{score: float32(sc.acc[g]), ss: ss, d: d, id: ss.seg.id(d)}
}

// compareID orders two docs by ID: by the segment's ordinals within one
// segment once it has them, by the strings otherwise.
func (h *hit) compareID(o *hit) int {
	if h.ss == o.ss && h.ss.seg.ordDone.Load() {
		ord := h.ss.seg.ord
		return cmp.Compare(ord[h.d], ord[o.d])
	}
	return strings.Compare(h.id, o.id)
}

// leastIDs returns, in ID order, the n candidates of ties (n < len(ties))
// with the smallest IDs. It reorders ties.
func (s *snapshot) leastIDs(sc *scratch, ties []int32, n int) []int32 {
	if n <= 0 {
		return ties[:0]
	}
	if !slices.IsSorted(ties) { // sorted when refine made the candidates
		s.sortDocs(sc, ties)
	}
	// One run per segment: its best n by ordinal.
	runs := sc.runs[:0]
	for i := 0; i < len(ties); {
		ss, _ := s.locate(ties[i])
		base, end := int32(ss.base), int32(ss.base+ss.seg.numDocs)
		j := i
		for j < len(ties) && ties[j] < end {
			j++
		}
		run := ties[i:j]
		if ord := ss.seg.ordinalsIfWarm(); ord != nil {
			sc.keys = leastByOrdinal(sc.keys, run, ord, base, n)
		} else {
			seg := ss.seg
			slices.SortFunc(run, func(a, b int32) int { return strings.Compare(seg.id(uint32(a-base)), seg.id(uint32(b-base))) })
		}
		r := tieRun{ss: ss, docs: run[:min(n, len(run))]}
		r.head = ss.seg.id(uint32(r.docs[0] - base))
		runs = append(runs, r)
		i = j
	}
	sc.runs = runs[:0]
	if len(runs) == 1 {
		return runs[0].docs
	}
	// Merge the runs by ID.
	out := make([]int32, 0, n)
	for len(out) < n {
		best := -1
		for r := range runs {
			if len(runs[r].docs) > 0 && (best < 0 || runs[r].head < runs[best].head) {
				best = r
			}
		}
		b := &runs[best]
		out = append(out, b.docs[0])
		if b.docs = b.docs[1:]; len(b.docs) > 0 {
			b.head = b.ss.seg.id(uint32(b.docs[0]) - uint32(b.ss.base))
		}
	}
	return out
}

// leastByOrdinal reorders run so that its min(n, len(run)) docs with the
// smallest ordinals come first, in ordinal order, and returns keys for
// reuse. The docs become integer keys (ordinal, doc), which are unique, and
// only the n smallest are sorted: sorting a run of a few thousand ties by
// looking their ordinals up in every comparison was a twentieth of a
// server's search time.
func leastByOrdinal(keys []uint64, run []int32, ord []uint32, base int32, n int) []uint64 {
	keys = keys[:0]
	for _, g := range run {
		keys = append(keys, uint64(ord[g-base])<<32|uint64(uint32(g)))
	}
	least := keys
	if len(keys) > 2*n {
		selectSmallest(keys, n)
		least = keys[:n]
	}
	slices.Sort(least)
	for i, key := range keys {
		run[i] = int32(uint32(key))
	}
	return keys
}

// selectSmallest reorders v (unique values) so that its n smallest come
// first, in no particular order (0 < n < len(v)). It is quickselect's loop
// over integers in ascending order: one generic function for both measured
// 40% slower on quickselect's side (BenchmarkKthLargest, 12.5 against 9 µs).
func selectSmallest(v []uint64, n int) {
	lo, hi := 0, len(v)-1
	for lo < hi {
		pivot := v[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case n-1 <= j:
			hi = j
		case n-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// sortDocs sorts docs (distinct docs of the snapshot) in place. Many docs
// go through a bitmap of the snapshot's docs, in time linear in the docs
// and the bitmap's words instead of n log n: refine sorted a few thousand
// candidates per search, a twentieth of a server's search time.
func (s *snapshot) sortDocs(sc *scratch, docs []int32) {
	words := s.maxDoc/64 + 1
	if len(docs) < 64 || len(docs)*8 < words {
		slices.Sort(docs)
		return
	}
	if len(sc.bits) < words {
		sc.bits = make([]uint64, words+words/8+16) // headroom as in getScratch
	}
	set := sc.bits[:words]
	for _, g := range docs {
		set[g>>6] |= 1 << (g & 63)
	}
	out := docs[:0]
	for w, word := range set {
		if word == 0 {
			continue
		}
		set[w] = 0
		for word != 0 {
			out = append(out, int32(w<<6+bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
}

// tieRun is one segment's tied candidates, ordered by ID; head is the
// first one's ID.
type tieRun struct {
	ss   *snapSeg
	docs []int32
	head string
}

func (s *snapshot) locate(g int32) (*snapSeg, uint32) {
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].base > int(g) }) - 1
	return &s.segs[i], uint32(int(g) - s.segs[i].base)
}
