package chunk

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names the tokenizer CountTokens uses: OpenAI's o200k_base, which
// is compact for German, Russian and Chinese as well as English. For other
// models (Claude, Llama...) its counts are estimates.
const Encoding = "o200k_base"

// codec is initialised on first use: building the o200k vocabulary map takes
// about 25 ms and ~30 MB, which programs that never chunk should not pay.
var codec = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		// The vocabulary is compiled into the binary; this cannot fail
		// unless the dependency itself is broken.
		panic("chunk: load " + Encoding + " tokenizer: " + err.Error())
	}
	return c
})

// CountTokens returns the number of o200k_base tokens in text, exactly as
// the tokenizer counts them. It is safe for concurrent use and linear in
// len(text) on any input: text is split into the pre-tokens of the
// tokenizer's expression by a matcher of its own (fastCount; the
// tokenizer's expression and pair merging are quadratic on long runs of
// white space, and slow everywhere), and each piece is counted once and
// cached; runs of one repeated ASCII white-space byte are counted by a
// merge over run lengths (see countSpace).
func CountTokens(text string) int {
	if text == "" {
		return 0
	}
	if utf8.ValidString(text) {
		return fastCount(text)
	}
	return slowCount(text)
}

// countTokensUpTo is CountTokens where only a count up to limit matters: it
// is exact when it is at most limit and above limit otherwise, and stops
// counting there. The builder counts a unit that may fit a chunk and splits
// it when it does not: past Size, the count was never used.
func countTokensUpTo(text string, limit int) int {
	if text != "" && utf8.ValidString(text) {
		return fastCountUpTo(text, limit)
	}
	return CountTokens(text)
}

// slowCount is CountTokens for text that is not valid UTF-8, which the
// tokenizer reads with every bad byte replaced by U+FFFD (so its pieces are
// not substrings of text): the tokenizer counts it, with long runs of white
// space cut out and counted apart.
func slowCount(text string) int {
	total, prev := 0, 0
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				i++
				continue
			}
		} else if r, w := utf8.DecodeRuneInString(text[i:]); !unicode.IsSpace(r) {
			i += w
			continue
		}
		a, b := i, spaceEnd(text, i)
		i = b
		if b-a < longSpace {
			continue
		}
		cut1, cut2 := spaceCuts(text, a, b)
		if cut2-cut1 < longSpace/2 {
			continue
		}
		total += codecCount(text[prev:cut1]) + countSpace(text[cut1:cut2])
		prev = cut2
	}
	return total + codecCount(text[prev:])
}

// longSpace is the length in bytes from which a run of white space is
// counted by countSpace rather than handed to the tokenizer whole. A
// variable so that tests can exercise the path on small inputs.
var longSpace = 64

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// spaceEnd returns the end of the run of white space (unicode.IsSpace, the
// tokenizer's \s) that starts at i.
func spaceEnd(text string, i int) int {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += w
	}
	return i
}

func isNewline(c byte) bool { return c == '\n' || c == '\r' }

// spaceCuts returns the part [cut1, cut2) of the white-space run text[a:b]
// that consists of whole pre-tokens of o200k's expression
//
//	...| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// as the tokenizer runs it. Its first pre-token may be joined to the one
// before the run (punctuation takes the newlines after it), and its last
// character to the one after the run (" word", " (" ...); everything in
// between is white space only, and the tokenizer's \s*[\r\n]+ stops at the
// first run of newlines (its generated matcher backtracks to the first
// newline, not the last), so cut1 is the end of the first run of newlines,
// or a if there is none, and cut2 is b if the run ends the text or ends
// with a newline, else the start of the run's last character.
func spaceCuts(text string, a, b int) (cut1, cut2 int) {
	cut1 = a
	for j := a; j < b; j++ {
		if isNewline(text[j]) {
			for j < b && isNewline(text[j]) {
				j++
			}
			cut1 = j
			break
		}
	}
	cut2 = b
	if b < len(text) && !isNewline(text[b-1]) {
		_, w := utf8.DecodeLastRuneInString(text[a:b])
		cut2 = b - w
	}
	return cut1, max(cut1, cut2)
}

// countSpace counts white space made of whole pre-tokens (see spaceCuts):
// each pre-token is the white space up to and including the next run of
// newlines, or the rest.
func countSpace(s string) int {
	n := 0
	for s != "" {
		end := len(s)
		if j := strings.IndexAny(s, "\r\n"); j >= 0 {
			for j < len(s) && isNewline(s[j]) {
				j++
			}
			end = j
		}
		n += countPreToken(s[:end])
		s = s[end:]
	}
	return n
}

