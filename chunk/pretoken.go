package chunk

import (
	"encoding/binary"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// The tokenizer spends most of its time in its pre-tokenizing expression
// (o200k's, run by regexp2's generated matcher); the byte-pair merges of
// the pieces are cheap, and code and prose repeat the same pieces
// (" err", " the", "\n\t") all the time. fastCount therefore splits the
// text into the expression's pieces with a hand-written matcher that
// follows the generated one step by step (including its quirks, see
// nextPiece), and counts each piece once: a piece's count does not depend
// on its neighbours, so it is cached.

// nextPiece returns the end of the pre-token of o200k's expression
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// that starts at i in s (valid UTF-8), as the tokenizer's matcher finds
// it, or -1 when no alternative matches there (the tokenizer then skips
// the character: it makes no token). Two behaviours of the generated
// matcher differ from textbook backtracking and are kept: \s*[\r\n]+
// backtracks to the first newline of the white space, not the last, and
// DEL (U+007F) belongs to neither of the "other character" classes.
func nextPiece(s string, i int) int {
	r0, w0 := decode(s, i)
	// Branches 0 and 1: letters with an optional leading other character.
	if e := letters(s, i, r0, w0); e >= 0 {
		return e
	}
	// Branch 2: one to three numbers.
	if unicode.IsNumber(r0) {
		e := i + w0
		for n := 1; n < 3 && e < len(s); n++ {
			r, w := decode(s, e)
			if !unicode.IsNumber(r) {
				break
			}
			e += w
		}
		return e
	}
	// Branch 3: an optional space, other characters, then newlines and
	// slashes (all atomic).
	p := i
	if r0 == ' ' {
		p++
	}
	if e := p; e < len(s) {
		for e < len(s) {
			r, w := decode(s, e)
			if !isOther(r) {
				break
			}
			e += w
		}
		if e > p {
			for e < len(s) && (s[e] == '\n' || s[e] == '\r' || s[e] == '/') {
				e++
			}
			return e
		}
	}
	if !unicode.IsSpace(r0) {
		return -1
	}
	q := spaceEnd(s, i)
	// Branch 4: \s*[\r\n]+ — the matcher's backtracking lands on the
	// first newline of the run and takes the newlines from there.
	if j := strings.IndexAny(s[i:q], "\r\n"); j >= 0 {
		e := i + j
		for e < q && (s[e] == '\n' || s[e] == '\r') {
			e++
		}
		return e
	}
	// Branch 5: \s+(?!\S) — all of it at the end of the text, else all but
	// the last character (which goes with the next piece).
	if q == len(s) {
		return q
	}
	if _, w := utf8.DecodeLastRuneInString(s[i:q]); q-w > i {
		return q - w
	}
	// Branch 6: \s+.
	return q
}

// letters matches branches 0 and 1 at i (r0 of width w0 is the rune at
// i): the end of the match, or -1.
func letters(s string, i int, r0 rune, w0 int) int {
	pre := isPrefix(r0)
	// Branch 0: prefix? upper* lower+ contraction?, backtracking through
	// the prefix and the upper run.
	for _, p := range [2]int{i + w0, i} {
		if p == i+w0 && !pre {
			continue
		}
		q := p
		for q < len(s) {
			r, w := decode(s, q)
			if !isUpperish(r) {
				break
			}
			q += w
		}
		for pos := q; ; {
			e := pos
			for e < len(s) {
				r, w := decode(s, e)
				if !isLowerish(r) {
					break
				}
				e += w
			}
			if e > pos {
				return contraction(s, e)
			}
			if pos == p {
				break
			}
			_, w := utf8.DecodeLastRuneInString(s[p:pos])
			pos -= w
		}
	}
	// Branch 1: prefix? upper+ lower* contraction?.
	for _, p := range [2]int{i + w0, i} {
		if p == i+w0 && !pre {
			continue
		}
		q := p
		for q < len(s) {
			r, w := decode(s, q)
			if !isUpperish(r) {
				break
			}
			q += w
		}
		if q == p {
			continue
		}
		for q < len(s) {
			r, w := decode(s, q)
			if !isLowerish(r) {
				break
			}
			q += w
		}
		return contraction(s, q)
	}
	return -1
}

// contraction extends a match ending at e by (?i:'s|'t|'re|'ve|'m|'ll|'d),
// as the generated matcher compares (ſ counts as s).
func contraction(s string, e int) int {
	if e+1 >= len(s) || s[e] != '\'' {
		return e
	}
	r1, w1 := decode(s, e+1)
	switch r1 {
	case 'S', 'T', 's', 't', 'ſ', 'M', 'm', 'D', 'd':
		return e + 1 + w1
	case 'R', 'r', 'V', 'v':
		if e+2 < len(s) && s[e+2]|0x20 == 'e' {
			return e + 3
		}
	case 'L', 'l':
		if e+2 < len(s) && s[e+2]|0x20 == 'l' {
			return e + 3
		}
	}
	return e
}

func decode(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// isPrefix is [^\r\n\p{L}\p{N}] as the generated matcher tests it (DEL
// excluded).
func isPrefix(r rune) bool {
	if r < utf8.RuneSelf {
		return r != '\r' && r != '\n' && r != 0x7f && !isASCIILetterOrDigit(r)
	}
	return !unicode.IsLetter(r) && !unicode.IsNumber(r)
}

// isOther is [^\s\p{L}\p{N}] as the generated matcher tests it (DEL
// excluded).
func isOther(r rune) bool {
	if r < utf8.RuneSelf {
		return r != 0x7f && !asciiSpace[r] && !isASCIILetterOrDigit(r)
	}
	return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
}

func isASCIILetterOrDigit(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// isUpperish is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func isUpperish(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'A' && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLowerish is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isLowerish(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// pieceCache holds the token counts of short pieces (2 to 24 bytes): the
// Go distribution's source (100 MB) has 406,000 distinct ones among 24
// million. It is a direct-mapped table whose slots hold the piece itself:
// a lookup reads one 32-byte slot, where a map of strings read its table
// and then the key's bytes elsewhere in the heap, and behind a
// reader-writer lock whose counter the preparing goroutines passed from
// core to core on every piece (the map was 5.2 of 73 CPU-s indexing
// GOROOT/src). A piece whose slot holds another is counted and takes the
// slot. Readers take no lock: a slot's meta word carries a sequence number
// that is odd while the slot is written, and a reader that sees it odd or
// changed counts the piece instead.
var pieceCache struct {
	once  sync.Once
	slots []pieceSlot
}

const (
	pieceCacheBits    = 19 // 512k slots of 32 bytes: 16 MiB
	maxCachedPieceLen = 24
)

type pieceSlot struct {
	// meta is seq<<32 | tokens<<8 | len (len 0: empty).
	meta atomic.Uint64
	key  [3]atomic.Uint64 // the piece, little-endian, zero-padded
}

// packPiece returns p (at most 24 bytes) as three little-endian words.
func packPiece(p string) (w [3]uint64) {
	var b [maxCachedPieceLen]byte
	copy(b[:], p)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w
}

// pieceHash hashes a packed piece of n bytes; tables index by its top bits.
func pieceHash(w [3]uint64, n int) uint64 {
	return (w[0]*0x9e3779b97f4a7c15 ^ w[1]*0xc2b2ae3d27d4eb4f ^ w[2]*0x165667b19e3779f9 ^ uint64(n)) * 0xff51afd7ed558ccd
}

// nearPieces caches piece counts for one goroutine at a time (it lives in
// a pieceIndex): a few thousand pieces make most of any text (" err",
// "\n\t", " the"), and a table of them this small stays in the core's own
// cache, where each lookup in the shared table reads main memory. A miss
// asks the shared table.
type nearPieces [1 << nearPieceBits]nearSlot

const nearPieceBits = 12 // 4096 slots of 32 bytes: 128 KiB

type nearSlot struct {
	key  [3]uint64
	meta uint32 // tokens<<8 | len (len 0: empty)
}

// tokens counts the tokens of one pre-token; a nil c asks only the shared
// table.
func (c *nearPieces) tokens(p string) int {
	if len(p) == 1 {
		return 1 // every byte is a token
	}
	if len(p) > maxCachedPieceLen {
		return countPreToken(p)
	}
	w := packPiece(p)
	h := pieceHash(w, len(p))
	if c == nil {
		return cachedPieceTokens(w, h, p)
	}
	s := &c[h>>(64-nearPieceBits)]
	if int(s.meta&0xff) == len(p) && s.key == w {
		return int(s.meta >> 8)
	}
	n := cachedPieceTokens(w, h, p)
	s.key, s.meta = w, uint32(n)<<8|uint32(len(p))
	return n
}

// pieceTokens counts the tokens of one pre-token.
func pieceTokens(p string) int { return (*nearPieces)(nil).tokens(p) }

// cachedPieceTokens is the shared table's count of a piece of 2 to 24 bytes packed
// into w, whose pieceHash is h.
func cachedPieceTokens(w [3]uint64, h uint64, p string) int {
	pieceCache.once.Do(func() { pieceCache.slots = make([]pieceSlot, 1<<pieceCacheBits) })
	slot := &pieceCache.slots[h>>(64-pieceCacheBits)]
	m := slot.meta.Load()
	if m>>32&1 == 0 && int(m&0xff) == len(p) &&
		slot.key[0].Load() == w[0] && slot.key[1].Load() == w[1] && slot.key[2].Load() == w[2] &&
		slot.meta.Load() == m {
		return int(m >> 8 & 0xff)
	}
	n := codecCount(p)
	// Take the slot unless another goroutine is writing it.
	if m = slot.meta.Load(); m>>32&1 == 0 && n <= 0xff {
		seq := m >> 32
		if slot.meta.CompareAndSwap(m, (seq+1)<<32) {
			for i := range w {
				slot.key[i].Store(w[i])
			}
			slot.meta.Store((seq+2)<<32 | uint64(n)<<8 | uint64(len(p)))
		}
	}
	return n
}

// fastCount counts the tokens of s (valid UTF-8) piece by piece.
func fastCount(s string) int { return fastCountUpTo(s, math.MaxInt) }

// fastCountUpTo is fastCount stopping once the count exceeds limit.
func fastCountUpTo(s string, limit int) int { return countPiecesUpTo(s, limit, nil) }

// countPiecesUpTo is fastCountUpTo looking pieces up in near first, when
// it is not nil.
func countPiecesUpTo(s string, limit int, near *nearPieces) int {
	n := 0
	for i := 0; i < len(s) && n <= limit; {
		var t int
		i, t = scanStep(s, i, near)
		n += t
	}
	return n
}

// scanStep takes one step of the pre-token scan of s at i: it returns
// where the next step starts and the tokens of the piece passed (none for
// a character the tokenizer skips). Pieces are looked up in near first,
// when it is not nil.
func scanStep(s string, i int, near *nearPieces) (next, tokens int) {
	e := nextPiece(s, i)
	if e < 0 {
		_, w := decode(s, i)
		return i + w, 0
	}
	return e, near.tokens(s[i:e])
}
