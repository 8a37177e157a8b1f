package chunk

import (
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// language describes how to find declarations in one family of languages.
// Declarations are recognised by regular expressions on whole lines: a
// top-level declaration starts at column 0, a nested one (a method in a
// class or impl block) is indented.
type language struct {
	name     string
	decl     *regexp.Regexp // top-level declaration line
	nested   *regexp.Regexp // indented declaration line, or nil
	comments []string       // prefixes of comment, decorator and attribute lines
	colon    bool           // declarations end with ":" (Python)
}

var (
	langGo = &language{name: "go",
		decl:     regexp.MustCompile(`^(func|type|var|const|package|import)\b`),
		comments: []string{"//", "/*"}}
	langPython = &language{name: "python",
		decl:     regexp.MustCompile(`^(async\s+def|def|class)\s`),
		nested:   regexp.MustCompile(`^\s+(async\s+def|def|class)\s`),
		comments: []string{"#", "@"}, colon: true}
	langJS = &language{name: "javascript",
		decl:     regexp.MustCompile(`^(export\s+)?(default\s+)?(declare\s+)?(abstract\s+)?(async\s+)?(function\*?|class|interface|type|enum|const|let|var|namespace|module)\b`),
		nested:   regexp.MustCompile(`^\s+((public|private|protected|static|async|readonly|get|set|override)\s+)*[A-Za-z_$][\w$]*\s*(<[^>]*>)?\([^;]*\)\s*(:[^{;]*)?\{\s*$`),
		comments: []string{"//", "/*", "@"}}
	langRust = &language{name: "rust",
		decl:     regexp.MustCompile(`^(pub(\([^)]*\))?\s+)?(async\s+)?(unsafe\s+)?(const\s+)?(extern\s+"[^"]*"\s+)?(fn|struct|enum|trait|impl|mod|type|const|static|use|union|macro_rules!)[\s<!]`),
		nested:   regexp.MustCompile(`^\s+(pub(\([^)]*\))?\s+)?(async\s+)?(unsafe\s+)?(const\s+)?fn\s`),
		comments: []string{"//", "/*", "#["}}
	langJava = &language{name: "java",
		decl:     regexp.MustCompile(`^((public|private|protected|internal|static|final|abstract|sealed|open|data|partial|export|inline|override|suspend)\s+)*(class|interface|enum|record|object|struct|fun|func|def|trait|namespace|package|import|using|extension|protocol|@interface)\b`),
		nested:   regexp.MustCompile(`^\s+(((public|private|protected|internal|static|final|abstract|override|virtual|async|synchronized|open|suspend)\s+)+[\w<>\[\],.? ]*\s)?(fun|func|def|[\w<>\[\],.?]+\s+\w+\s*\()`),
		comments: []string{"//", "/*", "@", "["}}
	langC = &language{name: "c",
		decl:     regexp.MustCompile(`^((struct|class|enum|union|namespace|typedef|template)\b|#define\s|[A-Za-z_][\w \t*&:<>,]*\b\w+\s*\([^;]*$)`),
		comments: []string{"//", "/*"}}
	langRuby = &language{name: "ruby",
		decl:     regexp.MustCompile(`^(def|class|module)\s`),
		nested:   regexp.MustCompile(`^\s+(def|class|module)\s`),
		comments: []string{"#"}}
	langPHP = &language{name: "php",
		decl:     regexp.MustCompile(`^((abstract|final)\s+)?(function|class|interface|trait|namespace|enum)\b`),
		nested:   regexp.MustCompile(`^\s+((public|private|protected|static|abstract|final)\s+)*function\b`),
		comments: []string{"//", "/*", "#", "@"}}
	langShell = &language{name: "shell",
		decl:     regexp.MustCompile(`^(function\s+[\w-]+|[\w-]+\s*\(\)\s*\{?)`),
		comments: []string{"#"}}
	langLua = &language{name: "lua",
		decl:     regexp.MustCompile(`^(local\s+)?function\b`),
		comments: []string{"--"}}
	// langUnknown has no declarations: top-level blocks are runs of lines
	// starting at column 0 after a blank line.
	langUnknown = &language{name: ""}
)

var languages = map[string]*language{
	".go": langGo,
	".py": langPython, ".pyi": langPython,
	".js": langJS, ".jsx": langJS, ".mjs": langJS, ".cjs": langJS, ".ts": langJS, ".tsx": langJS, ".mts": langJS,
	".rs":   langRust,
	".java": langJava, ".kt": langJava, ".kts": langJava, ".scala": langJava, ".cs": langJava, ".swift": langJava,
	".c": langC, ".h": langC, ".cc": langC, ".cpp": langC, ".cxx": langC, ".hpp": langC, ".hh": langC,
	".rb":  langRuby,
	".php": langPHP,
	".sh":  langShell, ".bash": langShell, ".zsh": langShell,
	".lua": langLua,
}

// Language returns the name of the language Split assumes for a code file
// at path ("go", "python", ...), or "" when it splits the file at blank
// lines only.
func Language(path string) string { return languageFor(path).name }

func languageFor(path string) *language {
	if l, ok := languages[strings.ToLower(filepath.Ext(path))]; ok {
		return l
	}
	return langUnknown
}

// code chunks source code: top-level items are declarations (with the
// comments, decorators and attributes directly above them) and other
// column-0 blocks after a blank line. An item that fits is one unit; a
// larger one is split at nested declarations, blank lines and lines.
func (b *builder) code(lang *language) {
	text := b.text
	type item struct {
		start    int
		strength int8
		heading  string
	}
	cur := item{start: 0, strength: strengthDecl}
	emit := func(next item) {
		if next.start > cur.start {
			b.codeItem(lang, cur.start, next.start, cur.strength, cur.heading)
			cur = next
		} else if next.strength >= cur.strength {
			cur.strength, cur.heading = next.strength, next.heading
		}
	}
	blank := true      // previous line was blank (or start of file)
	commentStart := -1 // start of the run of column-0 comment lines just above
	commentAfterBlank := false
	forLines(text, func(ls, le int) {
		line := text[ls:le]
		if isBlank(line) {
			blank, commentStart = true, -1
			return
		}
		col0 := line[0] != ' ' && line[0] != '\t'
		if commentStart >= 0 && !col0 && strings.HasPrefix(strings.TrimSpace(line), "*") {
			blank = false // continuation of a /** block comment
			return
		}
		if !col0 || isCloser(line) {
			blank, commentStart = false, -1
			return
		}
		if lang.isComment(line) {
			if commentStart < 0 {
				commentStart, commentAfterBlank = ls, blank
				if blank {
					emit(item{start: ls, strength: strengthTopBlock})
				}
			}
			blank = false
			return
		}
		start, afterBlank := ls, blank
		if commentStart >= 0 {
			start, afterBlank = commentStart, commentAfterBlank
		}
		switch {
		case lang.decl != nil && lang.decl.MatchString(line):
			emit(item{start: start, strength: strengthDecl, heading: lang.topDeclName(line)})
		case afterBlank:
			emit(item{start: start, strength: strengthTopBlock})
		}
		blank, commentStart = false, -1
	})
	emit(item{start: len(text)})
}

// codeItem pushes one top-level item.
func (b *builder) codeItem(lang *language, start, end int, strength int8, heading string) {
	start, end = trim(b.text, start, end)
	if start >= end {
		return
	}
	if end-start <= b.size*maxCountBytesPerToken {
		if t := b.countUpToSize(start, end); t <= b.size {
			b.push(unit{start: start, end: end, tokens: t, strength: strength, heading: heading})
			return
		}
	}
	// Too large: line by line, with nested declarations as boundaries.
	// Indented comment lines wait for the line after them, so that a
	// method's comment and decorators go with the method.
	text := b.text[start:end]
	var comments [][2]int // pending comment lines
	var commentStrength int8
	cur := heading // heading of the current nested declaration, if any
	nestedIndent := -1
	blank := false
	first := true
	flushComments := func(st int8) {
		for _, c := range comments {
			b.add(start+c[0], start+c[1], levelLine, st, cur)
			st = strengthLine
		}
		comments = comments[:0]
	}
	forLines(text, func(ls, le int) {
		line := text[ls:le]
		if isBlank(line) {
			flushComments(commentStrength)
			blank = true
			return
		}
		st := lineStrength(blank, &first, strength)
		blank = false
		ind := indentOf(line)
		trimmed := strings.TrimLeft(line, " \t")
		if ind > 0 && lang.isComment(trimmed) {
			if len(comments) == 0 {
				commentStrength = st
			}
			comments = append(comments, [2]int{ls, le})
			return
		}
		if len(comments) > 0 {
			st = commentStrength
		}
		if ind > 0 && lang.nested != nil && lang.nested.MatchString(line) {
			nestedIndent = ind
			cur = lang.declName(trimmed)
			if heading != "" {
				cur = heading + pathSep + cur
			}
			st = max(st, strengthNested)
		} else if nestedIndent >= 0 && ind <= nestedIndent && !isCloser(trimmed) {
			nestedIndent, cur = -1, heading
		}
		if len(comments) > 0 {
			flushComments(st)
			st = strengthLine
		}
		b.add(start+ls, start+le, levelLine, st, cur)
	})
	flushComments(commentStrength)
}

// lineStrength returns the boundary strength before a code line.
func lineStrength(blank bool, first *bool, itemStrength int8) int8 {
	if *first {
		*first = false
		return itemStrength
	}
	if blank {
		return strengthBlock
	}
	return strengthLine
}

func indentOf(line string) int {
	n := 0
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	return n
}

// isCloser reports whether a column-0 line only closes a block ("}",
// ")", "end") and so belongs to the declaration above it.
func isCloser(line string) bool {
	l := strings.TrimSpace(line)
	if l == "" {
		return false
	}
	switch l[0] {
	case '}', ')', ']':
		return true
	}
	return l == "end" || strings.HasPrefix(l, "end ") || l == "fi" || l == "done" || l == "esac" || strings.HasPrefix(l, "</")
}

func (l *language) isComment(line string) bool {
	for _, p := range l.comments {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// declName shortens a declaration line to its keyword and name:
// "func (p *Parser) Parse(s string) error {" -> "func (p *Parser) Parse",
// "class Parser(Base):" -> "class Parser".
func (l *language) declName(line string) string {
	line = strings.TrimSpace(line)
	from := 0
	if strings.HasPrefix(line, "func (") { // Go method receiver
		if i := strings.IndexByte(line, ')'); i > 0 {
			from = i + 1
		}
	}
	cut := len(line)
	stops := "({=;"
	if l.colon {
		stops = "({=;:"
	}
	if i := strings.IndexAny(line[from:], stops); i >= 0 {
		cut = from + i
	}
	name := strings.Join(strings.Fields(line[:cut]), " ")
	if len(name) > maxHeadingBytes {
		cut := maxHeadingBytes
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	return name
}

// topDeclName is declName for top-level lines, except that package, import
// and use lines name nothing: they enclose no code.
func (l *language) topDeclName(line string) string {
	for _, kw := range []string{"package", "import", "use", "using"} {
		if strings.HasPrefix(line, kw) && (len(line) == len(kw) || !isWordByte(line[len(kw)])) {
			return ""
		}
	}
	return l.declName(line)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// maxHeadingBytes bounds a declaration heading.
const maxHeadingBytes = 80

// Declarations returns what the lines of text declare, as Split names a
// code chunk's heading ("func (p *Parser) Parse", "class Parser",
// "type Header struct"), for a file at path in one of the languages Split
// knows, in order; package, import and use lines name nothing. It returns
// nil for a path whose language Split does not know. Only whole lines count:
// a top-level declaration starts at column 0, a nested one (a method of a
// class) is indented as the language writes it.
func Declarations(path, text string) []string {
	lang := languageFor(path)
	if lang.decl == nil {
		return nil
	}
	var out []string
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			continue
		}
		// A top-level declaration starts at column 0 and a nested one is
		// indented (every decl and nested pattern says so): most lines of
		// a body are tested against neither.
		indented := line[0] == ' ' || line[0] == '\t'
		if c := line[0]; c == '}' || c == ')' || c == '/' || c == '*' {
			continue // a closing brace or a comment: no pattern starts so
		}
		var name string
		switch {
		case !indented && lang.decl.MatchString(line):
			name = lang.topDeclName(line)
		case indented && lang.nested != nil && lang.nested.MatchString(line):
			name = lang.declName(line)
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}
