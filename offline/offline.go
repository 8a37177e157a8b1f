package offline

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/situate/situate/driver"
)

// Name is the contextualizer's name and the Source of its contexts.
const Name = "offline"

// DefaultMaxWords is the default word budget of one context.
const DefaultMaxWords = 60

// Options configures the offline contextualizer.
type Options struct {
	// MaxWords bounds a context's length in words (a CJK character counts
	// half a word). Contexts are also capped at MaxTokens estimated tokens.
	MaxWords int
}

// DefaultOptions returns the options New uses for zero fields.
func DefaultOptions() Options {
	return Options{MaxWords: DefaultMaxWords}
}

// Validate reports the first invalid field.
func (o Options) Validate() error {
	if o.MaxWords < 0 {
		return fmt.Errorf("offline options: MaxWords %d: must be >= 0 (0 means %d): %w", o.MaxWords, DefaultMaxWords, driver.ErrInvalid)
	}
	return nil
}

// Contextualizer writes extractive contexts. It is stateless and safe for
// concurrent use.
type Contextualizer struct {
	maxWords int
}

var _ driver.Contextualizer = (*Contextualizer)(nil)

// New returns an offline contextualizer. Zero or negative fields take their
// defaults.
func New(opts Options) *Contextualizer {
	if opts.MaxWords <= 0 {
		opts.MaxWords = DefaultMaxWords
	}
	return &Contextualizer{maxWords: opts.MaxWords}
}

// Name returns "offline".
func (c *Contextualizer) Name() string { return Name }

// Contextualize returns one context per chunk, in order, each with Source
// "offline". For a document with any text or name, no context is empty.
func (c *Contextualizer) Contextualize(ctx context.Context, doc driver.Document, chunks []driver.Chunk) ([]driver.Context, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("offline contextualize %q: %w", doc.ID, err)
	}
	t := templateFor(doc.Lang)
	out := make([]driver.Context, len(chunks))
	if doc.Format == driver.FormatCode {
		names := []string{doc.Path, doc.ID, doc.Title}
		o := parseCode(doc.Text, detectLang(names, doc.Text))
		file := fileName(doc)
		fileDefs := fileDefinitions(o.decls) // the same for every chunk
		for i, ch := range chunks {
			out[i] = driver.Context{Text: c.codeContext(t, file, o, fileDefs, doc, ch), Source: Name}
		}
	}
	title := docTitle(doc)
	if title == "" {
		title = truncateWords(oneLine(doc.Text), 8)
	}
	// The context names what the document is about: the subject of its
	// opening sentence, the entity a question names while a chunk deep in
	// the document calls it "the company" or "the town". The whole opening
	// sentence is not repeated: on every chunk of a document it pulls
	// questions about the opening towards all of them (XQuAD hit@1 fell by
	// two points with it, see EVAL.md).
	var subject, entity string
	if slices.ContainsFunc(out, func(c driver.Context) bool { return c.Text == "" }) {
		lead := proseSummary(doc.Text)
		lower := lowercaseWords(doc.Text)
		subject = subjectEntity(lead, func(w string) bool { return lower[w] })
		// One capitalised word opening the text is a name only if the title
		// or a capitalised use inside a sentence says so: in "Nearby, in the
		// Saxon Garden, ..." it is not.
		// A word the document also writes in lower case ("Much", "Import",
		// "Applications") is a common word, whatever its capital says.
		caps := midSentenceCaps(doc.Text)
		if subject != "" && isSingleWord(subject) && !mentions(title, subject) && !definedByDash(lead, subject) &&
			(caps[stemKey(subject)] == 0 || seenLower(lower, subject)) {
			subject = ""
		}
		// A sentence opening with a date or a phrase ("In 2019, Acme Corp
		// ...") names its subject further on; one word there needs a second
		// capitalised use.
		if later := laterName(lead, !informativeTitle(doc, title)); subject == "" && later != "" &&
			(!isSingleWord(later) || mentions(title, later) || caps[stemKey(later)] >= 2 && !seenLower(lower, later)) {
			subject = later
		}
		// A Chinese subject is a name the document uses again; words found
		// once are the opening's wording ("您需要注销再登录才能"), not its subject.
		if hanCount(subject) >= 2 && strings.Count(doc.Text, subject) < 2 && !definedZH(lead, subject) {
			subject = ""
		}
		switch {
		case subject != "" && !mentions(title, subject):
			entity = subject
		case subject == "" && !informativeTitle(doc, title):
			// Nothing names the document: its opening words are the best
			// description there is.
			subject = firstClause(lead, maxLeadWords)
		}
	}
	for i, ch := range chunks {
		if out[i].Text != "" {
			continue
		}
		out[i] = driver.Context{Text: c.proseContext(t, title, entity, subject, ch), Source: Name}
	}
	return out, nil
}

