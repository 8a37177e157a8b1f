package vector

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/viterin/vek/vek32"
)

// Filter restricts a search. It is applied while scanning, before scoring,
// so Search returns k allowed results whenever k exist.
type Filter struct {
	// Groups, when non-nil, allows only groups mapped to true.
	Groups map[string]bool
	// Accept, when non-nil, allows a vector only if it returns true. It
	// is called from several goroutines at once.
	Accept func(id, group string) bool
}

// Result is one search hit.
type Result struct {
	ID, Group string
	// Score is the cosine similarity (MetricCosine) or inner product
	// (MetricDot), computed exactly in float32.
	Score float64
}

// chunkRows is the unit of work a scanning goroutine takes at a time.
const chunkRows = 4096

type chunk struct{ view, start, end, base int }

// cand is a scored row: view index and row.
type cand struct {
	score float32
	view  int32
	row   int32
}

// topK keeps the k best candidates in a min-heap (worst at the root);
// order is score descending, then ID ascending.
type topK struct {
	k     int
	h     []cand
	views []view
}

func (t *topK) id(c cand) string { return t.views[c.view].seg.ids[c.row] }

// worse reports whether a ranks below b.
func (t *topK) worse(a, b cand) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return t.id(a) > t.id(b)
}

func (t *topK) push(c cand) {
	if len(t.h) == t.k && c.score < t.h[0].score {
		return // the common case, decided without comparing IDs
	}
	t.h = boundedPush(t.h, t.k, c, t.worse)
}

