package analysis

import "strings"

// Compounder is implemented by the analyzers of languages that write
// compounds as one word (German: "Gerichtsverfahren", "Verfahren vor
// Gericht"). A query and a text then often name the same thing once as a
// compound and once as its parts. Lucene needs a word list for this
// (DictionaryCompoundWordTokenFilter); a Compounder instead asks the caller
// which terms are known, so the index's own vocabulary is the dictionary.
type Compounder interface {
	Analyzer
	// Decompose splits term (an analysed term) into two known analysed
	// terms, modifier and head, when term could be such a compound
	// ("gerichtsverfahr" -> "gericht", "verfahr"). It returns nil when no
	// split has both parts known. Each part has at least MinCompoundPart
	// bytes; among the possible splits it takes the one whose shorter part
	// is longest.
	Decompose(term string, known func(string) bool) []string
	// Compose returns the known analysed terms of compounds formed by two
	// neighbouring tokens of text (as Analyze returned them), in either
	// order and with each linking element ("Zahl der Mitarbeiter" ->
	// "mitarbeiterzahl").
	Compose(text string, tokens []Token, known func(string) bool) []string
}

// MinCompoundPart is the shortest part, in bytes, Decompose splits off.
const MinCompoundPart = 3

// compoundChain is a wordChain whose language forms compounds with the
// given linking elements ("Fugenelemente"), longest first.
type compoundChain struct {
	*wordChain
	links []string
}

func (c *compoundChain) Decompose(term string, known func(string) bool) []string {
	var best []string
	bestLen := 0
	for i := MinCompoundPart; i <= len(term)-MinCompoundPart; i++ {
		head := term[i:]
		if min(i, len(head)) <= bestLen || !known(head) {
			continue
		}
		mod := term[:i]
		for _, link := range c.links {
			stem, ok := strings.CutSuffix(mod, link)
			if !ok || len(stem) < MinCompoundPart {
				continue
			}
			if m := c.single(stem); m != "" && known(m) {
				best, bestLen = []string{m, head}, min(len(stem), len(head))
				break
			}
		}
	}
	return best
}

func (c *compoundChain) Compose(text string, tokens []Token, known func(string) bool) []string {
	var out []string
	seen := map[string]bool{}
	for i := 1; i < len(tokens); i++ {
		a := strings.ToLower(text[tokens[i-1].Start:tokens[i-1].End])
		b := strings.ToLower(text[tokens[i].Start:tokens[i].End])
		if len(a) < MinCompoundPart || len(b) < MinCompoundPart {
			continue
		}
		for _, pair := range [2][2]string{{a, b}, {b, a}} {
			for _, link := range c.links {
				t := c.single(pair[0] + link + pair[1])
				if t != "" && !seen[t] && known(t) {
					seen[t] = true
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// single analyses one word and returns its term, or "" when the word is
// a stop word or does not stay one word.
func (c *compoundChain) single(word string) string {
	toks := c.Analyze(word)
	if len(toks) != 1 {
		return ""
	}
	return toks[0].Term
}
