package chunk

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/dlclark/regexp2/v2"
)

// TestCountTokensExact checks that CountTokens, which counts long runs of
// white space piece by piece, equals the tokenizer's own count on inputs
// full of white space of every kind next to words, numbers and
// punctuation, with the threshold lowered so that every run takes the
// piecewise path.
func TestCountTokensExact(t *testing.T) {
	alphabet := []string{" ", "  ", "\t", "\n", "\r\n", "\r", "\v", "\f", "\u00a0", "\u3000", "\u2028", "\u0085",
		"a", "Word", "ABC", "1", "12345", ".", "!", ",", "/", "(", "'s", "中文", "é", "\u0301", "\xff", "-", "#", "    ", "\n\n"}
	r := rand.New(rand.NewPCG(3, 4))
	iters := 3000
	if testing.Short() {
		iters = 200
	}
	for _, ls := range []int{2, 5, 64} {
		old := longSpace
		longSpace = ls
		for it := range iters {
			var sb strings.Builder
			for range r.IntN(40) {
				s := alphabet[r.IntN(len(alphabet))]
				rep := 1
				if r.IntN(4) == 0 {
					rep = r.IntN(300)
				}
				sb.WriteString(strings.Repeat(s, rep))
			}
			s := sb.String()
			if got, want := CountTokens(s), codecCount(s); got != want {
				longSpace = old
				t.Fatalf("longSpace=%d iter %d: CountTokens = %d, tokenizer = %d for %q", ls, it, got, want, s)
			}
		}
		longSpace = old
	}
}

// TestRunTokens checks the merge over run lengths against the tokenizer
// for every run length up to 3,000 of each ASCII white-space byte.
func TestRunTokens(t *testing.T) {
	max := 3000
	if testing.Short() {
		max = 400
	}
	for _, c := range []byte{' ', '\t', '\n', '\r', '\v', '\f'} {
		for n := 2; n <= max; n++ {
			s := strings.Repeat(string(c), n)
			if got, want := runTokens(c, n), codecCount(s); got != want {
				t.Fatalf("%q x %d: runTokens = %d, tokenizer = %d", c, n, got, want)
			}
		}
	}
}

// TestTokenizerSpaceClass pins the assumption that the tokenizer's \s is
// unicode.IsSpace, on every rune.
func TestTokenizerSpaceClass(t *testing.T) {
	if testing.Short() {
		t.Skip("scans every rune")
	}
	re := regexp2.MustCompile(`^\s$`, regexp2.None)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		ok, _ := re.MatchString(string(r))
		if ok != unicode.IsSpace(r) {
			t.Fatalf("rune %U: regexp2 \\s = %v, unicode.IsSpace = %v", r, ok, unicode.IsSpace(r))
		}
	}
}

// TestCountTokensUpTo: countTokensUpTo equals CountTokens whenever either
// is at most the limit and is above the limit otherwise, on every
// paragraph and prefix of this package's sources, at limits around each
// text's own count.
func TestCountTokensUpTo(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	r := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts := strings.Split(string(b), "\n\n")
		for range 20 {
			texts = append(texts, string(b[:r.IntN(len(b))]))
		}
		texts = append(texts, "", "x", string(b[:len(b)/3])+"\xff"+string(b[len(b)/3:]))
		for _, s := range texts {
			full := CountTokens(s)
			for _, limit := range []int{0, 1, full - 1, full, full + 1, full / 2, r.IntN(full + 2)} {
				if limit < 0 {
					continue
				}
				got := countTokensUpTo(s, limit)
				if (full <= limit || got <= limit) && got != full {
					t.Fatalf("%s: countTokensUpTo(limit %d) = %d, CountTokens = %d", f, limit, got, full)
				}
				if full > limit && got <= limit {
					t.Fatalf("%s: countTokensUpTo(limit %d) = %d for a text of %d tokens", f, limit, got, full)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d cases checked", checked)
	}
}
