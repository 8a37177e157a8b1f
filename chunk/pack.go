package chunk

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// packer fills chunks greedily with units and cuts each at the best
// boundary. It keeps at most one chunk's worth of units, so memory does not
// grow with the input beyond the spans it returns.
type packer struct {
	text    string
	size    int
	overlap int
	// forced is the strength at and above which a boundary always ends a
	// chunk that is not tiny (Markdown top-level headings).
	forced int8

	pending  []unit
	fill     int // sum of pending[i].tokens
	nOverlap int // leading pending units repeated from the previous chunk
	// cont, when > 0, is the strength of the section (heading or
	// declaration) that the pending chunk continues after a cut inside it.
	// The next boundary at least that strong ends the chunk unless it is
	// tiny, so a split section's tail does not absorb its neighbours.
	cont  int8
	spans []Span
	// counts counts ranges of text.
	counts *pieceIndex
}

// count is CountTokens(p.text[start:end]).
func (p *packer) count(start, end int) int { return p.counts.countUpTo(start, end, math.MaxInt) }

// countUpTo is countTokensUpTo(p.text[start:end], limit).
func (p *packer) countUpTo(start, end, limit int) int { return p.counts.countUpTo(start, end, limit) }

// minFill is how full (in tokens) a chunk must be before a boundary of the
// given strength may end it early. The strongest allowed boundary wins;
// between equals, the latest.
func (p *packer) minFill(s int8) int {
	switch {
	case s >= strengthHeading6:
		return p.size / 8
	case s == strengthBlock:
		return p.size / 3
	case s >= strengthSentence:
		return p.size / 2
	default:
		return 0
	}
}

func (p *packer) push(u unit) {
	if len(p.pending) > p.nOverlap && p.fill >= p.size/8 &&
		(u.strength >= p.forced || (p.cont > 0 && u.strength >= p.cont)) {
		p.flush()
	}
	if p.cont > 0 && u.strength >= p.cont {
		p.cont = 0
	}
	p.pending = append(p.pending, u)
	p.fill += u.tokens
	for p.fill > p.size && len(p.pending) > 1 {
		p.cut()
	}
}

// cut ends a chunk before the last pending unit or earlier, and starts the
// next chunk with the overlap and the units left over.
func (p *packer) cut() {
	last := len(p.pending) - 1
	if last <= p.nOverlap {
		// The new unit does not fit after the overlap: drop the overlap.
		p.dropOverlap()
		return
	}
	// Choose k, the first unit of the next chunk: cutting before the unit
	// that overflowed is always allowed; an earlier, stronger boundary wins
	// if the chunk is full enough there.
	best, bestS := last, p.pending[last].strength
	fill := p.fill - p.pending[last].tokens // tokens of pending[:k]
	for k := last - 1; k > p.nOverlap; k-- {
		fill -= p.pending[k].tokens
		if s := p.pending[k].strength; s > bestS && fill >= p.minFill(s) {
			best, bestS = k, s
		}
	}
	k := p.emit(best)
	p.continues(k)
	p.carry(k)
}

// continues sets p.cont for the chunk that will start at pending[k]: the
// strength of the last section start in pending[:k], or, if the section
// started in an earlier chunk, the one already in p.cont.
func (p *packer) continues(k int) {
	if p.pending[k].strength >= strengthHeading6 {
		p.cont = 0
		return
	}
	for i := k - 1; i >= 0; i-- {
		if s := p.pending[i].strength; s >= strengthHeading6 {
			p.cont = s
			return
		}
	}
}

// dropOverlap removes the units repeated from the previous chunk.
func (p *packer) dropOverlap() {
	for _, u := range p.pending[:p.nOverlap] {
		p.fill -= u.tokens
	}
	p.pending = append(p.pending[:0], p.pending[p.nOverlap:]...)
	p.nOverlap = 0
}

