package offline

import (
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Source languages the outliner knows. Anything else gets the generic rules.
const (
	langRust   = "Rust"
	langJava   = "Java"
	langCpp    = "C++"
	langC      = "C"
	langPython = "Python"
	langGo     = "Go"
	langJS     = "JavaScript"
	langCSharp = "C#"
	langKotlin = "Kotlin"
)

var extLang = map[string]string{
	".rs": langRust, ".java": langJava, ".kt": langKotlin, ".kts": langKotlin, ".scala": langJava,
	".c": langC, ".h": langC, ".cc": langCpp, ".cpp": langCpp, ".cxx": langCpp, ".hpp": langCpp,
	".hh": langCpp, ".hxx": langCpp, ".ipp": langCpp, ".inl": langCpp,
	".py": langPython, ".pyi": langPython, ".go": langGo, ".cs": langCSharp,
	".js": langJS, ".mjs": langJS, ".cjs": langJS, ".jsx": langJS, ".ts": langJS, ".tsx": langJS,
}

// decl is one declaration found in a source file.
type decl struct {
	kind string // source keyword: struct, impl, fn, class, def, namespace, TEST...
	name string
	// start is where the declaration begins; end where its body ends (the
	// closing brace, or the end of an indented Python block). Declarations
	// without a body end where they start.
	start, end int
	// typ marks types (struct, class, trait...), listed first for the file.
	typ bool
}

func (d decl) label() string {
	if d.kind == "" {
		return d.name
	}
	return d.kind + " " + d.name
}

// outline is what the whole file says about itself.
type outline struct {
	lang    string
	pkg     string
	summary string
	decls   []decl // ordered by start
}

// detectBytes is how much of a file's start detectLang looks at.
const detectBytes = 8 << 10

// detectLang picks the source language from a file name, then from the text.
func detectLang(names []string, text string) string {
	for _, n := range names {
		if l, ok := extLang[strings.ToLower(path.Ext(n))]; ok {
			if l == langC && cppHint.MatchString(text) {
				return langCpp
			}
			return l
		}
	}
	if len(text) > detectBytes {
		text = text[:detectBytes]
	}
	score := map[string]int{}
	for l, re := range langHints {
		score[l] = len(re.FindAllStringIndex(text, 50))
	}
	best, bestN := "", 0
	for _, l := range []string{langRust, langJava, langCpp, langC, langPython, langGo, langJS} {
		if score[l] > bestN {
			best, bestN = l, score[l]
		}
	}
	if best == langC && cppHint.MatchString(text) {
		return langCpp
	}
	return best
}

var (
	cppHint   = regexp.MustCompile(`(?m)\bnamespace\s+\w+|\bstd::|\btemplate\s*<|^\s*class\s+\w+|\bpublic:|#include\s*<(iostream|string|vector|memory|map)>`)
	langHints = map[string]*regexp.Regexp{
		langRust:   regexp.MustCompile(`(?m)^\s*(pub(\(\w+\))?\s+)?(fn|impl|mod|struct|enum|trait)\s+\w+|\blet\s+mut\b|&mut\b|::<|#!?\[\w+|^\s*use\s+\w+::`),
		langJava:   regexp.MustCompile(`(?m)^\s*(package\s+[\w.]+;|import\s+(static\s+)?[\w.*]+;|(public|private|protected)\s+(static\s+)?(final\s+)?\w+)|@Override|@Test`),
		langCpp:    regexp.MustCompile(`(?m)^\s*#include\s*<\w+>|\bstd::|\bnamespace\s+\w+|\btemplate\s*<|\bpublic:|\bprivate:`),
		langC:      regexp.MustCompile(`(?m)^\s*#\s*(include|define|ifdef|ifndef|endif)\b`),
		langPython: regexp.MustCompile(`(?m)^\s*(def\s+\w+\(.*\):|class\s+\w+.*:\s*$|from\s+[\w.]+\s+import\s|import\s+\w+\s*$|if __name__)|\bself\.`),
		langGo:     regexp.MustCompile(`(?m)^(package\s+\w+\s*$|func\s+(\(\w+\s+\*?\w+\)\s*)?\w+\(|import\s+\()|:=`),
		langJS:     regexp.MustCompile(`(?m)\bconst\s+\w+\s*=\s*(require|\(|async|function)|\bfunction\s*\w*\s*\(|\bexport\s+(default\s+)?(class|function|const)|===|\bconsole\.|\bvar\s+\w+\s*=`),
	}
)

// parseCode outlines a source file.
func parseCode(text, lang string) outline {
	o := outline{lang: lang}
	var masked string
	var comments []span
	if lang == langPython {
		masked, comments = maskPython(text)
	} else {
		masked, comments = maskCLike(text, lang)
	}
	rules := rulesFor(lang)
	for _, r := range rules {
		for _, m := range r.matches(masked) {
			d, ok := r.make(masked, m)
			if !ok || skipName[d.name] || badPrefix(masked[m[0]:m[1]], d.name) || includeGuard.MatchString(d.name) ||
				(d.kind == "" && macroName.MatchString(d.name)) {
				continue
			}
			d.start = m[0] + leadingSpace(masked[m[0]:m[1]])
			o.decls = append(o.decls, d)
		}
	}
	if lang == langPython {
		setPythonEnds(masked, o.decls)
	} else {
		ends := matchBraces(masked)
		for i := range o.decls {
			if o.decls[i].kind != "#define" && o.decls[i].kind != "const" {
				o.decls[i].end = bodyEnd(masked, o.decls[i].start, ends)
			} else {
				o.decls[i].end = o.decls[i].start
			}
		}
	}
	slices.SortStableFunc(o.decls, func(a, b decl) int { return a.start - b.start })
	o.decls = slices.CompactFunc(o.decls, func(a, b decl) bool { return a.start == b.start && a.name == b.name })
	o.pkg = findPackage(masked, text, lang)
	o.summary = codeSummary(text, mergeComments(text, comments), o.decls, lang)
	return o
}

func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\r\n"))
}