// definedByDash reports whether sentence opens with subject followed by a
// dash, the Russian copula of a definition ("Кислород — химический элемент",
// where a common noun is the subject although the text writes it in lower
// case elsewhere).
func definedByDash(sentence, subject string) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeft(sentence, "«\"“„"), subject)
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, "»\"”“ ")
	return strings.HasPrefix(rest, "—") || strings.HasPrefix(rest, "–")
}

// definedZH reports whether the Chinese sentence opens with subject followed
// by a verb that defines it ("华为技术有限公司是…", "诺曼人（…）是…"), rather
// than by a comma.
func definedZH(sentence, subject string) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeft(sentence, "“「《\"'"), subject)
	if !ok {
		return false
	}
	rest = strings.TrimLeft(dropParens(strings.TrimLeft(rest, "”」》\"' ")), " ")
	for _, v := range verbsZH {
		if utf8.RuneCountInString(v) > 1 || strings.ContainsRune("是为于由", []rune(v)[0]) {
			if strings.HasPrefix(rest, v) {
				return true
			}
		}
	}
	return false
}

// seenLower reports whether the document also writes word in lower case,
// singular or plural ("Applications" beside "application").
func seenLower(lower map[string]bool, word string) bool {
	w := strings.ToLower(word)
	return lower[w] || lower[w+"s"] || len(w) > 3 && lower[strings.TrimSuffix(w, "s")]
}

// maxLeadWords bounds the opening words that stand in for a document's
// subject when neither its title nor its opening sentence names one.
const maxLeadWords = 8

// informativeTitle reports whether title was written for the document rather
// than derived from its file name (report-2024.txt, notes.md): a title with
// a file extension and no spaces is a file name. A one-word title such as
// "Warsaw" is a title even when it is also the document's id.
func informativeTitle(doc driver.Document, title string) bool {
	if strings.TrimSpace(doc.Title) == "" {
		return false
	}
	return strings.Contains(title, " ") || path.Ext(title) == ""
}

// firstClause returns s up to its first clause break (comma, semicolon,
// dash, colon, parenthesis), at most max words.
func firstClause(s string, max int) string {
	if i := strings.IndexAny(s, ",;—–(:，；："); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	return truncateWords(s, max)
}

// docTitle is the title, else the file name, else the id, unless the id is
// opaque (a number, a hash, a UUID: "From 4983." says nothing).
func docTitle(doc driver.Document) string {
	for _, s := range []string{doc.Title, doc.Path, doc.ID} {
		s = strings.TrimSpace(s)
		if s == "" || opaqueID(s) {
			continue
		}
		if s != doc.Title {
			s = path.Base(strings.ReplaceAll(s, "\\", "/"))
		}
		return oneLine(s)
	}
	return ""
}

// opaqueID reports an identifier that carries no words: digits and
// punctuation only ("4983", "2024-001"), or a long run of hex digits (a
// hash or UUID).
func opaqueID(s string) bool {
	digits, hex, letters := 0, 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F':
			hex++
		case unicode.IsLetter(r):
			letters++
		}
	}
	if letters > 0 {
		return false
	}
	return hex == 0 && digits > 0 || digits+hex >= 16 && digits > 0
}

