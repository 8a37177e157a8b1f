package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxEntityWords bounds an entity name taken from a sentence's subject.
const maxEntityWords = 6

// leadWords are function words that may open a sentence before its subject
// ("The Marlow Sound Ferry links...", "Die Falkenried Solar GmbH ist...",
// "La Cooperativa ... es"). They are skipped, never part of a name.
var leadWords = map[string]bool{
	"the": true, "a": true, "an": true, "this": true, "our": true,
	"der": true, "die": true, "das": true, "den": true, "dem": true, "des": true, "ein": true, "eine": true,
	"el": true, "la": true, "los": true, "las": true, "lo": true, "un": true, "una": true,
	"le": true, "les": true, "il": true, "lo'": true,
	// sentence-opening adverbs and prepositions: "Сегодня Верхнекамск — …",
	// "Heute ist Oberwendel …", "Today the Corran Valley Railway …"
	"today": true, "now": true, "currently": true, "in": true, "at": true, "since": true,
	"heute": true, "derzeit": true, "seit": true, "im": true, "am": true, "in der": true,
	"hoy": true, "actualmente": true, "ahora": true, "en": true, "desde": true,
	"сегодня": true, "сейчас": true, "ныне": true, "теперь": true, "в": true, "во": true, "на": true, "с": true, "это": true,
}

// determiners are determiners, quantifiers, pronouns and imperatives that
// open a sentence of documentation ("These classes...", "Any Promises...",
// "Please note...", "Welcome to..."): skipped like leadWords, never the
// start of a name, but unlike them they do not announce a name further on
// ("Much of the Node.js core API" is not about Node.js).
var determiners = map[string]bool{
	"these": true, "those": true, "that": true, "any": true, "all": true, "each": true, "every": true,
	"some": true, "many": true, "much": true, "most": true, "more": true, "several": true, "both": true,
	"it": true, "its": true, "we": true, "you": true, "your": true, "they": true, "there": true, "here": true,
	"please": true, "welcome": true, "note": true, "see": true, "use": true, "using": true, "if": true, "when": true,
	"diese": true, "dieser": true, "dieses": true, "alle": true, "jede": true, "jeder": true, "bitte": true, "wir": true,
	"estos": true, "estas": true, "este": true, "esta": true, "todos": true, "todas": true, "cada": true,
	"все": true, "эти": true, "этот": true, "эта": true, "каждый": true,
}

// articles are the leadWords that open a noun phrase: "The node:fs module
// ... POSIX functions" names POSIX in passing, not as its subject.
var articles = map[string]bool{
	"the": true, "a": true, "an": true, "this": true, "our": true,
	"der": true, "die": true, "das": true, "den": true, "dem": true, "des": true, "ein": true, "eine": true,
	"el": true, "la": true, "los": true, "las": true, "lo": true, "un": true, "una": true,
	"le": true, "les": true, "il": true, "это": true,
}

// prepositions open an adverbial phrase before a sentence's subject ("For
// each new release the Debian Project ...", "Для каждого нового выпуска
// Проект Debian делает ...", "Tras la guerra, ..."): like the adverbs and
// prepositions of leadWords they announce a name further on (laterName),
// but they are not skipped before one ("By Design Ltd", "Over" as a name).
var prepositions = map[string]bool{
	"for": true, "after": true, "before": true, "during": true, "from": true, "by": true, "with": true,
	"under": true, "over": true, "through": true, "throughout": true, "across": true, "among": true,
	"within": true, "following": true, "on": true, "unlike": true, "despite": true,
	"für": true, "nach": true, "während": true, "mit": true, "von": true, "bei": true, "unter": true,
	"über": true, "vor": true, "aus": true, "durch": true, "trotz": true,
	"para": true, "por": true, "tras": true, "durante": true, "con": true, "según": true, "sobre": true,
	"bajo": true, "entre": true, "ante": true, "antes": true, "después": true,
	"для": true, "по": true, "при": true, "после": true, "из": true, "от": true, "за": true, "до": true,
	"согласно": true, "среди": true, "под": true, "над": true, "перед": true, "через": true, "у": true,
	"о": true, "об": true, "к": true, "ко": true,
}