var (
	// macroName is an all-caps name used like a function: a macro call.
	macroName    = regexp.MustCompile(`^[A-Z][A-Z0-9]*_[A-Z0-9_]+$`)
	includeGuard = regexp.MustCompile(`_(H|HPP|HH|H_|HPP_|INCLUDED|INCLUDED_)$`)
	// notType lists words that cannot precede a declared name: a match
	// like "return foo(x) {" or "else if (x) {" is a statement.
	notType = regexp.MustCompile(`\b(return|else|new|delete|throw|case|goto|co_return|co_await|co_yield|sizeof|if|while|for|switch|using|typedef|operator)\b`)
)

// badPrefix reports whether the text before the name in a match shows it is
// a statement, not a declaration.
func badPrefix(match, name string) bool {
	i := strings.LastIndex(match, name)
	if i < 0 {
		return false
	}
	return notType.MatchString(match[:i])
}

// skipName lists words that look like a declaration name but are control
// flow or keywords.
var skipName = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "return": true, "catch": true, "else": true,
	"sizeof": true, "new": true, "delete": true, "do": true, "try": true, "match": true, "loop": true,
	"throw": true, "case": true, "default": true, "goto": true, "typeof": true, "alignof": true,
	"decltype": true, "static_assert": true, "defined": true, "assert": true, "when": true, "synchronized": true,
	"foreach": true, "using": true, "lock": true, "fixed": true, "super": true, "this": true,
	"constexpr": true, "operator": true, "static_cast": true, "dynamic_cast": true, "reinterpret_cast": true,
}

type rule struct {
	re   *regexp.Regexp
	make func(masked string, m []int) (decl, bool)
}

// lineAnchored maps a rule's regexp, which begins with (?m)^ (every match
// starts a line), to the same regexp anchored at the start of the text
// instead, for the rules rule.matches tries line by line.
var lineAnchored = map[*regexp.Regexp]anchoredRule{}

// anchoredRule is a rule's regexp anchored at the start of the text, and
// the bytes a match can begin with (all when first[256] is set).
type anchoredRule struct {
	re    *regexp.Regexp
	first *[256]bool
}

