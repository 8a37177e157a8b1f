package analysis

import (
	"bufio"
	"github.com/situate/situate/internal/testskip"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// UCDWordBreakTest is Unicode's UAX#29 conformance file as Debian's
// unicode-data package installs it.
const UCDWordBreakTest = "/usr/share/unicode/auxiliary/WordBreakTest.txt"

// TestWordBreakConformance runs the standard tokenizer over Unicode's word
// break test cases, the way Lucene tests its StandardTokenizer: the expected
// tokens are the UAX#29 segments that hold a letter, digit, Katakana, Han,
// Hiragana or Complex_Context character. Cases with Extended_Pictographic
// or Regional_Indicator characters are skipped and counted: Lucene tokenizes
// those with the emoji_sequence grammar of UTS #51 instead (a lone regional
// indicator, for one, is no token).
func TestWordBreakConformance(t *testing.T) {
	f, err := os.Open(UCDWordBreakTest)
	if err != nil {
		testskip.Skipf(t, "%s absent (apt-get install unicode-data)\n%v", UCDWordBreakTest, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	cases, skipped, failed := 0, 0, 0
	for line := 1; sc.Scan(); line++ {
		l := sc.Text()
		if i := strings.IndexByte(l, '#'); i >= 0 {
			l = l[:i]
		}
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		var text strings.Builder
		var want []string
		var seg strings.Builder
		wordSeg := false
		skip := false
		for _, field := range strings.Fields(l) {
			switch field {
			case "÷":
				if wordSeg {
					want = append(want, seg.String())
				}
				seg.Reset()
				wordSeg = false
			case "×":
			default:
				cp, err := strconv.ParseUint(field, 16, 32)
				if err != nil {
					t.Fatalf("%s:%d: bad code point %q", UCDWordBreakTest, line, field)
				}
				r := rune(cp)
				text.WriteRune(r)
				seg.WriteRune(r)
				switch classOf(r) {
				case classALetter, classHangul, classHebrew, classNumeric, classKatakana, classHan, classHiragana, classComplex:
					wordSeg = true
				case classPict, classRegional:
					skip = true
				}
			}
		}
		if skip {
			skipped++
			continue
		}
		cases++
		in := text.String()
		var got []string
		for _, s := range standardSpans(in, nil) {
			got = append(got, in[s.start:s.end])
		}
		if !reflect.DeepEqual(got, want) {
			failed++
			if failed <= 20 {
				t.Errorf("%s:%d: %q: got %q, want %q", UCDWordBreakTest, line, in, got, want)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if failed > 0 {
		t.Errorf("%d of %d cases failed", failed, cases)
	}
	t.Logf("%d cases, %d skipped (emoji, regional indicators), %d failed", cases, skipped, failed)
}