// fileName names a code document's file: its ID when that looks like a
// path (has an extension or a slash; ingest makes it the path below the
// indexed root), else the base name of the path it was read from. Never
// the absolute path: it says where the indexing machine kept the file,
// not what the file is, and differs between machines.
func fileName(doc driver.Document) string {
	if strings.ContainsAny(doc.ID, "/.") && !opaqueID(doc.ID) {
		return strings.ReplaceAll(doc.ID, "\\", "/")
	}
	if doc.Path != "" {
		return path.Base(strings.ReplaceAll(doc.Path, "\\", "/"))
	}
	if strings.ContainsAny(doc.Title, "/.") && !strings.Contains(doc.Title, " ") {
		return doc.Title
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func chunkText(doc driver.Document, ch driver.Chunk) string {
	if ch.Text != "" || ch.Start < 0 || ch.End > len(doc.Text) || ch.Start >= ch.End {
		return ch.Text
	}
	return doc.Text[ch.Start:ch.End]
}

// fits reports whether s is within the word and token budgets:
// wordCount(s) <= maxWords and tokenEstimate(s) <= MaxTokens, in one pass
// that stops at the first word over either. The code and prose contexts
// shrink until they fit, rendering a code context about 12 times on
// average, most of them over budget.
func (c *Contextualizer) fits(s string) bool {
	words, tokens := 0, 0
	for f := range strings.FieldsSeq(s) {
		w, t := fieldSize(f)
		if words, tokens = words+w, tokens+t; words > c.maxWords || tokens > MaxTokens {
			return false
		}
	}
	return words <= c.maxWords // (an empty s and a budget below zero)
}

// proseContext renders "From {title} ({entity}), section {heading}:
// {summary}", dropping the summary when the chunk already holds it and
// shortening the parts, least important first, until the budget holds. The
// entity is given only when the title does not name it; the summary is the
// document's subject, so a chunk that never names it gets it once or twice,
// about as often as the chunks that do.
func (c *Contextualizer) proseContext(t template, title, entity, summary string, ch driver.Chunk) string {
	heading := headingPath(ch.Heading, title)
	if summary != "" && strings.Contains(oneLine(ch.Text), summary) {
		summary = ""
	}
	sumWords, headWords, titleWords := wordCount(summary), wordCount(heading), wordCount(title)
	for {
		s := renderProse(t, truncateWords(title, titleWords), entity, truncateWords(heading, headWords), truncateWords(summary, sumWords))
		if c.fits(s) || sumWords+headWords+titleWords == 0 {
			return s
		}
		switch {
		case sumWords > 0:
			sumWords--
		case headWords > 2:
			headWords--
		case titleWords > 2:
			titleWords--
		case headWords > 0:
			headWords--
		default:
			titleWords--
		}
	}
}

func renderProse(t template, title, entity, heading, summary string) string {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, t.from, title)
		if entity != "" {
			fmt.Fprintf(&b, t.about, entity)
		}
		if heading != "" {
			fmt.Fprintf(&b, t.section, heading)
		}
	} else if heading != "" {
		b.WriteString(heading)
	}
	if summary != "" {
		if b.Len() > 0 {
			b.WriteString(t.colon)
		}
		b.WriteString(summary)
		if !endsSentence(summary) && !strings.HasSuffix(summary, "…") {
			b.WriteString(t.stop)
		}
	} else if b.Len() > 0 && !endsSentence(b.String()) {
		// "From Acme Inc." takes no second period.
		b.WriteString(t.stop)
	}
	return b.String()
}

// headingPath drops a leading heading that repeats the title.
func headingPath(h, title string) string {
	h = oneLine(h)
	parts := strings.Split(h, " > ")
	if len(parts) > 0 && strings.EqualFold(strings.TrimSpace(parts[0]), title) {
		parts = parts[1:]
	}
	return strings.Join(parts, " > ")
}

// codeBudget is how many items of each list a code context shows, shrunk
// until the context fits.
type codeBudget struct {
	summary, fileDefs, chunkDefs, path, words int
	pkg, file                                 bool
}

const (
	maxFileDefs  = 12
	maxChunkDefs = 8
	maxSubwords  = 10
)

// subwords splits identifiers into their lowercase words (getUserName ->
// get user name, AVChapterSetTimebase -> av chapter set timebase) so that a
// word-based index matches a query that spells them out. Keywords, one-letter
// words and words seen before are left out; at most max words.
func subwords(names []string, max int) string {
	return strings.Join(subwordList(names, max), " ")
}