func init() {
	for _, rules := range [][]rule{rustRules, javaRules, cRules, pyRules, goRules, jsRules, genericRules} {
		for _, r := range rules {
			if rest, ok := strings.CutPrefix(r.re.String(), "(?m)^"); ok {
				ar := anchoredRule{re: regexp.MustCompile(`(?m)\A(?:` + rest + `)`)}
				if re, err := syntax.Parse(rest, syntax.Perl); err == nil {
					var first [256]bool
					if !firstBytes(re.Simplify(), &first) {
						ar.first = &first
					}
				}
				// Trying the regexp at a line start costs more than
				// FindAll's scan over the line unless most lines are
				// passed over on their first byte: a rule whose match may
				// begin with a space or with many bytes (C's and Rust's,
				// which allow indentation and any return type) keeps
				// FindAll (on GOROOT's assembly files, read as C, trying
				// every line took twice as long). Today that leaves the Go
				// rules, about three times faster on GOROOT's Go files.
				if ar.first == nil || ar.first[' '] || count(ar.first) > 8 {
					continue
				}
				lineAnchored[r.re] = ar
			}
		}
	}
}

func count(set *[256]bool) int {
	n := 0
	for _, b := range set {
		if b {
			n++
		}
	}
	return n
}

// firstBytes adds to set the bytes a match of re can begin with and
// reports whether re can match the empty string (then what follows it
// counts too). Anything it does not know adds every byte.
func firstBytes(re *syntax.Regexp, set *[256]bool) (empty bool) {
	all := func() bool {
		for i := range set {
			set[i] = true
		}
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		r := re.Rune[0]
		if r >= utf8.RuneSelf || re.Flags&syntax.FoldCase != 0 {
			return all()
		}
		set[r] = true
		return false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= utf8.RuneSelf {
				return all()
			}
			for c := lo; c <= hi; c++ {
				set[c] = true
			}
		}
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpCapture:
		return firstBytes(re.Sub[0], set)
	case syntax.OpStar, syntax.OpQuest:
		firstBytes(re.Sub[0], set)
		return true
	case syntax.OpPlus:
		return firstBytes(re.Sub[0], set)
	case syntax.OpRepeat:
		e := firstBytes(re.Sub[0], set)
		return e || re.Min == 0
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !firstBytes(s, set) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		empty := false
		for _, s := range re.Sub {
			if firstBytes(s, set) {
				empty = true
			}
		}
		return empty
	}
	return all()
}