// nameJoiners may sit inside a name between capitalised words ("Bank of
// England", "Torrecampo de la Sierra", "Haus der Kunst").
var nameJoiners = map[string]bool{
	"of": true, "and": true, "&": true, "de": true, "del": true, "la": true, "las": true, "los": true, "y": true,
	"von": true, "van": true, "der": true, "und": true, "du": true, "des": true, "di": true, "da": true, "на": true, "и": true,
}

// verbsZH end the subject of a Chinese opening sentence ("青石镇是...",
// "星河电池科技有限公司是一家...", "某某公司位于...").
var verbsZH = []string{"是", "成为", "拥有", "属于", "隶属", "位于", "坐落", "地处", "成立", "创建", "创办", "始建", "始于", "由", "为", "于", "，", "（", "(", "、", "。"}

// openersZH open a Chinese sentence with something other than its subject:
// time, cause, purpose, a demonstrative ("本公司", "该镇") or a pronoun.
var openersZH = []string{"随着", "根据", "按照", "在", "近年", "目前", "去年", "今年", "明年", "截至", "自从", "自", "为了", "由于", "如果", "虽然", "本", "该", "这", "那", "我们", "我", "他们", "他", "她", "它", "其",
	// connectives, prepositions and the reader ("此外，…", "从图形界面…", "您需要…")
	"此外", "另外", "然而", "但是", "但", "因此", "所以", "同时", "首先", "其次", "最后", "例如", "比如", "通常", "一般", "总之", "如", "若", "当", "从", "对于", "关于", "通过", "用于", "对", "将", "把", "被", "请", "您", "你", "可以", "只", "也", "还", "即", "每", "所有", "一些", "有些", "许多", "大多数"}

// subjectEntity returns the name a document's opening sentence is about:
// its leading capitalised words ("Brightwater Logistics", "Puerto
// Almenara", "Североозёрск"), a quoted name opening it («Ладожский свет»),
// or for Chinese the subject before the first verb (青石镇). It returns ""
// when the sentence does not open with a name.
//
// common reports words seen lowercased in the document: such a word opening
// the sentence ("In", "Im", "Seit") is capitalised only by position and is
// skipped.
func subjectEntity(sentence string, common func(string) bool) string {
	s := strings.TrimSpace(sentence)
	if s == "" {
		return ""
	}
	if hanCount(s) >= 4 {
		return subjectZH(s)
	}
	words := strings.Fields(s)
	var name []string
	quoted := false
	for i := 0; i < len(words) && len(name) < maxEntityWords; i++ {
		w := words[i]
		core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if core == "" {
			if len(name) > 0 && !quoted {
				break // a dash or other punctuation ends the name
			}
			continue
		}
		opens := strings.ContainsAny(w[:strings.Index(w, core)], "«\"“„")
		closes := strings.ContainsAny(w[strings.Index(w, core)+len(core):], "»\"”“")
		switch {
		case opens && (len(name) == 0 || isCapitalised(words[max(i-1, 0)])):
			quoted = true
			name = append(name, strings.TrimRight(w, ",;:.!?—–-"))
		case quoted:
			name = append(name, strings.TrimRight(w, ",;:.!?—–-"))
		case len(name) == 0 && i == 0 && common(strings.ToLower(core)) &&
			(utf8.RuneCountInString(core) <= 3 || i+1 == len(words) || !isCapitalised(words[i+1])) &&
			// "Кислород — химический элемент": a dash defines the word before it.
			!(i+1 < len(words) && (words[i+1] == "—" || words[i+1] == "–")):
			continue
		case len(name) == 0 && (leadWords[strings.ToLower(core)] || determiners[strings.ToLower(core)]):
			continue
		case !nameWord(core):
			// Code and markup are no name: NB(chrisdickinson, foo_bar().
			i = len(words)
			continue
		case isCapitalised(core) || (len(name) > 0 && isNumber(core)):
			name = append(name, core)
		case len(name) > 0 && nameJoiners[strings.ToLower(core)] && i+1 < len(words) && isCapitalised(strings.TrimLeft(words[i+1], "«\"“„(")):
			name = append(name, core)
		default:
			i = len(words)
			continue
		}
		if quoted && closes {
			break
		}
		// Punctuation after a word ends the name: "Oberwendel," "Bank:".
		if !quoted && len(w) > len(core) && strings.ContainsAny(w[len(w)-1:], ",;:.)!?") {
			break
		}
	}
	if !quoted && len(name) == 1 && len(words) > 1 && strings.HasSuffix(words[0], ":") && strings.TrimRight(words[0], ":") == name[0] {
		return "" // a label: "Stability: 2 - Stable", "Note: ..."
	}
	if quoted && !strings.ContainsAny(name[len(name)-1], "»\"”“") {
		return "" // an unclosed quotation is not a name
	}
	// A possessive is not part of the name: Luther's writings, Seamans' committee.
	if n := len(name); n > 0 && !quoted {
		for _, suf := range []string{"'s", "’s", "'", "’"} {
			if len(name[n-1]) > len(suf) && strings.HasSuffix(name[n-1], suf) {
				name[n-1] = strings.TrimSuffix(name[n-1], suf)
				break
			}
		}
	}
	for len(name) > 0 && nameJoiners[strings.ToLower(name[len(name)-1])] {
		name = name[:len(name)-1]
	}
	if len(name) == 0 {
		return ""
	}
	return strings.Join(name, " ")
}