// subwordList is subwords' words. Those of a smaller max are a prefix of
// those of a larger one: a word is left out only for what comes before it.
func subwordList(names []string, max int) []string {
	var out []string
	for _, n := range names {
		for rest := n; len(out) < max; {
			var id string
			if id, rest = nextIdent(rest); id == "" {
				break
			}
			parts := splitIdent(id)
			if len(parts) < 2 {
				continue
			}
			for _, p := range parts {
				if len(p) < 2 || subwordSkip[p] || slices.Contains(out, p) || len(out) == max {
					continue
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// subwordMemo holds the subwords of the names a code context rendered
// last: its shrink loop renders a context about 12 times, mostly with the
// same names and fewer words.
type subwordMemo struct {
	names, words []string
}

// get is subwords(names, max) for max <= maxSubwords.
func (m *subwordMemo) get(names []string, max int) string {
	if m.words == nil || !slices.Equal(names, m.names) {
		m.names, m.words = slices.Clone(names), subwordList(names, maxSubwords)
		if m.words == nil {
			m.words = []string{} // known to be none
		}
	}
	return strings.Join(m.words[:min(max, len(m.words))], " ")
}

// subwordSkip are the keywords and small words subwords leaves out.
var subwordSkip = map[string]bool{}

func init() {
	for _, k := range []string{"fn", "impl", "def", "class", "struct", "enum", "trait", "type", "mod", "namespace", "func", "for", "interface", "const", "test", "self",
		"as", "is", "to", "of", "in", "on", "at", "by", "or", "and", "the", "it"} {
		subwordSkip[k] = true
	}
}

// nextIdent returns the first identifier in s ([A-Za-z_][A-Za-z0-9_]*,
// longest) and the text after it; "" when s has none.
func nextIdent(s string) (id, rest string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			j := i + 1
			for j < len(s) && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || '0' <= s[j] && s[j] <= '9') {
				j++
			}
			return s[i:j], s[j:]
		}
	}
	return "", ""
}

// splitIdent splits at underscores, lower-to-upper changes, the end of an
// acronym and letter/digit changes, lowercasing the parts.
func splitIdent(id string) []string {
	var parts []string
	rs := []rune(id)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, strings.ToLower(string(rs[start:end])))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		p := rs[i-1]
		switch {
		case isLower(p) && isUpper(r),
			isDigit(p) != isDigit(r) && p != '_':
			flush(i)
		case isUpper(p) && isUpper(r) && i+1 < len(rs) && isLower(rs[i+1]):
			flush(i)
		}
	}
	flush(len(rs))
	return parts
}

func isLower(r rune) bool { return r >= 'a' && r <= 'z' }
func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }
func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// codeContext renders, e.g., "Rust code: Executor for differential fuzzing.
// Defines DiffExecutor, ProxyObserversTuple. This chunk is in impl
// DiffExecutor > fn run_target and defines into_inner."
func (c *Contextualizer) codeContext(t template, file string, o outline, fileDefs []string, doc driver.Document, ch driver.Chunk) string {
	text := chunkText(doc, ch)
	start, end := ch.Start, ch.End
	if start < 0 || end > len(doc.Text) || start > end || doc.Text[start:end] != text {
		// Spans do not index the text: locate the chunk by content.
		if i := strings.Index(doc.Text, text); i >= 0 && text != "" {
			start, end = i, i+len(text)
		} else {
			start, end = 0, 0
		}
	}
	// Skip leading blank space and comments: a chunk starting with the doc
	// comment of a function is not inside the previous one.
	first := start + leadingSpace(doc.Text[start:end])

	var enclosing, defined []string
	pkgParts := strings.Split(o.pkg, "::")
	for _, d := range o.decls {
		switch {
		case d.kind == "namespace" && slices.Contains(pkgParts, d.name) && d.start < first:
			// already named as the package
		case d.start < first && d.end > first:
			enclosing = append(enclosing, d.label())
		case d.start >= first && d.start < end && !slices.ContainsFunc(defined, func(l string) bool { return strings.HasSuffix(l, " "+d.name) || l == d.name }):
			defined = append(defined, d.label())
		}
	}
	summary := o.summary
	if summary != "" && strings.Contains(oneLine(text), summary) {
		summary = ""
	}

	b := codeBudget{
		summary: wordCount(summary), fileDefs: min(len(fileDefs), maxFileDefs),
		chunkDefs: min(len(defined), maxChunkDefs), path: len(enclosing),
		pkg: o.pkg != "", file: file != "", words: maxSubwords,
	}
	var words subwordMemo
	for {
		s := renderCode(t, file, o, summary, fileDefs, enclosing, defined, b, &words)
		if c.fits(s) {
			return s
		}
		switch {
		case b.words > 4:
			b.words--
		case b.summary > 6:
			b.summary--
		case b.fileDefs > 4:
			b.fileDefs--
		case b.chunkDefs > 4:
			b.chunkDefs--
		case b.summary > 0:
			b.summary = 0
		case b.path > 2:
			// keep the innermost declarations
			enclosing = enclosing[1:]
			b.path--
		case b.fileDefs > 1:
			b.fileDefs--
		case b.chunkDefs > 1:
			b.chunkDefs--
		case b.words > 0:
			b.words = 0
		case b.pkg:
			b.pkg = false
		case b.fileDefs > 0:
			b.fileDefs--
		case b.chunkDefs > 0:
			b.chunkDefs--
		case b.path > 0:
			enclosing = enclosing[1:]
			b.path--
		case b.file:
			file = path.Base(file)
			b.file = false
		default:
			return truncateWords(s, c.maxWords)
		}
	}
}