// boundedPush adds x to the min-heap h (under worse: the worst element at
// the root) that keeps at most max elements, and returns the heap: while
// h is not full x joins it; otherwise x replaces the root if the root is
// worse than x.
func boundedPush[T any](h []T, max int, x T, worse func(a, b T) bool) []T {
	if len(h) < max {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(h[i], h[p]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		return h
	}
	if !worse(h[0], x) {
		return h
	}
	h[0] = x
	for i, n := 0, len(h); ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && worse(h[r], h[l]) {
			m = r
		}
		if !worse(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return h
}

// scan is one search over a snapshot.
type scan struct {
	ix      *Index
	s       *snapshot
	q       []float32
	filter  *Filter
	allowG  [][]bool // per view: allowed group indexes; nil = all
	chunks  []chunk
	total   int // rows over all views, dead included
	workers int
}

func (sc *scan) allowed(vi, r int) bool {
	v := sc.s.views[vi]
	if v.isDead(r) {
		return false
	}
	if a := sc.allowG[vi]; a != nil && !a[v.seg.group[r]] {
		return false
	}
	if sc.filter != nil && sc.filter.Accept != nil {
		return sc.filter.Accept(v.seg.ids[r], v.seg.groupName(r))
	}
	return true
}

// parallel runs f(worker, chunk) over all chunks on sc.workers goroutines.
func (sc *scan) parallel(n int, f func(w, c int)) {
	workers := min(sc.workers, n)
	if workers <= 1 {
		for c := range n {
			f(0, c)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= n {
					return
				}
				f(w, c)
			}
		}()
	}
	wg.Wait()
}

// Search returns the k vectors most similar to q (score descending, ties
// by ID ascending) among those filter allows (nil: all). Above
// Options.QuantizeAbove live vectors it estimates every score from sign
// codes first and scores exactly only the rows that may reach the top k
// (see quantized); otherwise it scores every vector exactly.
func (ix *Index) Search(q []float32, k int, filter *Filter) ([]Result, error) {
	res, _, err := ix.search(q, k, filter)
	return res, err
}

// searchStats tells tests and benchmarks what a search did.
type searchStats struct {
	quantized bool
	rescored  int // first-pass candidates scored exactly
}

func (ix *Index) search(q []float32, k int, filter *Filter) ([]Result, searchStats, error) {
	var st searchStats
	if k < 0 {
		return nil, st, fmt.Errorf("vector search: k: must be >= 0, got %d", k)
	}
	qv, err := ix.checkVector("search", "query", q)
	if err != nil {
		return nil, st, err
	}
	s, err := ix.acquire()
	if err != nil {
		return nil, st, err
	}
	defer ix.release(s)
	if k == 0 || s.live == 0 {
		return nil, st, nil
	}
	sc := &scan{ix: ix, s: s, q: qv, filter: filter, workers: ix.opts.Workers}
	sc.allowG = make([][]bool, len(s.views))
	for vi, v := range s.views {
		if filter != nil && filter.Groups != nil {
			a := make([]bool, len(v.seg.groups))
			for gi, g := range v.seg.groups {
				a[gi] = filter.Groups[g]
			}
			sc.allowG[vi] = a
		}
		for start := 0; start < v.seg.rows; start += chunkRows {
			sc.chunks = append(sc.chunks, chunk{vi, start, min(start+chunkRows, v.seg.rows), sc.total + start})
		}
		sc.total += v.seg.rows
	}
	if ix.opts.QuantizeAbove >= 0 && s.live > ix.opts.QuantizeAbove {
		st.quantized = true
		res, n := sc.quantized(k, ix.opts.rescoreCount(k))
		st.rescored = n
		return res, st, nil
	}
	return sc.exact(k), st, nil
}

// exact scores every allowed row.
func (sc *scan) exact(k int) []Result {
	tops := make([]topK, min(sc.workers, len(sc.chunks)))
	for i := range tops {
		tops[i] = topK{k: k, views: sc.s.views}
	}
	sc.parallel(len(sc.chunks), func(w, ci int) {
		c := sc.chunks[ci]
		v := &sc.s.views[c.view]
		seg := v.seg
		t := &tops[w]
		filtered := v.dead != nil || sc.allowG[c.view] != nil || (sc.filter != nil && sc.filter.Accept != nil)
		dim := seg.dim
		var touched float32
		for r := c.start; r < c.end; r++ {
			if filtered && !sc.allowed(c.view, r) {
				continue
			}
			// Reading two words of the row touchAhead rows on starts its
			// memory fetch (and page walk) early: hardware prefetchers stop
			// at 4 KiB page boundaries, exactly one 1024-d row.
			if a := r + touchAhead; a < c.end {
				touched += seg.vecs[a*dim] + seg.vecs[a*dim+dim/2]
			}
			score := vek32.Dot(sc.q, seg.vecs[r*dim:(r+1)*dim])
			if len(t.h) == t.k && score < t.h[0].score {
				continue
			}
			t.push(cand{score, int32(c.view), int32(r)})
		}
		touchSink.Store(math.Float32bits(touched))
	})
	return sc.merge(k, tops)
}

// touchAhead is how many rows ahead the exact scan touches (see exact).
const touchAhead = 4

// touchSink keeps the touches from being optimised away.
var touchSink atomic.Uint32

// merge combines per-worker heaps into the final ranking.
func (sc *scan) merge(k int, tops []topK) []Result {
	var all []cand
	for _, t := range tops {
		all = append(all, t.h...)
	}
	t := topK{views: sc.s.views}
	slices.SortFunc(all, func(a, b cand) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(t.id(a), t.id(b))
	})
	all = all[:min(k, len(all))]
	out := make([]Result, len(all))
	for i, c := range all {
		seg := sc.s.views[c.view].seg
		out[i] = Result{ID: seg.ids[c.row], Group: seg.groupName(int(c.row)), Score: float64(c.score)}
	}
	return out
}

// queryPlanes is the query quantised for the first pass: q_i ≈ lo + step·u_i
// with u_i in [0, 15], stored as four bit planes so that Σ u_i over the
// set bits of a sign code is Σ_p 2^p·popcount(plane_p AND code).
type queryPlanes struct {
	// planes holds plane p at [p*stride, p*stride+words), zero padded to
	// stride = 8*ceil(words/8) words, the layout signDotsAVX512 reads.
	planes   []uint64
	words    int
	stride   int
	lo, step float32
	sumU     float32 // Σ u_i
	dim      float32
	norm     float32 // |q|
	// quantErr is the standard deviation of <s,q̂> - <s,q> over sign
	// vectors s, from rounding q to 16 levels: step·√(d/12).
	quantErr float32
}

