package chunk

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestRandomAlphabet splits random strings over an alphabet of characters
// that matter to the splitter, with a watchdog against hangs.
func TestRandomAlphabet(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"a", "B", " ", "\n", "\t", ".", "!", "#", "`", "~", "|", "-", "中", "。", "\x80", "\xff", "é", "1", "(", ")", "}", "{", "/", "*", "\r", "\u3000", "e.g.", "Dr.", "```", "## ", "def ", "func ", "class ", "    "}
	for iter := range 500 {
		n := r.IntN(200)
		var b []byte
		for range n {
			s := alphabet[r.IntN(len(alphabet))]
			rep := 1
			if r.IntN(10) == 0 {
				rep = r.IntN(300)
			}
			for range rep {
				b = append(b, s...)
			}
		}
		text := string(b)
		size := MinSize + r.IntN(200)
		opts := Options{Size: size, Overlap: r.IntN(size/2 + 1), Format: allFormats[r.IntN(6)], Path: []string{"a.go", "a.py", "a.x"}[r.IntN(3)]}
		done := make(chan struct{})
		go func() {
			defer close(done)
			spans, _ := Split(text, opts)
			checkSpans(t, text, opts, spans)
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("iter %d hang: %+v %q", iter, opts, text)
		}
		if t.Failed() {
			t.Fatalf("iter %d: %+v %q", iter, opts, text)
		}
	}
}