func renderCode(t template, file string, o outline, summary string, fileDefs, enclosing, defined []string, b codeBudget, words *subwordMemo) string {
	var parts []string
	var head strings.Builder
	switch {
	case file != "":
		fmt.Fprintf(&head, t.file, file)
	case o.lang != "":
		fmt.Fprintf(&head, t.code, o.lang)
	}
	if b.pkg && o.pkg != "" {
		fmt.Fprintf(&head, t.pkg, o.pkg)
	}
	if head.Len() > 0 {
		if summary != "" && b.summary > 0 {
			head.WriteString(t.colon)
			head.WriteString(sentence(t, truncateWords(summary, b.summary)))
		} else {
			head.WriteString(t.stop)
		}
		parts = append(parts, head.String())
	} else if summary != "" && b.summary > 0 {
		parts = append(parts, sentence(t, truncateWords(summary, b.summary)))
	}
	if b.fileDefs > 0 {
		parts = append(parts, sentence(t, fmt.Sprintf(t.defines, strings.Join(fileDefs[:b.fileDefs], t.list))))
	}
	switch {
	case b.path > 0:
		s := fmt.Sprintf(t.in, strings.Join(enclosing, t.path))
		if b.chunkDefs > 0 {
			s += fmt.Sprintf(t.andDef, strings.Join(defined[:b.chunkDefs], t.list))
		}
		parts = append(parts, sentence(t, s))
	case b.chunkDefs > 0:
		parts = append(parts, sentence(t, fmt.Sprintf(t.chunk, strings.Join(defined[:b.chunkDefs], t.list))))
	}
	if b.words > 0 {
		// Innermost first; namespaces and modules say little about a chunk.
		var names []string
		for i := len(enclosing) - 1; i >= 0; i-- {
			if !strings.HasPrefix(enclosing[i], "namespace ") && !strings.HasPrefix(enclosing[i], "mod ") {
				names = append(names, enclosing[i])
			}
		}
		names = append(names, defined[:b.chunkDefs]...)
		if w := words.get(names, b.words); w != "" {
			parts[len(parts)-1] = strings.TrimSuffix(parts[len(parts)-1], t.stop) + " (" + w + ")" + t.stop
		}
	}
	sep := " "
	if t.stop == "。" {
		sep = ""
	}
	return strings.Join(parts, sep)
}

func sentence(t template, s string) string {
	if endsSentence(s) || strings.HasSuffix(s, "…") {
		return s
	}
	return s + t.stop
}

// fileDefinitions lists the file's main names: types first, then top-level
// functions, then the rest, each name once, in order of appearance.
func fileDefinitions(decls []decl) []string {
	var types, top, rest []string
	seenType, seenTop, seenRest := map[string]bool{}, map[string]bool{}, map[string]bool{}
	add := func(list []string, seen map[string]bool, name string) []string {
		if seen[name] {
			return list
		}
		seen[name] = true
		return append(list, name)
	}
	for i, d := range decls {
		nested := false
		for _, p := range decls[:i] {
			if p.start < d.start && p.end > d.start && p.kind != "namespace" && p.kind != "mod" {
				nested = true
				break
			}
		}
		name := d.name
		switch {
		case d.kind == "impl":
			// an impl names a type defined elsewhere or above; skip
		case d.typ && !nested:
			types = add(types, seenType, name)
			if subject := testSubject(name); subject != "" {
				types = add(types, seenType, subject)
			}
		case !nested:
			top = add(top, seenTop, name)
		default:
			rest = add(rest, seenRest, name)
		}
	}
	out := types
	for _, n := range append(top, rest...) {
		out = add(out, seenType, n)
	}
	return out
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// testSuffix matches the name of a test class: PepperGeneratorTest,
// SMTPAppenderTestCase, TestRegistry, BuildDockerMojoIntegrationTest.
var testSuffix = regexp.MustCompile(`^(?:Test_?)?([A-Z]\w*?)_?(?:Integration)?(?:Tests?|TestCase|Spec|IT)?$`)

// testSubject returns the class a test class tests, or "".
func testSubject(name string) string {
	m := testSuffix.FindStringSubmatch(name)
	if m == nil || m[1] == name || len(m[1]) < 3 {
		return ""
	}
	return m[1]
}