func subjectZH(s string) string {
	s = strings.TrimLeft(s, "“「《\"'")
	end := -1
	for _, v := range verbsZH {
		i := strings.Index(s, v)
		if i < 0 {
			continue
		}
		if n := utf8.RuneCountInString(s[:i]); n >= 2 && n <= 14 && (end < 0 || i < end) {
			end = i
		}
	}
	if end < 0 {
		return ""
	}
	sub := strings.TrimRight(s[:end], "”」》\"' ")
	if r, _ := utf8.DecodeRuneInString(sub); unicode.IsDigit(r) || strings.ContainsRune("〇一二三四五六七八九十", r) {
		return "" // 2023年，… or 一九九八年，…: a date, not a name
	}
	for _, p := range openersZH {
		if strings.HasPrefix(sub, p) {
			return ""
		}
	}
	if r, _ := utf8.DecodeLastRuneInString(sub); strings.ContainsRune("年月日时后前来中里间", r) {
		return "" // 近年来, 在此期间: a time or place phrase
	}
	for _, r := range sub {
		if !isHan(r) && !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '·' && r != ' ' {
			return ""
		}
	}
	return sub
}

// nameWord reports whether w can be a word of a name: letters and digits,
// joined by hyphens, apostrophes, dots (Node.js, U.S.) or an ampersand.
func nameWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) && !strings.ContainsRune("-'’.&·", r) {
			return false
		}
	}
	return true
}

func isCapitalised(w string) bool {
	w = strings.TrimLeft(w, "«\"“„(")
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// stemKey is a crude language-neutral stem: the first five letters of a
// lowercased word, so that inflected forms (Североозёрска, Oberwendels) match.
func stemKey(w string) string {
	w = strings.ToLower(w)
	rs := []rune(w)
	if len(rs) > 5 {
		rs = rs[:5]
	}
	return string(rs)
}

// mentions reports whether text already names entity: for Chinese, contains
// it; otherwise every word of the entity has a word in text with the same
// stemKey.
func mentions(text, entity string) bool {
	if entity == "" {
		return true
	}
	if hanCount(entity) > 0 {
		return strings.Contains(text, entity)
	}
	have := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		have[stemKey(w)] = true
	}
	for _, w := range strings.FieldsFunc(entity, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !have[stemKey(w)] {
			return false
		}
	}
	return true
}