// countPreToken counts one pre-token: a run of one repeated ASCII byte by
// runTokens, anything else by the tokenizer.
func countPreToken(p string) int {
	if len(p) >= 2 && p[0] < utf8.RuneSelf && strings.Count(p, p[:1]) == len(p) {
		return runTokens(p[0], len(p))
	}
	return codecCount(p)
}

// codecCount is the tokenizer's count of text.
func codecCount(text string) int {
	if text == "" {
		return 0
	}
	tokenizerWork.Add(int64(len(text)))
	tokenizerCalls.Add(1)
	n, err := codec().Count(text)
	if err != nil {
		// The codec only fails on a regexp engine error; fall back to a
		// conservative estimate rather than reporting zero.
		return len(text)
	}
	return n
}

// tokenizerWork and tokenizerCalls count the bytes handed to the tokenizer
// and its calls since the program started: the work units by which the
// tests bound Split's cost per input byte without timing it.
var tokenizerWork, tokenizerCalls atomic.Int64

// runs caches, per ASCII byte, the ranks of the vocabulary's tokens made of
// that byte repeated, and the counts of runs already merged.
var runs struct {
	sync.Mutex
	ranks  map[byte][]uint32 // ranks[c][k]: rank of c repeated k times, or noRank
	counts map[[2]int]int    // {c, n} -> tokens
}

const noRank = ^uint32(0)

// maxRunToken bounds the length of the repeated-byte tokens looked up
// (o200k's longest run of spaces is 128 bytes).
const maxRunToken = 512

// runTokens returns the number of tokens the tokenizer's byte-pair merge
// makes of byte c repeated n times. It runs the same merge as the
// tokenizer (repeatedly join the adjacent pair whose joined token has the
// lowest rank, the leftmost among equals), on part lengths instead of
// strings, so a run costs O(n log n) integer operations; results are
// cached by length.
func runTokens(c byte, n int) int {
	runs.Lock()
	defer runs.Unlock()
	if runs.ranks == nil {
		runs.ranks = map[byte][]uint32{}
		runs.counts = map[[2]int]int{}
	}
	key := [2]int{int(c), n}
	if t, ok := runs.counts[key]; ok {
		return t
	}
	rank, ok := runs.ranks[c]
	if !ok {
		rank = make([]uint32, maxRunToken+1)
		for k := range rank {
			rank[k] = noRank
			if k >= 1 {
				if ids, _, err := codec().Encode(strings.Repeat(string(c), k)); err == nil && len(ids) == 1 {
					rank[k] = uint32(ids[0])
				}
			}
		}
		runs.ranks[c] = rank
	}
	t := mergeRun(rank, n)
	if len(runs.counts) > 1<<14 {
		clear(runs.counts)
	}
	runs.counts[key] = t
	return t
}

// mergeRun is the tokenizer's byte-pair merge (mergePairsHeap) on a run of
// n equal bytes, where rank[k] is the rank of the token of k such bytes.
func mergeRun(rank []uint32, n int) int {
	if n < len(rank) && rank[n] != noRank {
		return 1 // the whole piece is a token
	}
	next := make([]int32, n+1) // part boundaries as a linked list
	prev := make([]int32, n+1)
	pr := make([]uint32, n+1) // rank of merging the part at i with its successor
	for i := range next {
		next[i], prev[i], pr[i] = int32(i+1), int32(i-1), noRank
	}
	next[n] = -1
	rankOf := func(i int32) uint32 {
		j := next[i]
		if j < 0 || next[j] < 0 {
			return noRank
		}
		if l := next[j] - i; int(l) < len(rank) {
			return rank[l]
		}
		return noRank
	}
	h := runHeap{}
	for i := int32(0); i+2 <= int32(n); i++ {
		if r := rankOf(i); r != noRank {
			pr[i] = r
			h = append(h, runCand{r, i})
		}
	}
	h.init()
	parts := n
	for len(h) > 0 {
		top := h.pop()
		i := top.off
		if pr[i] != top.rank {
			continue
		}
		j := next[i]
		k := next[j]
		pr[j] = noRank
		next[i] = k
		if k >= 0 {
			prev[k] = i
		}
		parts--
		for _, b := range [2]int32{i, prev[i]} {
			if b < 0 {
				continue
			}
			pr[b] = rankOf(b)
			if pr[b] != noRank {
				h.push(runCand{pr[b], b})
			}
		}
	}
	return parts
}

type runCand struct {
	rank uint32
	off  int32
}

// runHeap is a min-heap by rank, then offset (leftmost first).
type runHeap []runCand

func (h runHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].off < h[b].off
}

func (h runHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *runHeap) push(c runCand) {
	*h = append(*h, c)
	for i := len(*h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		(*h)[i], (*h)[p] = (*h)[p], (*h)[i]
		i = p
	}
}

func (h *runHeap) pop() runCand {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h runHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
