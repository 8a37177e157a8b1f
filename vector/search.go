package vector

import (
	"fmt"
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
	if len(t.h) < t.k {
		t.h = append(t.h, c)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.worse(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if c.score < t.h[0].score || !t.worse(t.h[0], c) {
		return
	}
	t.h[0] = c
	for i, n := 0, len(t.h); ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && t.worse(t.h[r], t.h[l]) {
			m = r
		}
		if !t.worse(t.h[m], t.h[i]) {
			break
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// scan is one search over a snapshot.
type scan struct {
	ix      *Index
	s       *snapshot
	q       []float32
	qcode   []uint64
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

var distPool = sync.Pool{New: func() any { return new([]uint16) }}

const deniedDist = 0xFFFF

// Search returns the k vectors most similar to q (score descending, ties
// by ID ascending) among those filter allows (nil: all). Above
// Options.QuantizeAbove live vectors it ranks by the Hamming distance of
// sign codes first and rescores the best Options.Rescore candidates
// exactly; otherwise it scores every vector exactly.
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
		for r := c.start; r < c.end; r++ {
			if filtered && !sc.allowed(c.view, r) {
				continue
			}
			score := vek32.Dot(sc.q, seg.vecs[r*dim:(r+1)*dim])
			if len(t.h) == t.k && score < t.h[0].score {
				continue
			}
			t.push(cand{score, int32(c.view), int32(r)})
		}
	})
	return sc.merge(k, tops)
}

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

func hamming(a, b []uint64) int {
	b = b[:len(a)]
	d := 0
	for i := range a {
		d += bits.OnesCount64(a[i] ^ b[i])
	}
	return d
}

func hamming16(a, b *[16]uint64) int {
	return bits.OnesCount64(a[0]^b[0]) + bits.OnesCount64(a[1]^b[1]) +
		bits.OnesCount64(a[2]^b[2]) + bits.OnesCount64(a[3]^b[3]) +
		bits.OnesCount64(a[4]^b[4]) + bits.OnesCount64(a[5]^b[5]) +
		bits.OnesCount64(a[6]^b[6]) + bits.OnesCount64(a[7]^b[7]) +
		bits.OnesCount64(a[8]^b[8]) + bits.OnesCount64(a[9]^b[9]) +
		bits.OnesCount64(a[10]^b[10]) + bits.OnesCount64(a[11]^b[11]) +
		bits.OnesCount64(a[12]^b[12]) + bits.OnesCount64(a[13]^b[13]) +
		bits.OnesCount64(a[14]^b[14]) + bits.OnesCount64(a[15]^b[15])
}

// quantized ranks allowed rows by Hamming distance between sign codes,
// keeps at least rescore of the nearest (all rows at the cut-off distance
// included) and rescores them exactly.
func (sc *scan) quantized(k, rescore int) ([]Result, int) {
	words := sc.ix.opts.Dim/64 + min(sc.ix.opts.Dim%64, 1)
	sc.qcode = make([]uint64, words)
	signCode(sc.qcode, sc.q)
	dp := distPool.Get().(*[]uint16)
	defer distPool.Put(dp)
	if cap(*dp) < sc.total {
		*dp = make([]uint16, sc.total)
	}
	dist := (*dp)[:sc.total]
	nw := min(sc.workers, len(sc.chunks))
	bins := sc.ix.opts.Dim + 1
	hist := make([]int, nw*bins)
	sc.parallel(len(sc.chunks), func(w, ci int) {
		c := sc.chunks[ci]
		v := &sc.s.views[c.view]
		seg := v.seg
		h := hist[w*bins : (w+1)*bins]
		d := dist[c.base : c.base+c.end-c.start]
		codes := seg.bits[c.start*words : c.end*words]
		filtered := v.dead != nil || sc.allowG[c.view] != nil || (sc.filter != nil && sc.filter.Accept != nil)
		if words == 16 && !filtered {
			// The common case (1024 dimensions, no filter, no tombstones).
			q := (*[16]uint64)(sc.qcode)
			for i := range d {
				x := hamming16(q, (*[16]uint64)(codes[i*16:]))
				d[i] = uint16(x)
				h[x]++
			}
			return
		}
		for r := c.start; r < c.end; r++ {
			i := r - c.start
			if filtered && !sc.allowed(c.view, r) {
				d[i] = deniedDist
				continue
			}
			x := hamming(sc.qcode, codes[i*words:(i+1)*words])
			d[i] = uint16(x)
			h[x]++
		}
	})
	// Cut-off: the smallest distance t with at least rescore rows <= t.
	cut, n := bins-1, 0
	for t := range bins {
		for w := range nw {
			n += hist[w*bins+t]
		}
		if n >= rescore {
			cut = t
			break
		}
	}
	cands := make([]cand, 0, n)
	for _, c := range sc.chunks {
		for i, d := range dist[c.base : c.base+c.end-c.start] {
			if int(d) <= cut && d != deniedDist {
				cands = append(cands, cand{view: int32(c.view), row: int32(c.start + i)})
			}
		}
	}
	// Exact rescoring, split across workers when large.
	const per = 512
	nc := (len(cands) + per - 1) / per
	tops := make([]topK, min(sc.workers, max(nc, 1)))
	for i := range tops {
		tops[i] = topK{k: k, views: sc.s.views}
	}
	sc.parallel(nc, func(w, ci int) {
		t := &tops[w]
		for _, c := range cands[ci*per : min((ci+1)*per, len(cands))] {
			seg := sc.s.views[c.view].seg
			c.score = vek32.Dot(sc.q, seg.vec(int(c.row)))
			t.push(c)
		}
	})
	return sc.merge(k, tops), len(cands)
}
