package questions

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/situate/situate/analysis"
)

// Reasons an item is dropped, in the order the checks run; each dropped
// item counts under the first check it fails.
const (
	// ReasonError: the call failed (after the provider's retries).
	ReasonError = "call-failed"
	// ReasonPreamble: text before the QUESTION line ("Here is a question:").
	ReasonPreamble = "preamble"
	// ReasonMalformed: not exactly a QUESTION line and an ANSWER line, or an
	// empty field.
	ReasonMalformed = "malformed"
	// ReasonAnswerNotInChunk: the answer span does not occur verbatim in the
	// chunk (surrounding quotes and whitespace are trimmed first).
	ReasonAnswerNotInChunk = "answer-not-in-chunk"
	// ReasonWrongLanguage: analysis.Detect gives the question a language
	// other than the document's (an undecided "" passes).
	ReasonWrongLanguage = "wrong-language"
	// ReasonCopied: the share of the question's distinct terms (after the
	// document language's analyzer, stop words removed) that also occur in
	// the chunk exceeds Options.MaxOverlap.
	ReasonCopied = "copies-chunk"
	// ReasonUnanchored: the question names nothing specific (see Anchored).
	ReasonUnanchored = "names-nothing"
	// ReasonDuplicate: the question's sorted distinct terms equal those of
	// an earlier kept question.
	ReasonDuplicate = "duplicate"
)

// Reasons lists the drop reasons in check order.
var Reasons = []string{ReasonError, ReasonPreamble, ReasonMalformed, ReasonAnswerNotInChunk,
	ReasonWrongLanguage, ReasonCopied, ReasonUnanchored, ReasonDuplicate}

// Parse reads the model's output: after trimming surrounding blank space it
// must be exactly two lines, "QUESTION: q" and "ANSWER: a" (labels
// case-insensitive; a full-width colon is accepted). It returns the reason
// ReasonPreamble when other text precedes the QUESTION line and
// ReasonMalformed for anything else that is not the format.
func Parse(out string) (question, answer, reason string) {
	out = strings.TrimSpace(strings.ReplaceAll(out, "\r\n", "\n"))
	qi := labelIndex(out, "QUESTION")
	if qi < 0 {
		return "", "", ReasonMalformed
	}
	if qi > 0 {
		return "", "", ReasonPreamble
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 2 {
		return "", "", ReasonMalformed
	}
	q, ok1 := cutLabel(lines[0], "QUESTION")
	a, ok2 := cutLabel(lines[1], "ANSWER")
	a = strings.TrimSpace(strings.Trim(strings.TrimSpace(a), "\"“”«»「」"))
	if !ok1 || !ok2 || q == "" || a == "" {
		return "", "", ReasonMalformed
	}
	return q, a, ""
}

func labelIndex(s, label string) int {
	up := strings.ToUpper(s)
	for off := 0; ; {
		i := strings.Index(up[off:], label)
		if i < 0 {
			return -1
		}
		i += off
		if i == 0 || up[i-1] == '\n' {
			return i
		}
		off = i + len(label)
	}
}

func cutLabel(line, label string) (string, bool) {
	if len(line) < len(label) || !strings.EqualFold(line[:len(label)], label) {
		return "", false
	}
	rest := strings.TrimLeft(line[len(label):], " \t")
	for _, colon := range []string{":", "："} {
		if r, ok := strings.CutPrefix(rest, colon); ok {
			return strings.TrimSpace(r), true
		}
	}
	return "", false
}

// Overlap is the share of the question's distinct analysed terms that also
// occur in the chunk, with the analyzer of lang (0 for a question without
// terms).
func Overlap(question, chunk, lang string) float64 {
	a := analysis.ForLanguage(lang)
	qt := termSet(a, question)
	if len(qt) == 0 {
		return 0
	}
	ct := termSet(a, chunk)
	n := 0
	for t := range qt {
		if ct[t] {
			n++
		}
	}
	return float64(n) / float64(len(qt))
}

func termSet(a analysis.Analyzer, text string) map[string]bool {
	m := map[string]bool{}
	for _, t := range a.Analyze(text) {
		m[t.Term] = true
	}
	return m
}

// signature is the sorted distinct analysed terms of a question: two
// questions with the same signature ask the same thing.
func signature(question, lang string) string {
	ts := termSet(analysis.ForLanguage(lang), question)
	s := make([]string, 0, len(ts))
	for t := range ts {
		s = append(s, t)
	}
	sort.Strings(s)
	return strings.Join(s, " ")
}

// DocFreq counts, for each analysed term, the number of chunks it occurs
// in; Anchored uses it to find terms rare in the corpus.
type DocFreq struct {
	df     map[string]int
	chunks int
}

// NewDocFreq counts term document frequencies over the sources' chunks.
func NewDocFreq(srcs []Source) *DocFreq {
	d := &DocFreq{df: map[string]int{}}
	for _, s := range srcs {
		a := analysis.ForLanguage(langOf(s))
		for _, c := range s.Chunks {
			d.chunks++
			for t := range termSet(a, c.Text) {
				d.df[t]++
			}
		}
	}
	return d
}

// rareLimit is the most chunks a term may occur in to count as rare:
// 2% of the corpus's chunks, at least 2.
func (d *DocFreq) rareLimit() int { return max(2, d.chunks/50) }

// Anchored says whether a question names what it is about, so that it can
// be answered from a corpus rather than only from its chunk. It does when
// it contains any of:
//   - a number or date (a decimal digit);
//   - a capitalised word that is not the question's first word (a name:
//     "Berlin", "PostgreSQL"), in scripts with case;
//   - a code identifier: a word with an inner capital, underscore, dot or
//     "::" ("parseConfig", "max_tokens", "os.Open");
//   - a term that is rare in the corpus: after the language's analyzer it
//     occurs in at least one and at most max(2, 2% of all) chunks.
func Anchored(question, lang string, df *DocFreq) bool {
	words := strings.FieldsFunc(question, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("¿¡?!,;:()[]\"'«»“”„", r)
	})
	for i, w := range words {
		if strings.ContainsFunc(w, unicode.IsDigit) {
			return true
		}
		r, _ := utf8.DecodeRuneInString(w)
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
		if strings.ContainsAny(strings.Trim(w, "._"), "_") || strings.Contains(w, "::") ||
			(strings.Contains(strings.Trim(w, "."), ".") && !strings.HasSuffix(w, ".")) {
			return true
		}
		if strings.ContainsFunc(w[utf8.RuneLen(r):], unicode.IsUpper) && unicode.IsLower(r) {
			return true
		}
	}
	if df != nil {
		for t := range termSet(analysis.ForLanguage(lang), question) {
			if n := df.df[t]; n >= 1 && n <= df.rareLimit() {
				return true
			}
		}
	}
	return false
}

func langOf(s Source) string {
	if s.Lang != "" {
		return s.Lang
	}
	return resolve(s)
}