// emit appends the chunk made of pending[:k] and returns the number of
// units it used: fewer than k when the exact count of the joined text
// exceeds Size (token counts are not exactly additive), after dropping
// the overlap and, for a single unit, splitting it.
func (p *packer) emit(k int) int {
	steps := 0
	for {
		start, end := p.pending[0].start, p.pending[k-1].end
		t := p.count(start, end)
		switch {
		case t <= p.size:
			p.spans = append(p.spans, Span{Start: start, End: end, Tokens: t, Heading: p.heading(k)})
			return k
		case k-1 > p.nOverlap && steps < 4:
			k--
			steps++
		case k-1 > p.nOverlap:
			// The units' counts fell far short of the joined text's:
			// find a fitting k by bisection rather than one unit at a
			// time, so that a chunk costs O(log k) counts.
			k = p.fitting(k)
			steps = 0
		case p.nOverlap > 0:
			n := p.nOverlap
			p.dropOverlap()
			k -= n
		default:
			// One unit that counted a token or two less with the
			// white space before it than alone.
			if !p.splitUnit(0) {
				p.spans = append(p.spans, Span{Start: start, End: end, Tokens: t, Heading: p.heading(k)})
				return k
			}
		}
	}
}

// fitting returns the largest k' in (nOverlap, k) for which pending[:k']
// fits Size, assuming counts grow with k' (they nearly do), or nOverlap+1
// when none does.
func (p *packer) fitting(k int) int {
	lo, hi := p.nOverlap+1, k-1 // answer in [lo, hi]
	for lo < hi {
		m := (lo + hi + 1) / 2
		if p.countUpTo(p.pending[0].start, p.pending[m-1].end, p.size) <= p.size {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// splitUnit replaces pending[i] by two halves, cut at the white space or
// else the rune boundary closest to its middle. It reports false for a
// single rune.
func (p *packer) splitUnit(i int) bool {
	u := p.pending[i]
	s := p.text[u.start:u.end]
	mid := len(s) / 2
	cut := -1
	for j, r := range s {
		if j > 0 && unicode.IsSpace(r) && (cut < 0 || abs(j-mid) < abs(cut-mid)) {
			cut = j
		}
	}
	strength := strengthWord
	var a, b unit
	if cut > 0 {
		as, ae := trim(p.text, u.start, u.start+cut)
		bs, be := trim(p.text, u.start+cut, u.end)
		a, b = unit{start: as, end: ae}, unit{start: bs, end: be}
	} else {
		j := mid
		for j > 0 && !utf8.RuneStart(s[j]) {
			j--
		}
		if j == 0 {
			_, w := utf8.DecodeRuneInString(s)
			j = w
		}
		if j >= len(s) {
			return false
		}
		a, b = unit{start: u.start, end: u.start + j}, unit{start: u.start + j, end: u.end}
		strength = strengthRune
	}
	a.tokens, a.strength, a.prose, a.heading = p.count(a.start, a.end), u.strength, true, u.heading
	b.tokens, b.strength, b.prose, b.heading = p.count(b.start, b.end), strength, true, u.heading
	p.fill += a.tokens + b.tokens - u.tokens
	p.pending = append(p.pending[:i+1], p.pending[i:]...)
	p.pending[i], p.pending[i+1] = a, b
	return true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// carry starts the next chunk after pending[:k] was emitted: the overlap
// taken from the end of the emitted chunk, then pending[k:].
func (p *packer) carry(k int) {
	var ov []unit
	if p.overlap > 0 && p.pending[k].strength < strengthNoOverlap {
		ov = p.overlapUnits(k)
	}
	rest := p.pending[k:]
	next := make([]unit, 0, len(ov)+len(rest)+16)
	next = append(next, ov...)
	next = append(next, rest...)
	p.pending = next
	p.nOverlap = len(ov)
	p.fill = 0
	for _, u := range next {
		p.fill += u.tokens
	}
	if p.nOverlap > 0 && p.fill > p.size && len(p.pending) == p.nOverlap+1 {
		p.dropOverlap()
	}
}

// overlapUnits returns the tail of pending[:k] worth at most p.overlap
// tokens, starting at a sentence boundary when one is close enough, else at
// a word boundary. It never reaches back over a heading or declaration, and
// never to the start of the chunk.
func (p *packer) overlapUnits(k int) []unit {
	tot := 0
	j := k
	for j > 0 && p.pending[j].strength < strengthNoOverlap {
		u := p.pending[j-1]
		if j > 1 && tot+u.tokens <= p.overlap {
			tot += u.tokens
			j--
			continue
		}
		if tot == 0 && u.prose {
			if w, ok := p.wordTail(u, p.overlap); ok {
				return []unit{w}
			}
		}
		break
	}
	if j == k {
		return nil
	}
	return append([]unit(nil), p.pending[j:k]...)
}

// wordTail returns the longest tail of u that starts at a word boundary
// and has at most budget tokens. Boundaries after white space or clause
// punctuation ("，", "、", ";") are preferred; inside a run of CJK
// characters any rune boundary is a last resort.
func (p *packer) wordTail(u unit, budget int) (unit, bool) {
	s := p.text[u.start:u.end]
	// Only the last budget*maxCountBytesPerToken bytes can qualify.
	lo := max(0, len(s)-budget*maxCountBytesPerToken)
	for lo > 0 && !utf8.RuneStart(s[lo]) {
		lo++
	}
	var soft, any []int // boundaries in s[lo:], ascending, excluding 0
	prev := ' '
	for i, r := range s[lo:] {
		if pos := lo + i; pos > 0 && !unicode.IsSpace(r) {
			switch {
			case unicode.IsSpace(prev) || isClausePunct(prev):
				soft = append(soft, pos)
				any = append(any, pos)
			case isCJK(r) && isCJK(prev):
				any = append(any, pos)
			}
		}
		prev = r
	}
	for _, starts := range [][]int{soft, any} {
		if st, ok := p.fittingTail(u, starts, budget); ok {
			st += u.start
			return unit{start: st, end: u.end, tokens: p.count(st, u.end),
				strength: strengthWord, prose: true, heading: u.heading}, true
		}
	}
	return unit{}, false
}

// fittingTail binary-searches starts (offsets into u's text) for the
// first one whose tail of u has at most budget tokens.
func (p *packer) fittingTail(u unit, starts []int, budget int) (int, bool) {
	i, j := 0, len(starts)
	for i < j {
		m := (i + j) / 2
		if p.count(u.start+starts[m], u.end) <= budget {
			j = m
		} else {
			i = m + 1
		}
	}
	if i == len(starts) {
		return 0, false
	}
	return starts[i], true
}

func isClausePunct(r rune) bool {
	switch r {
	case ',', ';', ':', '，', '、', '；', '：':
		return true
	}
	return false
}

// flush emits everything pending; the next chunk starts afresh.
func (p *packer) flush() {
	for len(p.pending) > p.nOverlap {
		if p.fill > p.size && len(p.pending) > 1 {
			p.cut()
			continue
		}
		k := p.emit(len(p.pending))
		if k == len(p.pending) {
			break
		}
		p.continues(k)
		p.carry(k)
	}
	p.pending, p.fill, p.nOverlap, p.cont = p.pending[:0], 0, 0, 0
}

// heading names the chunk made of pending[:k]: the deepest heading path
// shared by its first and last unit, or else the first non-empty one.
func (p *packer) heading(k int) string {
	first, last := p.pending[0].heading, p.pending[k-1].heading
	if first == last {
		if first != "" {
			return first
		}
	} else if c := commonPath(first, last); c != "" {
		return c
	}
	for _, u := range p.pending[:k] {
		if u.heading != "" {
			return u.heading
		}
	}
	return ""
}

// commonPath returns the longest common prefix of two " > "-joined paths,
// in whole components.
func commonPath(a, b string) string {
	n := 0
	for {
		ia := strings.Index(a[n:], pathSep)
		ib := strings.Index(b[n:], pathSep)
		ea, eb := len(a), len(b)
		if ia >= 0 {
			ea = n + ia
		}
		if ib >= 0 {
			eb = n + ib
		}
		if ea != eb || a[n:ea] != b[n:eb] {
			if n == 0 {
				return ""
			}
			return a[:n-len(pathSep)]
		}
		if ia < 0 || ib < 0 {
			return a[:ea]
		}
		n = ea + len(pathSep)
	}
}

const pathSep = " > "
