package analysis

import (
	"strings"
	"testing"
)

// TestStopSetIsItsWords checks the stop set's length and first-byte
// shortcuts against plain membership: every word is in, and no variant of
// one (a letter added, removed or changed, another case) that is not itself
// a stop word.
func TestStopSetIsItsWords(t *testing.T) {
	for name, words := range map[string]string{
		"english": EnglishStopWords, "cjk": CJKStopWords, "code": CodeStopWords,
		"german": GermanStopWords, "spanish": SpanishStopWords, "russian": RussianStopWords,
	} {
		list := strings.Fields(words)
		set := newStopSet(words)
		member := map[string]bool{}
		for _, w := range list {
			member[w] = true
		}
		checked := 0
		for _, w := range list {
			variants := []string{w, w + "s", w[1:], w[:len(w)-1], "x" + w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:], w + w}
			for _, v := range variants {
				if got := set.has([]byte(v)); got != member[v] {
					t.Errorf("%s: has(%q) = %v, want %v", name, v, got, member[v])
				}
				checked++
			}
		}
		if checked < 8*len(list) || len(list) == 0 {
			t.Fatalf("%s: checked only %d cases", name, checked)
		}
	}
	var none *stopSet
	if none.has([]byte("the")) {
		t.Error("a nil stop set holds a word")
	}
}