// matches is r.re.FindAllStringSubmatchIndex(s, -1), found faster: a match
// of a rule starts a line, so the regexp anchored there is tried at each
// line start (one failed try costs a few bytes of input) instead of the
// unanchored regexp stepping through every byte of the file. Leftmost
// first, non-overlapping: after a match the next try is the first line
// start at or after its end, as FindAll would find it. The matches are the
// same (TestRuleMatchesAsFindAll).
func (r rule) matches(s string) [][]int {
	ar, ok := lineAnchored[r.re]
	if !ok {
		return r.re.FindAllStringSubmatchIndex(s, -1)
	}
	at := ar.re
	var out [][]int
	for p := 0; p <= len(s); {
		if ar.first != nil && (p == len(s) || !ar.first[s[p]]) {
			// No match begins with this byte: on to the next line.
		} else if m := at.FindStringSubmatchIndex(s[p:]); m != nil {
			if m[1] == 0 {
				// An empty match: FindAll's rules for those differ.
				return r.re.FindAllStringSubmatchIndex(s, -1)
			}
			for i := range m {
				if m[i] >= 0 {
					m[i] += p
				}
			}
			out = append(out, m)
			p = m[1]
			if s[p-1] == '\n' {
				continue
			}
		}
		i := strings.IndexByte(s[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
	}
	return out
}

// named builds a declaration of a fixed kind from capture group g.
func named(kind string, g int, typ bool) func(string, []int) (decl, bool) {
	return func(s string, m []int) (decl, bool) {
		if m[2*g] < 0 {
			return decl{}, false
		}
		return decl{kind: kind, name: s[m[2*g]:m[2*g+1]], typ: typ}, true
	}
}

// keyed takes the kind from group k and the name from group g.
func keyed(k, g int, typ bool) func(string, []int) (decl, bool) {
	return func(s string, m []int) (decl, bool) {
		kind := strings.Join(strings.Fields(s[m[2*k]:m[2*k+1]]), " ")
		return decl{kind: kind, name: s[m[2*g]:m[2*g+1]], typ: typ}, true
	}
}

const (
	rustVis  = `(?:pub(?:\s*\([^)]*\))?\s+)?`
	javaMods = `(?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp|internal|open|data|override|partial|readonly|virtual|async|unsafe|extern|new)\s+)*`
	annots   = `(?:@\w+(?:\([^)]*\))?\s+)*`
)

var (
	rustRules = []rule{
		{regexp.MustCompile(`(?m)^[ \t]*` + rustVis + `(?:unsafe\s+)?(struct|enum|trait|union|type)\s+([A-Za-z_]\w*)`), keyed(1, 2, true)},
		{regexp.MustCompile(`(?m)^[ \t]*` + rustVis + `(mod)\s+([A-Za-z_]\w*)`), keyed(1, 2, false)},
		{regexp.MustCompile(`(?m)^[ \t]*(?:unsafe\s+)?impl\b([^{;]*)\{`), rustImpl},
		{regexp.MustCompile(`(?m)^[ \t]*` + rustVis + `(?:(?:const|async|unsafe|default|extern\s*(?:"[^"]*")?)\s+)*fn\s+([A-Za-z_]\w*)`), named("fn", 1, false)},
		{regexp.MustCompile(`(?m)^[ \t]*macro_rules!\s*([A-Za-z_]\w*)`), named("macro", 1, false)},
		{regexp.MustCompile(`(?m)^[ \t]*` + rustVis + `(?:const|static)\s+(?:mut\s+)?([A-Z][A-Z0-9_]+)\s*:`), named("const", 1, false)},
	}
	javaRules = []rule{
		{regexp.MustCompile(`(?m)^[ \t]*` + annots + javaMods + `(class|interface|enum|record|@interface|object|struct)\s+([A-Za-z_]\w*)`), keyed(1, 2, true)},
		{regexp.MustCompile(`(?m)^[ \t]*` + annots + javaMods + `(?:<[^>{};]*>\s+)?[\w.$]+(?:<[^(){};]*>)?(?:\[\])*\??\s+([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:throws\s+[\w.,\s]+)?\{`), named("", 1, false)},
		{regexp.MustCompile(`(?m)^[ \t]*` + annots + `(?:(?:public|protected|private)\s+)?([A-Z]\w*)\s*\([^;{}]*\)\s*(?:throws\s+[\w.,\s]+)?\{`), named("", 1, false)},
		{regexp.MustCompile(`(?m)^[ \t]*` + annots + javaMods + `(?:suspend\s+)?fun\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?([A-Za-z_]\w*)`), named("fun", 1, false)},
		{regexp.MustCompile(`(?m)^[ \t]*` + annots + javaMods + `(?:static\s+final|final\s+static)\s+[\w<>\[\], ]+\s+([A-Z][A-Z0-9_]+)\s*=`), named("const", 1, false)},
	}
	cRules = []rule{
		{regexp.MustCompile(`(?m)^[ \t]*(?:inline\s+)?(namespace)\s+([A-Za-z_][\w:]*)\s*\{`), keyed(1, 2, false)},
		{regexp.MustCompile(`(?m)^[ \t]*(?:template\s*<[^;{]*>\s*)?(?:typedef\s+)?(class|struct|union|enum\s+class|enum\s+struct|enum)\s+(?:[A-Za-z_]\w*(?:\([^)]*\))?\s+)*?([A-Za-z_]\w*)\s*(?:final\s*)?(?::[^;{]*)?\{`), keyed(1, 2, true)},
		{regexp.MustCompile(`(?m)^[ \t]*(?:template\s*<[^;{]*>\s*)?(?:[A-Za-z_][\w:<>,*&]*[ \t*&]+)+\**&?(~?[A-Za-z_][\w]*(?:::~?[A-Za-z_]\w*)*)\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept(?:\([^)]*\))?\s*)?(?:override\s*)?(?:final\s*)?(?:->\s*[^{;]+)?(?::[^;{]*)?\{`), named("", 1, false)},
		{regexp.MustCompile(`(?m)^(~?[A-Za-z_][\w]*(?:::~?[A-Za-z_]\w*)*)\s*\([^;{}]*\)\s*(?:const\s*)?(?::[^;{]*)?\{`), named("", 1, false)},
		{regexp.MustCompile(`(?m)^[ \t]*((?:TYPED_)?TEST(?:_F|_P)?)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)`), gtest},
		// A class declared through a macro: LOGUNIT_CLASS(MinimumTestCase) {
		{regexp.MustCompile(`(?m)^[ \t]*[A-Z][A-Z0-9]*_CLASS\s*\(\s*([A-Za-z_]\w*)\s*\)\s*(?::[^;{]*)?\{`), named("class", 1, true)},
		{regexp.MustCompile(`(?m)^[ \t]*#\s*define\s+([A-Z][A-Z0-9_]{2,})\b`), named("#define", 1, false)},
	}
	pyRules = []rule{
		{regexp.MustCompile(`(?m)^[ \t]*class[ \t]+([A-Za-z_]\w*)`), named("class", 1, true)},
		{regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)`), named("def", 1, false)},
		{regexp.MustCompile(`(?m)^([A-Z][A-Z0-9_]{2,})[ \t]*(?::[^=\n]*)?=`), named("", 1, false)},
	}
	goRules = []rule{
		{regexp.MustCompile(`(?m)^(?:type[ \t]+|\t)([A-Z_a-z]\w*)(?:\[[^\]]*\])?[ \t]+(struct|interface)\b`), func(s string, m []int) (decl, bool) {
			return decl{kind: s[m[4]:m[5]], name: s[m[2]:m[3]], typ: true}, true
		}},
		{regexp.MustCompile(`(?m)^func[ \t]+(?:\(\s*\w*\s*\*?([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*)?([A-Za-z_]\w*)`), func(s string, m []int) (decl, bool) {
			name := s[m[4]:m[5]]
			if m[2] >= 0 {
				return decl{kind: "func", name: "(" + s[m[2]:m[3]] + ") " + name}, true
			}
			return decl{kind: "func", name: name}, true
		}},
	}
	jsRules = []rule{
		{regexp.MustCompile(`(?m)^[ \t]*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(class|interface|enum)\s+([A-Za-z_$][\w$]*)`), keyed(1, 2, true)},
		{regexp.MustCompile(`(?m)^[ \t]*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)`), named("function", 1, false)},
		{regexp.MustCompile(`(?m)^[ \t]*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|\w+\s*=>)`), named("function", 1, false)},
		{regexp.MustCompile(`(?m)^[ \t]+(?:(?:public|private|protected|static|async|get|set|readonly)\s+)*([A-Za-z_$][\w$]*)\s*\([^;{}]*\)\s*(?::\s*[^{;]+)?\{`), named("", 1, false)},
	}
	genericRules = []rule{
		{regexp.MustCompile(`(?m)^[ \t]*(?:[a-z]+\s+)*(class|struct|interface|trait|enum|module|namespace)\s+([A-Za-z_]\w*)`), keyed(1, 2, true)},
		{regexp.MustCompile(`(?m)^[ \t]*(?:[a-z]+\s+)*(fn|def|func|function|fun|sub|proc)\s+([A-Za-z_]\w*)`), keyed(1, 2, false)},
	}
)

func rulesFor(lang string) []rule {
	switch lang {
	case langRust:
		return rustRules
	case langJava, langCSharp, langKotlin:
		return javaRules
	case langC, langCpp:
		return cRules
	case langPython:
		return pyRules
	case langGo:
		return goRules
	case langJS:
		return jsRules
	}
	return genericRules
}

// rustImpl names an impl block "Type" or "Trait for Type", without generics
// or where clauses.
func rustImpl(s string, m []int) (decl, bool) {
	h := s[m[2]:m[3]]
	if i := strings.Index(h, " where "); i >= 0 {
		h = h[:i]
	}
	if i := strings.Index(h, "\nwhere"); i >= 0 {
		h = h[:i]
	}
	h = strings.Join(strings.Fields(stripGenerics(h)), " ")
	h = strings.TrimPrefix(h, "!")
	if h == "" {
		return decl{}, false
	}
	return decl{kind: "impl", name: h, typ: false}, true
}

// stripGenerics removes <...> groups (nested).
func stripGenerics(s string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			depth++
		case c == '>' && depth > 0 && (i == 0 || s[i-1] != '-'):
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func gtest(s string, m []int) (decl, bool) {
	return decl{kind: s[m[2]:m[3]], name: s[m[4]:m[5]] + ", " + s[m[6]:m[7]]}, true
}

var (
	javaPackage = regexp.MustCompile(`(?m)^[ \t]*package\s+([\w.]+)\s*;?`)
	goPackage   = regexp.MustCompile(`(?m)^package\s+(\w+)`)
	namespaceRe = regexp.MustCompile(`(?m)^[ \t]*(?:inline\s+)?namespace\s+([A-Za-z_][\w:]*)\s*\{`)
	csNamespace = regexp.MustCompile(`(?m)^[ \t]*namespace\s+([\w.]+)`)
	rustCrate   = regexp.MustCompile(`(?m)^[ \t]*use\s+crate::(\w+)`)
)

// findPackage returns the package, module or namespace the file belongs to.
func findPackage(masked, text, lang string) string {
	first := func(re *regexp.Regexp) string {
		if m := re.FindStringSubmatch(masked); m != nil {
			return m[1]
		}
		return ""
	}
	switch lang {
	case langJava, langKotlin:
		return first(javaPackage)
	case langGo:
		return first(goPackage)
	case langCSharp:
		return first(csNamespace)
	case langCpp, langC:
		var names []string
		for _, m := range namespaceRe.FindAllStringSubmatch(masked, -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
			if len(names) == 2 {
				break
			}
		}
		return strings.Join(names, "::")
	}
	return ""
}

// span is a byte range of the original text.
type span struct{ start, end int }

// maskCLike returns text with comment and string contents replaced by spaces
// (newlines kept, so offsets and lines stay valid) and the comment spans.
func maskCLike(text, lang string) (string, []span) {
	b := []byte(text)
	var comments []span
	blank := func(from, to int) {
		for i := from; i < to && i < len(b); i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		switch {
		case c == '/' && i+1 < n && text[i+1] == '/':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = n - i
			}
			comments = append(comments, span{i, i + j})
			blank(i, i+j)
			i += j
		case c == '/' && i+1 < n && text[i+1] == '*':
			j := strings.Index(text[i+2:], "*/")
			end := n
			if j >= 0 {
				end = i + 2 + j + 2
			}
			comments = append(comments, span{i, end})
			blank(i, end)
			i = end
		case c == '#' && lang == langRust && i+1 < n && text[i+1] == '[':
			// attribute: keep as is
			i++
		case c == 'r' && lang == langRust && i+1 < n && (text[i+1] == '"' || text[i+1] == '#') && (i == 0 || !isIdent(text[i-1])):
			j := i + 1
			hashes := 0
			for j < n && text[j] == '#' {
				hashes++
				j++
			}
			if j >= n || text[j] != '"' {
				i++
				continue
			}
			closer := "\"" + strings.Repeat("#", hashes)
			k := strings.Index(text[j+1:], closer)
			end := n
			if k >= 0 {
				end = j + 1 + k + len(closer)
			}
			blank(j+1, end-len(closer))
			i = end
		case c == 'R' && (lang == langCpp || lang == langC) && i+1 < n && text[i+1] == '"':
			open := strings.IndexByte(text[i+2:], '(')
			if open < 0 || open > 16 {
				i++
				continue
			}
			delim := text[i+2 : i+2+open]
			closer := ")" + delim + "\""
			k := strings.Index(text[i+3+open:], closer)
			end := n
			if k >= 0 {
				end = i + 3 + open + k + len(closer)
			}
			blank(i+2, end-1)
			i = end
		case c == '"' || c == '`' && (lang == langGo || lang == langJS):
			j := i + 1
			for j < n && text[j] != c {
				if text[j] == '\\' && c != '`' {
					j++
				} else if text[j] == '\n' && c == '"' && lang != langRust {
					break // unterminated: stop at the line end
				}
				j++
			}
			blank(i+1, j)
			i = j + 1
		case c == '\'':
			// A char literal: 'x', '\n', '\u{..}'. Rust lifetimes ('a) are not.
			j := i + 1
			if j < n && text[j] == '\\' {
				j += 2
				for j < n && j-i < 12 && text[j] != '\'' {
					j++
				}
			} else {
				for k := 0; k < 4 && j < n && text[j] != '\''; k++ {
					j++
				}
			}
			if j < n && text[j] == '\'' && j-i <= 12 && !strings.ContainsRune(text[i+1:j], '\n') {
				blank(i+1, j)
				i = j + 1
			} else {
				i++
			}
		default:
			i++
		}
	}
	return string(b), comments
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// maskPython blanks strings and comments; docstrings are reported as
// comments.
func maskPython(text string) (string, []span) {
	b := []byte(text)
	var comments []span
	blank := func(from, to int) {
		for i := from; i < to && i < len(b); i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		switch {
		case c == '#':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = n - i
			}
			comments = append(comments, span{i, i + j})
			blank(i, i+j)
			i += j
		case c == '"' || c == '\'':
			if i+2 < n && text[i+1] == c && text[i+2] == c {
				q := text[i : i+3]
				k := strings.Index(text[i+3:], q)
				end := n
				if k >= 0 {
					end = i + 3 + k + 3
				}
				comments = append(comments, span{i, end})
				blank(i+3, end-3)
				i = end
				continue
			}
			j := i + 1
			for j < n && text[j] != c && text[j] != '\n' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			blank(i+1, j)
			i = j + 1
		default:
			i++
		}
	}
	return string(b), comments
}

// matchBraces maps the offset of every '{' in masked to its matching '}'.
func matchBraces(masked string) map[int]int {
	ends := map[int]int{}
	var stack []int
	for i := 0; i < len(masked); i++ {
		switch masked[i] {
		case '{':
			stack = append(stack, i)
		case '}':
			if len(stack) > 0 {
				ends[stack[len(stack)-1]] = i + 1
				stack = stack[:len(stack)-1]
			}
		}
	}
	for _, open := range stack {
		ends[open] = len(masked) // unclosed: runs to the end
	}
	return ends
}

// bodyEnd finds the body of the declaration starting at start: the first '{'
// before any ';', and its matching '}'. Without a body it returns start.
func bodyEnd(masked string, start int, ends map[int]int) int {
	for i := start; i < len(masked); i++ {
		switch masked[i] {
		case ';':
			return start
		case '{':
			if e, ok := ends[i]; ok {
				return e
			}
			return start
		}
	}
	return start
}

// setPythonEnds ends every def and class block at the first later non-blank
// line indented no deeper than its header.
func setPythonEnds(masked string, decls []decl) {
	for i := range decls {
		d := &decls[i]
		lineStart := strings.LastIndexByte(masked[:d.start], '\n') + 1
		indent := d.start - lineStart
		d.end = len(masked)
		// Skip the header line(s) up to the colon that opens the block.
		pos := d.start
		depth := 0
	header:
		for ; pos < len(masked); pos++ {
			switch masked[pos] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case ':':
				if depth == 0 {
					break header
				}
			}
		}
		nl := strings.IndexByte(masked[pos:], '\n')
		if nl < 0 {
			continue
		}
		pos += nl + 1
		for pos < len(masked) {
			next := strings.IndexByte(masked[pos:], '\n')
			line := masked[pos:]
			if next >= 0 {
				line = masked[pos : pos+next]
			}
			if t := strings.TrimLeft(line, " \t"); t != "" && len(line)-len(t) <= indent {
				d.end = pos
				break
			}
			if next < 0 {
				break
			}
			pos += next + 1
		}
	}
}

// mergeComments joins comments separated only by white space (a block of
// line comments) into one span.
func mergeComments(text string, cs []span) []span {
	var out []span
	for _, c := range cs {
		if n := len(out); n > 0 && strings.TrimSpace(text[out[n-1].end:c.start]) == "" &&
			strings.Count(text[out[n-1].end:c.start], "\n") <= 1 {
			out[n-1].end = c.end
			continue
		}
		out = append(out, c)
	}
	return out
}

// codeSummary returns the first sentence of the file's own comment: a
// comment before the first declaration that documents the file or package
// rather than something in it. That is the comment right above a package
// clause (Go's package doc, "package", "namespace", "module"), a module
// doc (Python's module docstring, Rust's //! and /*!), a comment standing
// alone (a blank line after it), or, outside Go, the doc of a first
// declaration that is a type (Java's one class per file, a Python class's
// docstring). In Go a comment directly above a declaration, a var or an
// import documents that ("A Cookie represents an HTTP cookie" is not
// net/http's summary). Licence headers, banners and directives
// (//go:build, #!, -*- coding) are never summaries.
func codeSummary(text string, comments []span, decls []decl, lang string) string {
	limit := len(text)
	firstType := len(decls) > 0 && decls[0].typ && lang != langGo
	if len(decls) > 0 {
		limit = decls[0].start
		if firstType {
			// A Python class's docstring follows its header.
			if nl := strings.IndexByte(text[limit:], '\n'); nl >= 0 {
				limit += nl + 1
				limit += leadingSpace(text[limit:])
			}
		}
	}
	for i, c := range comments {
		if c.start > limit {
			break
		}
		raw := strings.TrimSpace(text[c.start:c.end])
		body := commentText(raw)
		if body == "" || isBoilerplate(body) || directive.MatchString(body) {
			continue
		}
		after := text[c.end:]
		rest := strings.TrimLeft(after, " \t\r\n")
		gap := strings.Count(after[:len(after)-len(rest)], "\n")
		docstring := strings.HasPrefix(raw, `"""`) || strings.HasPrefix(raw, "'''")
		own := gap >= 2 || rest == "" || packageClause.MatchString(rest) ||
			strings.HasPrefix(raw, "//!") || strings.HasPrefix(raw, "/*!") ||
			(docstring && i == 0 && strings.TrimSpace(shebangLines.ReplaceAllString(text[:c.start], "")) == "") ||
			(firstType && (c.end+len(after)-len(rest) >= decls[0].start || docstring))
		if !own {
			continue
		}
		if s := firstSentence(cleanMarkdown(body)); s != "" {
			return s
		}
	}
	return ""
}

var (
	packageClause = regexp.MustCompile(`^(?:package|namespace|module)\s`)
	directive     = regexp.MustCompile(`^(?:go:|\+build|!|nolint|eslint|pylint|noqa|type:|-\*-|coding[:=]|#\s*(?:if|ifdef|ifndef|include|define|pragma)\b)`)
	shebangLines  = regexp.MustCompile(`(?m)^#!.*$|^#.*coding[:=].*$`)
)

var (
	commentMarker = regexp.MustCompile(`(?m)^[ \t]*(?:/\*+!?|\*+/|\*+|//[/!]?|#+|"""|''')[ \t]?`)
	docTag        = regexp.MustCompile(`(?m)^[ \t]*[@\\](?:param|return|returns|throws|since|see|author|version|file|brief)\b.*$`)
	banner        = regexp.MustCompile(`[=\-*/#_~]{4,}`)
)

// commentText strips comment markers, doc tags and banner lines.
func commentText(c string) string {
	c = strings.TrimSuffix(strings.TrimSpace(c), "*/")
	c = strings.TrimSuffix(c, `"""`)
	c = strings.TrimSuffix(c, `'''`)
	c = commentMarker.ReplaceAllString(c, "")
	c = docTag.ReplaceAllString(c, "")
	c = banner.ReplaceAllString(c, " ")
	return strings.TrimSpace(c)
}
