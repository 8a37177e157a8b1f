package offline

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestRuleMatchesAsFindAll checks that rule.matches, which tries each
// rule's regexp only at line starts, finds exactly what the regexp's
// FindAllStringSubmatchIndex finds: on every source file of GOROOT/src in
// the languages the rules know (masked as parseCode masks them), and on
// random mixes of declaration fragments, blank lines and line breaks.
func TestRuleMatchesAsFindAll(t *testing.T) {
	langs := map[string]string{".go": langGo, ".c": langC, ".h": langC, ".cc": langCpp, ".py": langPython,
		".js": langJS, ".java": langJava, ".rs": langRust}
	check := func(name, text, lang string) {
		t.Helper()
		masked := text
		if lang == langPython {
			masked, _ = maskPython(text)
		} else if lang != "" {
			masked, _ = maskCLike(text, lang)
		}
		for l, rules := range map[string][]rule{"rust": rustRules, "java": javaRules, "c": cRules, "python": pyRules, "go": goRules, "js": jsRules, "generic": genericRules} {
			if lang != "" && rulesFor(lang)[0].re != rules[0].re {
				continue
			}
			for i, r := range rules {
				if !strings.HasPrefix(r.re.String(), "(?m)^") {
					t.Fatalf("%s rule %d does not start with (?m)^: %s", l, i, r.re)
				}
				got, want := r.matches(masked), r.re.FindAllStringSubmatchIndex(masked, -1)
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("%s: %s rule %d: matches %v, FindAll %v", name, l, i, got, want)
				}
			}
		}
	}
	for i, r := range goRules {
		if _, ok := lineAnchored[r.re]; !ok {
			t.Fatalf("Go rule %d is not tried line by line", i)
		}
	}
	if ar := lineAnchored[goRules[1].re]; ar.first == nil || !ar.first['f'] || ar.first['\t'] {
		t.Fatalf("the Go func rule's first bytes: %v", ar.first)
	}
	fragments := []string{"func ", "func (r *T) Read(", "type Foo struct {", "\ttype", "\tBar interface", "}", "\n", "\n\n", " ", "\t",
		"class A:", "def f(x):", "pub fn g() {", "impl X for Y {", "int main(void) {", "#define FOO_BAR 1", "namespace n {",
		"export function h() {", "const x = () => 1", "  get(a) {", "TEST(A, B)", "public static void m() {", "X = 1",
		"enum E {", "struct S {", "fn", "(", ")", "[T any]", "<T>", "\r\n", "é", "\x00"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 1000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(fragments[rng.IntN(len(fragments))])
		}
		check(fmt.Sprint("random ", n), b.String(), "")
	}
	if testing.Short() {
		t.Skip("-short: the GOROOT/src files are not compared")
	}
	files, compared := 0, 0
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		lang, ok := langs[filepath.Ext(p)]
		if !ok {
			return nil
		}
		if files++; files%25 != 0 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		compared++
		check(p, string(b), lang)
		return nil
	})
	if compared < 200 {
		t.Fatalf("compared %d files of GOROOT/src, want at least 200", compared)
	}
}

// TestSubwordsAsBefore checks subwords and its identifier scanner against
// the regexp and the map of keywords and seen words they replaced.
func TestSubwordsAsBefore(t *testing.T) {
	identRe := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	before := func(names []string, max int) string {
		seen := map[string]bool{}
		for k := range subwordSkip {
			seen[k] = true
		}
		var out []string
		for _, n := range names {
			for _, id := range identRe.FindAllString(n, -1) {
				parts := splitIdent(id)
				if len(parts) < 2 {
					continue
				}
				for _, p := range parts {
					if len(p) < 2 || seen[p] || len(out) == max {
						continue
					}
					seen[p] = true
					out = append(out, p)
				}
			}
		}
		return strings.Join(out, " ")
	}
	pieces := []string{"getUserName", "func (cr *chunkedReader) Read", "AVChapterSetTimebase", "parse_json_v2", "9lives", "Ünïcode_Name",
		"HTTPServer", "the_type", " ", "(", ".", "x", "readHTTP2Frame", "__init__", "set_self", "TestFoo", "é", "a1B2c3"}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 5000 {
		var names []string
		for range rng.IntN(5) {
			var b strings.Builder
			for range rng.IntN(4) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			names = append(names, b.String())
		}
		max := 1 + rng.IntN(12)
		if got, want := subwords(names, max), before(names, max); got != want {
			t.Fatalf("case %d: subwords(%q, %d) = %q, want %q", n, names, max, got, want)
		}
	}
}

// TestSubwordMemo: the memo of a code context's shrink loop answers as
// subwords does, through runs of calls with fewer words and changing names.
func TestSubwordMemo(t *testing.T) {
	pieces := []string{"getUserName", "func (cr *chunkedReader) Read", "AVChapterSetTimebase", "parse_json_v2",
		"HTTPServer", "readHTTP2Frame", "set_self", "TestFoo", "a1B2c3", "x"}
	rng := rand.New(rand.NewPCG(5, 6))
	var m subwordMemo
	var names []string
	for n := range 5000 {
		if n%7 == 0 || rng.IntN(4) == 0 {
			names = nil
			for range rng.IntN(5) {
				names = append(names, pieces[rng.IntN(len(pieces))]+pieces[rng.IntN(len(pieces))])
			}
		} else if len(names) > 0 && rng.IntN(3) == 0 {
			names = names[:len(names)-1]
		}
		max := rng.IntN(maxSubwords + 1)
		if got, want := m.get(names, max), subwords(names, max); got != want {
			t.Fatalf("call %d: get(%q, %d) = %q, subwords says %q", n, names, max, got, want)
		}
	}
}

// BenchmarkRuleMatches runs the Go and C declaration rules over
// GOROOT/src/net/http/server.go and runtime/malloc.go, masked: "findall"
// with the regexps' FindAllStringSubmatchIndex, "lines" with rule.matches.
func BenchmarkRuleMatches(b *testing.B) {
	var texts []string
	for _, f := range []string{"net/http/server.go", "runtime/malloc.go"} {
		src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", f))
		if err != nil {
			b.Skipf("no Go source tree: %v", err)
		}
		masked, _ := maskCLike(string(src), langGo)
		texts = append(texts, masked)
	}
	for _, mode := range []string{"findall", "lines"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				for _, s := range texts {
					for _, r := range goRules {
						if mode == "findall" {
							r.re.FindAllStringSubmatchIndex(s, -1)
						} else {
							r.matches(s)
						}
					}
				}
			}
		})
	}
}
