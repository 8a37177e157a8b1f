package chunk

import (
	"strings"
	"testing"

	"github.com/dlclark/regexp2/v2"
)

const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

func TestWSProbe(t *testing.T) {
	re := regexp2.MustCompile(o200kPattern, regexp2.None)
	for _, s := range []string{strings.Repeat(" \n", 5) + "x", "foo.\n\n   bar", "a  \n  b", "a \t b", "x\n\n\n", "  \u3000 x"} {
		m, _ := re.FindStringMatch(s)
		var ps []string
		for m != nil {
			ps = append(ps, m.String())
			m, _ = re.FindNextMatch(m)
		}
		t.Logf("%q -> %q", s, ps)
	}
}