func newQueryPlanes(q []float32, words int) *queryPlanes {
	qp := &queryPlanes{lo: q[0], dim: float32(len(q)), words: words, stride: (words + 7) &^ 7}
	qp.planes = make([]uint64, 4*qp.stride)
	hi := q[0]
	var l2 float64
	for _, x := range q {
		qp.lo, hi = min(qp.lo, x), max(hi, x)
		l2 += float64(x) * float64(x)
	}
	qp.norm = float32(math.Sqrt(l2))
	qp.step = (hi - qp.lo) / 15
	if qp.step == 0 {
		return qp // every component is lo
	}
	for i, x := range q {
		u := int((x-qp.lo)/qp.step + 0.5)
		u = min(max(u, 0), 15)
		qp.sumU += float32(u)
		for p := range 4 {
			if u>>p&1 == 1 {
				qp.planes[p*qp.stride+i>>6] |= 1 << (uint(i) & 63)
			}
		}
	}
	qp.quantErr = qp.step * float32(math.Sqrt(float64(len(q))/12))
	return qp
}

// popcounts writes, for each of the len(out) sign codes in codes,
// popcount(code) | Σ_p 2^p·popcount(plane_p AND code) << 32.
func (qp *queryPlanes) popcounts(codes []uint64, out []uint64) {
	words := qp.words
	codes = codes[:len(out)*words]
	if hasSignDotsAVX512 && len(out) > 0 {
		mask := uint8(0xFF)
		if r := words % 8; r != 0 {
			mask = 1<<r - 1
		}
		signDotsAVX512(&codes[0], len(out), words, &qp.planes[0], mask, &out[0])
		return
	}
	st := qp.stride
	p0, p1, p2, p3 := qp.planes[:words], qp.planes[st:st+words], qp.planes[2*st:2*st+words], qp.planes[3*st:3*st+words]
	for r := range out {
		code := codes[r*words : (r+1)*words]
		var pop, acc int
		for w, c := range code {
			pop += bits.OnesCount64(c)
			acc += bits.OnesCount64(p0[w]&c) + 2*bits.OnesCount64(p1[w]&c) +
				4*bits.OnesCount64(p2[w]&c) + 8*bits.OnesCount64(p3[w]&c)
		}
		out[r] = uint64(pop) | uint64(acc)<<32
	}
}

// signDot turns a popcounts value into <s,q̂> for the code's sign vector s.
func (qp *queryPlanes) signDot(counts uint64) float32 {
	pop, acc := float32(uint32(counts)), float32(counts>>32)
	// Σ s_i(lo + step·u_i) with s_i = 2b_i - 1.
	return qp.lo*(2*pop-qp.dim) + qp.step*(2*acc-qp.sumU)
}

var boundPool = sync.Pool{New: func() any { return new([]float32) }}

