package offline

import (
	"testing"
	"unicode"
)

// TestIsHanFastPath: isHan, which returns early below U+1100, agrees with
// the scripts' tables on every rune.
func TestIsHanFastPath(t *testing.T) {
	last := rune(unicode.MaxRune)
	if testing.Short() {
		last = 0x3100 // past the cut and into the scripts
	}
	for r := rune(0); r <= last; r++ {
		want := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
		if isHan(r) != want {
			t.Fatalf("rune %U: isHan = %v, tables say %v", r, !want, want)
		}
	}
}