// lowercaseWords returns the set of words that occur in text starting with a
// lowercase letter.
func lowercaseWords(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsLower(r) {
			set[w] = true
		}
	}
	return set
}

// laterName returns the first name after the opening phrase (one that
// opens with a preposition, an adverb or a number, or ends at a comma) of a
// sentence that does not open with one: "In 2019, Acme Corp opened ..." -> "Acme Corp", "Founded in
// 1987, Brightwater Logistics is ..." -> "Brightwater Logistics",
// "2023年，星河电池公司…" -> "星河电池公司". In an untitled document (no
// title, or one made from its file name) whose opening sentence has no
// opening phrase, a name of two or more capitalised words further on is
// taken too: nothing else names such a document's subject.
func laterName(sentence string, untitled bool) string {
	s := strings.TrimSpace(sentence)
	if hanCount(s) >= 4 {
		if i := strings.Index(s, "，"); i > 0 {
			return subjectZH(s[i+len("，"):])
		}
		return ""
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		return ""
	}
	first := strings.ToLower(strings.Trim(words[0], ",;:"))
	phrase := leadWords[first] && !articles[first] || prepositions[first] || isNumber(first)
	for k := 1; k < len(words); k++ {
		// "Much of the Node.js core API": a modifier, not the subject;
		// "Wendlingsfeld ist eine Kleinstadt im Norden Hessens, gelegen im
		// Tal der Schwalm": a clause, not an opening phrase, before the
		// comma.
		if !phrase && !(strings.HasSuffix(words[k-1], ",") && k <= 4) {
			continue
		}
		for ; k < len(words); k++ {
			if isCapitalised(words[k]) {
				return subjectEntity(strings.Join(words[k:], " "), func(string) bool { return false })
			}
		}
		return ""
	}
	// No opening phrase: in an untitled document the first capitalised
	// word further on is taken when it opens a name of two or more
	// capitalised words ("This report describes the work of the Ashgrove
	// Trust", "Last year Pellham Mills expanded", "Welcome to the
	// Harbourside Library"). A single word there is a modifier named in
	// passing ("Much of the Node.js core API", "modeled on standard POSIX
	// functions"), and under a title that names the document a later name
	// is mostly one too ("Black Death": "... in the Middle Ages").
	for k := 1; untitled && k < len(words); k++ {
		if isCapitalised(words[k]) {
			if name := subjectEntity(strings.Join(words[k:], " "), func(string) bool { return false }); capitalisedWords(name) >= 2 {
				return name
			}
			return ""
		}
	}
	return ""
}

// capitalisedWords counts the capitalised words of name ("Ashgrove Trust"
// 2, "Bank of England" 2, "TLS 1.2" 1).
func capitalisedWords(name string) int {
	n := 0
	for w := range strings.FieldsSeq(name) {
		if isCapitalised(w) {
			n++
		}
	}
	return n
}

// midSentenceCaps counts, by stemKey, the capitalised words that occur in
// text other than at the start of a sentence: evidence that a word is a
// name rather than capitalised by its position ("Nearby, ..."). A line
// after a heading or title without a full stop counts as inside one.
func midSentenceCaps(text string) map[string]int {
	set := map[string]int{}
	start := true
	for w := range strings.FieldsSeq(text) {
		core := strings.TrimLeft(w, "«\"“„(['‘")
		if r, _ := utf8.DecodeRuneInString(core); !start && unicode.IsUpper(r) {
			set[stemKey(strings.TrimRightFunc(core, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))]++
		}
		r, _ := utf8.DecodeLastRuneInString(w)
		start = strings.ContainsRune(".!?:;。！？", r)
	}
	return set
}

// isSingleWord reports whether a name is one word written in an alphabet
// (not quoted, not Chinese): the kind a sentence-initial adverb or noun
// ("Nearby", "Despite", "Disorders") can be mistaken for.
func isSingleWord(name string) bool {
	return !strings.ContainsAny(name, " «»\"“”„") && hanCount(name) == 0
}
