package chunk

import (
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// checkPieceIndex compares the piece index's count of random ranges of s
// (cut anywhere, inside runes too, and near scan positions, where the
// look-ahead matters) with counting the range on its own, with and
// without a limit.
func checkPieceIndex(t *testing.T, name, s string, r *rand.Rand, ranges int) {
	t.Helper()
	x := newPieceIndex(s)
	defer x.release()
	if len(x.pos) == 0 {
		t.Fatalf("%s: no index for %d bytes", name, len(s))
	}
	cut := func() int {
		if r.IntN(2) == 0 {
			// Next to a scan position of the whole text.
			p := int(x.pos[r.IntN(len(x.pos))]) + r.IntN(2*pieceLookahead+1) - pieceLookahead
			return min(max(p, 0), len(s))
		}
		return r.IntN(len(s) + 1)
	}
	for range ranges {
		a, b := cut(), cut()
		if a > b {
			a, b = b, a
		}
		if r.IntN(4) == 0 {
			b = min(len(s), a+r.IntN(200)) // short ranges, where most cuts are
		}
		want := countTokensUpTo(s[a:b], math.MaxInt)
		if got := x.countUpTo(a, b, math.MaxInt); got != want {
			t.Fatalf("%s [%d:%d]: index counts %d, the range alone %d: %q", name, a, b, got, want, s[a:b])
		}
		limit := r.IntN(want + 2)
		got := x.countUpTo(a, b, limit)
		if (want <= limit && got != want) || (want > limit && got <= limit) {
			t.Fatalf("%s [%d:%d] limit %d: index counts %d, the range alone %d", name, a, b, limit, got, want)
		}
	}
}

// TestPieceIndexMixes checks the piece index on random mixes of
// pieceAlphabet, which holds every branch of the pre-token expression and
// the white space that looks ahead.
func TestPieceIndexMixes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	texts := 80
	if testing.Short() {
		texts = 30
	}
	for it := range texts {
		var sb strings.Builder
		for sb.Len() < minIndexedText {
			sb.WriteString(mixPiece(r))
		}
		s := sb.String()
		if !newPieceIndexOK(s) {
			continue // pieceAlphabet has no invalid UTF-8 today
		}
		checkPieceIndex(t, "mix "+string(rune('0'+it%10)), s, r, 300)
	}
}

// newPieceIndexOK reports whether s gets a piece index (long enough, not
// too long, valid UTF-8).
func newPieceIndexOK(s string) bool {
	x := newPieceIndex(s)
	defer x.release()
	return len(x.pos) > 0
}

// TestPieceIndexRealFiles checks the piece index on real files: this
// package's test data and a sample of the Go distribution's source.
func TestPieceIndexRealFiles(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*")
	every := 50
	if testing.Short() {
		every = 200
	}
	n := 0
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if n++; n%every == 0 {
				paths = append(paths, p)
			}
		}
		return nil
	})
	r := rand.New(rand.NewPCG(9, 10))
	checked := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !newPieceIndexOK(string(b)) {
			continue
		}
		checkPieceIndex(t, p, string(b), r, 200)
		checked++
	}
	if checked < 5 {
		t.Fatalf("only %d files checked", checked)
	}
	t.Logf("%d files", checked)
}