// quantized is the first pass for large indexes. Every allowed row gets an
// estimate of its score from its sign code and the 4-bit quantised query
// (RaBitQ's estimator, see rowCoef) and an upper bound: the estimate plus
// Options.Epsilon standard errors. The rescore rows with the best
// estimates are scored exactly; their k-th best exact score is a floor
// below which no row can enter the top k, so every other row whose upper
// bound reaches that floor is scored exactly too. Where neighbours stand
// out the floor is far above almost every bound and few rows are rescored;
// where they barely do (iid Gaussian data) more are, and recall stays high.
// The floor is the min(k, Options.BoundDepth)-th exact score, so a search
// for a fusion arm's 150 candidates protects its top 20 and takes the rest
// from the best estimates. It returns the results and how many rows were
// scored exactly.
func (sc *scan) quantized(k, rescore int) ([]Result, int) {
	words := wordsFor(sc.ix.opts.Dim)
	qp := newQueryPlanes(sc.q, words)
	eps := float32(sc.ix.opts.Epsilon)
	bp := boundPool.Get().(*[]float32)
	defer boundPool.Put(bp)
	if cap(*bp) < sc.total {
		*bp = make([]float32, sc.total)
	}
	// bound[base+i]: the row's upper bound; -Inf when denied or rescored.
	bound := (*bp)[:sc.total]
	negInf := float32(math.Inf(-1))
	nw := min(sc.workers, len(sc.chunks))
	// Each worker keeps its rescore best estimates (a min-heap by estimate).
	heads := make([]estHeap, nw)
	counts := make([][]uint64, nw)
	sc.parallel(len(sc.chunks), func(w, ci int) {
		c := sc.chunks[ci]
		v := &sc.s.views[c.view]
		seg := v.seg
		h := &heads[w]
		h.max = rescore
		b := bound[c.base : c.base+c.end-c.start]
		if counts[w] == nil {
			counts[w] = make([]uint64, chunkRows)
		}
		cnt := counts[w][:c.end-c.start]
		qp.popcounts(seg.bits[c.start*words:c.end*words], cnt)
		filtered := v.dead != nil || sc.allowG[c.view] != nil || (sc.filter != nil && sc.filter.Accept != nil)
		for r := c.start; r < c.end; r++ {
			i := r - c.start
			if filtered && !sc.allowed(c.view, r) {
				b[i] = negInf
				continue
			}
			scale, spread := seg.coefs(r)
			est := qp.signDot(cnt[i]) * scale
			if eps < 0 {
				b[i] = negInf // no bound pass
			} else {
				b[i] = est + eps*(qp.norm*spread+scale*qp.quantErr)
			}
			if len(h.h) < h.max || est > h.h[0].est {
				h.push(estCand{est, int32(c.view), int32(r), int32(c.base + i)})
			}
		}
	})
	var first []estCand
	for _, h := range heads {
		first = append(first, h.h...)
	}
	if len(first) > rescore {
		slices.SortFunc(first, func(a, b estCand) int { return cmp.Compare(b.est, a.est) })
		first = first[:rescore]
	}
	// Exact scores of the best estimates, split across workers when large.
	const per = 512
	nc := (len(first) + per - 1) / per
	tops := make([]topK, min(sc.workers, max(nc, 1)))
	for i := range tops {
		tops[i] = topK{k: k, views: sc.s.views}
	}
	sc.parallel(nc, func(w, ci int) {
		t := &tops[w]
		for _, c := range first[ci*per : min((ci+1)*per, len(first))] {
			bound[c.pos] = negInf
			t.push(cand{vek32.Dot(sc.q, sc.s.views[c.view].seg.vec(int(c.row))), c.view, c.row})
		}
	})
	floor := sc.merge(k, tops)
	if len(floor) < k {
		// Fewer than k allowed rows: every one was rescored.
		return floor, len(first)
	}
	// The bound pass protects the top min(k, BoundDepth); deeper ranks
	// (a fusion arm's 150 candidates) come from the best estimates.
	floorScore := float32(floor[min(k, sc.ix.opts.BoundDepth)-1].Score)
	// Every other row that might beat the floor, scored exactly.
	more := make([]topK, nw)
	rescored := make([]int, nw)
	for i := range more {
		more[i] = topK{k: k, views: sc.s.views}
	}
	sc.parallel(len(sc.chunks), func(w, ci int) {
		c := sc.chunks[ci]
		seg := sc.s.views[c.view].seg
		t := &more[w]
		for i, ub := range bound[c.base : c.base+c.end-c.start] {
			if ub < floorScore {
				continue
			}
			r := c.start + i
			rescored[w]++
			t.push(cand{vek32.Dot(sc.q, seg.vec(r)), int32(c.view), int32(r)})
		}
	})
	n := len(first)
	for _, x := range rescored {
		n += x
	}
	return sc.merge(k, append(tops, more...)), n
}

// estCand is a row and its first-pass estimate; pos indexes the bound slice.
type estCand struct {
	est       float32
	view, row int32
	pos       int32
}

// estHeap keeps the max rows with the highest estimates (min-heap by est).
type estHeap struct {
	max int
	h   []estCand
}

func lowerEstimate(a, b estCand) bool { return a.est < b.est }

func (e *estHeap) push(c estCand) { e.h = boundedPush(e.h, e.max, c, lowerEstimate) }
