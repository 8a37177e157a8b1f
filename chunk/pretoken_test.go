package chunk

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// TestPieceClasses pins the character classes of nextPiece to regexp2's on
// every rune outside ASCII (ASCII is covered by TestFastCountExact, which
// counts through the tokenizer's generated matcher).
func TestPieceClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("scans every rune")
	}
	classes := []struct {
		name string
		re   string
		f    func(rune) bool
	}{
		{"prefix", `^[^\r\n\p{L}\p{N}]$`, isPrefix},
		{"other", `^[^\s\p{L}\p{N}]$`, isOther},
		{"upper", `^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$`, isUpperish},
		{"lower", `^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$`, isLowerish},
		{"number", `^\p{N}$`, unicode.IsNumber},
	}
	for _, c := range classes {
		re := regexp2.MustCompile(c.re, regexp2.None)
		for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
			if r >= 0xD800 && r <= 0xDFFF {
				continue
			}
			ok, _ := re.MatchString(string(r))
			if ok != c.f(r) {
				t.Fatalf("rune %U: regexp2 %s = %v, nextPiece's = %v", r, c.re, ok, c.f(r))
			}
		}
	}
}

// pieceAlphabet mixes what the expression's branches and the generated
// matcher's quirks turn on: contractions (with ſ and capitals), marks at
// the start of a piece, title-case and modifier letters, letters without
// case, numbers of other scripts, DEL and other control characters,
// newlines inside white space, slashes after punctuation.
var pieceAlphabet = []string{" ", "  ", "\t", "\n", "\r\n", "\r", "\v", "\f", "\u00a0", "\u3000", "\u2028", "\u0085",
	"a", "Word", "ABC", "aBc", "1", "12345", ".", "!", ",", "/", "(", "'s", "'S", "'ſ", "'re", "'RE", "'Ve", "'ll", "'lL",
	"'d", "'m", "'x", "'", "中文", "é", "\u0301", "\u0301a", "ǅ", "ʰ", "ª", "٣", "Ⅻ", "½", "\x7f", "\x01", "\x1c", "-", "#",
	"    ", "\n\n", "//", "*/\n", "Привет", "мир", "İ", "ß", "🙂", "\u200b", "x\u0308", "_", "$", "\\"}

// mixPiece is one random element of pieceAlphabet, now and then repeated.
func mixPiece(r *rand.Rand) string {
	rep := 1
	if r.IntN(6) == 0 {
		rep = r.IntN(40)
	}
	return strings.Repeat(pieceAlphabet[r.IntN(len(pieceAlphabet))], rep)
}

// TestFastCountExact compares fastCount with the tokenizer on random mixes
// of pieceAlphabet.
func TestFastCountExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	iters := 5000
	if testing.Short() {
		iters = 100
	}
	for it := range iters {
		var sb strings.Builder
		for range r.IntN(30) {
			sb.WriteString(mixPiece(r))
		}
		s := sb.String()
		if got, want := fastCount(s), codecCount(s); got != want {
			t.Fatalf("iter %d: fastCount = %d, tokenizer = %d for %q", it, got, want, s)
		}
	}
}

// TestFastCountRealFiles compares fastCount with the tokenizer on real
// files: this package's test data and, when present, the Go
// distribution's source (every file in full mode, a sample in -short).
func TestFastCountRealFiles(t *testing.T) {
	var paths []string
	testdata, _ := filepath.Glob("testdata/*")
	paths = append(paths, testdata...)
	root := filepath.Join(runtime.GOROOT(), "src")
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		n++
		if testing.Short() && n%2000 != 0 {
			return nil
		}
		paths = append(paths, p)
		return nil
	})
	checked, bytes := 0, 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) > 4<<20 || !utf8.Valid(b) {
			continue
		}
		s := string(b)
		if got, want := fastCount(s), codecCount(s); got != want {
			t.Fatalf("%s: fastCount = %d, tokenizer = %d", p, got, want)
		}
		checked++
		bytes += len(s)
	}
	t.Logf("%d files, %d MB: fastCount equals the tokenizer", checked, bytes>>20)
}

func FuzzFastCount(f *testing.F) {
	for _, s := range pieceAlphabet {
		f.Add(s + " x" + s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 1<<12 {
			return
		}
		if got, want := fastCount(s), codecCount(s); got != want {
			t.Fatalf("fastCount = %d, tokenizer = %d for %q", got, want, s)
		}
	})
}

// TestPieceCacheConcurrent: goroutines counting the same pieces at once,
// more pieces than the cache has slots for a third of (so that slots are
// taken from each other while read), always get the tokenizer's count: a
// slot read while it is written is never believed.
func TestPieceCacheConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _äöüßжзи中文\x00")
	pieces := make([]string, 1<<17)
	want := make([]int, len(pieces))
	for i := range pieces {
		var b strings.Builder
		for b.Len() < 2+rng.IntN(maxCachedPieceLen-2) {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		p := b.String()
		if len(p) > maxCachedPieceLen {
			p = p[:maxCachedPieceLen]
			for !utf8.ValidString(p) {
				p = p[:len(p)-1]
			}
		}
		pieces[i], want[i] = p, codecCount(p)
	}
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 3))
			for range 4 * len(pieces) {
				i := r.IntN(len(pieces))
				if pieceTokens(pieces[i]) != want[i] {
					wrong.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := wrong.Load(); n > 0 {
		t.Fatalf("%d counts differ from the tokenizer's", n)
	}
}
