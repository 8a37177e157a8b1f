package chunk

import (
	"slices"
	"sync"
	"unicode/utf8"
)

// The splitter counts the same text several times: a code declaration or
// Markdown block whole, then line by line when it does not fit, then each
// chunk the packer emits (indexing the Go distribution's source counted
// every byte about three times, 8 of 64 CPU-s). A pieceIndex scans a
// document's pre-tokens once and keeps the running token count at every
// scan position, so that counting a range costs a few pieces at each end
// and a subtraction in between.
//
// A range's count equals the index's difference exactly because the
// pre-token scan has no memory and almost no look-ahead: scanning text[a:b]
// from a position the whole-text scan also visited yields the same pieces
// as the whole-text scan, except near b, where a piece may look at what
// follows it (the run of white space that leaves its last character to the
// next word looks one character past that character; a letter or digit run
// looks at the character after it). countUpTo therefore scans on its own
// from a until it meets a position of the whole-text scan, takes the
// difference up to the last position at least pieceLookahead bytes before
// b, and scans the rest to b on its own.

// pieceLookahead bounds how far past a piece's end the scan that found it
// looked: a white-space character (at most 3 bytes) and the character
// after it (at most 4). Twice that, for margin.
const pieceLookahead = 16

// minIndexedText is the shortest text worth indexing: below it, counting
// every range directly is as cheap as the index's own scan.
const minIndexedText = 4 << 10

// maxIndexedText is the longest text indexed: the index takes about two
// bytes per byte of text, and the few longer texts (8 of the 11,478 files
// under the Go distribution's src, 13% of its bytes) are counted directly
// rather than add their index to the memory of every worker splitting one.
const maxIndexedText = 1 << 20

// pieceIndex counts ranges of one text. When the text is valid UTF-8 and
// of an indexed size, pos[i] is the i-th position the whole-text
// pre-token scan visited (ascending; a piece starts there, or a character
// the tokenizer skips) and tokens[i] the tokens of the pieces before it;
// the last entry is len(text) with the text's count. Otherwise pos is
// empty and every range is counted on its own. Either way, pieces are
// looked up in near first.
type pieceIndex struct {
	text   string
	pos    []int32
	tokens []int32
	near   nearPieces
}

// pieceIndexPool keeps indexes, with their near caches warm, for the
// next texts.
var pieceIndexPool = sync.Pool{New: func() any { return new(pieceIndex) }}

// newPieceIndex returns text's piece index; release returns it.
func newPieceIndex(text string) *pieceIndex {
	x := pieceIndexPool.Get().(*pieceIndex)
	x.text, x.pos, x.tokens = text, x.pos[:0], x.tokens[:0]
	if len(text) < minIndexedText || len(text) > maxIndexedText || !utf8.ValidString(text) {
		return x
	}
	n := 0
	for i := 0; i < len(text); {
		x.pos = append(x.pos, int32(i))
		x.tokens = append(x.tokens, int32(n))
		var t int
		i, t = scanStep(text, i, &x.near)
		n += t
	}
	x.pos = append(x.pos, int32(len(text)))
	x.tokens = append(x.tokens, int32(n))
	return x
}

// maxPooledPieces bounds the positions a pooled index keeps room for
// (8 bytes each): one very large document does not pin its index's memory
// in every pooled one.
const maxPooledPieces = 1 << 18

// release returns x to the pool; x must not be used afterwards.
func (x *pieceIndex) release() {
	x.text = ""
	if cap(x.pos) > maxPooledPieces {
		x.pos, x.tokens = nil, nil
	}
	pieceIndexPool.Put(x)
}

// countUpTo is countTokensUpTo(text[a:b], limit): exact when at most
// limit, above limit otherwise.
func (x *pieceIndex) countUpTo(a, b, limit int) int {
	if len(x.pos) == 0 || b-a <= 2*pieceLookahead ||
		!utf8.RuneStart(x.text[a]) || (b < len(x.text) && !utf8.RuneStart(x.text[b])) {
		// Not indexed, short, or cut inside a rune (not valid UTF-8 on
		// its own, which the tokenizer reads differently).
		return x.direct(a, b, limit)
	}
	s := x.text[:b] // the scan must not see past b
	n, i := 0, a
	// Scan on its own until meeting a position of the whole-text scan.
	k, _ := slices.BinarySearch(x.pos, int32(a))
	for i < b-pieceLookahead && n <= limit {
		for int(x.pos[k]) < i {
			k++
		}
		if int(x.pos[k]) == i {
			// Synchronised: take the index's count up to the last
			// position far enough from b.
			j, found := slices.BinarySearch(x.pos, int32(b-pieceLookahead))
			if !found {
				j--
			}
			if j > k {
				n += int(x.tokens[j] - x.tokens[k])
				i = int(x.pos[j])
			}
			break
		}
		var t int
		i, t = scanStep(s, i, &x.near)
		n += t
	}
	if n > limit || i >= b {
		return n
	}
	return n + countPiecesUpTo(s[i:], limit-n, &x.near)
}

// direct is countTokensUpTo(text[a:b], limit) without the index.
func (x *pieceIndex) direct(a, b, limit int) int {
	s := x.text[a:b]
	if s != "" && utf8.ValidString(s) {
		return countPiecesUpTo(s, limit, &x.near)
	}
	return CountTokens(s)
}
