package llm

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeContexts reads the 737 contexts Claude 3 Haiku wrote for the
// codebase set, keyed like codebaseDocs: doc id and chunk index.
func claudeContexts(t *testing.T) map[string][]string {
	path := filepath.Join(repoRoot(t), "..", "shared", "data", "codebase", "contexts_claude3haiku.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("codebase contexts not available (%v): skipping", err)
	}
	var raw []struct {
		DocID   string `json:"doc_id"`
		Index   int    `json:"original_index"`
		Context string `json:"context"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	out := map[string][]string{}
	for _, r := range raw {
		xs := out[r.DocID]
		for len(xs) <= r.Index {
			xs = append(xs, "")
		}
		xs[r.Index] = r.Context
		out[r.DocID] = xs
	}
	return out
}

// TestDegenerateOnClaudeContexts measures the degenerate checks' false
// positives on real contexts (Claude 3 Haiku, codebase set: 737) and their
// catch rate on generated nonsense of each kind the tiny llama-server model
// and broken servers produce.
func TestDegenerateOnClaudeContexts(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement over the codebase set (7 s): skipped with -short")
	}
	docs := codebaseDocs(t)
	ctxs := claudeContexts(t)
	check1 := func(doc *docFacts, answer string) *DegenerateError {
		return check(answer, doc, "en", DefaultMaxContextTokens, rawTokens(answer), DefaultMaxTokens).degenerate
	}
	facts := make([]*docFacts, len(docs))
	total, fp := 0, 0
	for i, d := range docs {
		facts[i] = newDocFacts(d.Doc.Text)
		for _, x := range ctxs[d.Doc.ID] {
			if x == "" {
				continue
			}
			total++
			if e := check1(facts[i], x); e != nil {
				fp++
				t.Logf("false positive (%s): %v\n  %q", d.Doc.ID, e, x)
			}
		}
	}
	if total != 737 {
		t.Fatalf("%d contexts, want 737", total)
	}
	rate := float64(fp) / float64(total)
	t.Logf("false positives: %d of %d Claude 3 Haiku contexts (%.2f%%)", fp, total, 100*rate)
	if rate > 0.01 {
		t.Errorf("false-positive rate %.2f%% > 1%%", 100*rate)
	}

	// Generated nonsense, seeded.
	rng := rand.New(rand.NewPCG(7, 11))
	docWordsOf := func(i int) []string { return strings.Fields(docs[i].Doc.Text) }
	randWord := func() string {
		n := 2 + rng.IntN(10)
		b := make([]byte, n)
		for j := range b {
			b[j] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	kinds := []struct {
		name string
		gen  func(i int) string
		want string // the kind it must be caught as ("" = any)
	}{
		{"one word looped", func(i int) string {
			ws := docWordsOf(i)
			w := ws[rng.IntN(len(ws))]
			return strings.TrimSpace(strings.Repeat(w+" ", 20+rng.IntN(230)))
		}, DegenerateRepetition},
		{"phrase looped", func(i int) string {
			x := strings.Fields(ctxs[docs[i].Doc.ID][0])
			k := 3 + rng.IntN(4)
			s := rng.IntN(max(1, len(x)-k))
			phrase := strings.Join(x[s:min(len(x), s+k)], " ")
			return strings.TrimSpace(strings.Repeat(phrase+" ", 6+rng.IntN(30)))
		}, DegenerateRepetition},
		{"grammar [a-z ]+ babble", func(int) string {
			var ws []string
			for range 20 + rng.IntN(60) {
				ws = append(ws, randWord())
			}
			return strings.Join(ws, " ")
		}, ""},
		{"mixed scripts and symbols", func(i int) string {
			ws := docWordsOf(i)
			noise := []string{"Ъ", "|_{", "ж", "ξ", "}^", "₪", "ǂ", "ʭ"}
			var out []string
			for range 25 + rng.IntN(30) {
				w := ws[rng.IntN(len(ws))]
				if rng.IntN(3) == 0 {
					p := rng.IntN(len(w) + 1)
					w = w[:p] + noise[rng.IntN(len(noise))] + w[p:]
				}
				out = append(out, w)
			}
			return strings.Join(out, " ")
		}, ""},
		{"too short", func(i int) string {
			ws := docWordsOf(i)
			return ws[rng.IntN(len(ws))] + "."
		}, DegenerateLength},
		{"runaway answer", func(i int) string {
			var b strings.Builder
			for b.Len() < 1600 {
				xs := ctxs[docs[i].Doc.ID]
				b.WriteString(xs[rng.IntN(len(xs))] + " ")
				for _, xs2 := range ctxs {
					b.WriteString(xs2[rng.IntN(len(xs2))] + " ")
					break
				}
			}
			return b.String()
		}, ""},
	}
	for _, k := range kinds {
		caught, n := 0, 0
		for i := range docs {
			for range 3 {
				n++
				x := k.gen(i)
				e := check1(facts[i], x)
				if e != nil && (k.want == "" || e.Kind == k.want) {
					caught++
				} else if n-caught <= 3 {
					t.Logf("%s: not caught as %q (%v): %.200q", k.name, k.want, e, x)
				}
			}
		}
		rate := float64(caught) / float64(n)
		t.Logf("%-26s caught %d of %d (%.1f%%)", k.name, caught, n, 100*rate)
		if rate < 0.95 {
			t.Errorf("%s: caught %.1f%% < 95%%", k.name, 100*rate)
		}
	}
	// Another document's context: reported, not required (code files of
	// one language share much vocabulary).
	caught := 0
	for i := range docs {
		j := (i + len(docs)/2) % len(docs)
		xs := ctxs[docs[j].Doc.ID]
		if check1(facts[i], xs[0]) != nil {
			caught++
		}
	}
	t.Logf("%-26s caught %d of %d (%.1f%%)", "another document's context", caught, len(docs), 100*float64(caught)/float64(len(docs)))
}

// Answers the real tiny llama-server model wrote with the grammar
// "root ::= [a-z ]+" (TestLlamaNonsenseCaught) that share a few words with
// the document: caught as noise, words that are no words.
func TestDegenerateTinyModelBabble(t *testing.T) {
	doc := newDocFacts("Brightwater Logistics reported record revenue. The relation with suppliers improved; " +
		"new barges were launched, the status of the fleet, the price of fuel, the town of Brightwater, a model of health counting increases.")
	for _, x := range []string{
		"ilst ayantshalotorepository viron happenedagtcompile flying colschte relation connu slavegebracht launched orthogonalrideaizing suit bought",
		"djangoattentriangle initial hard complicated decre price dialect interview brreactureau vigtrlcatalinajquery ios iosotheried cont handling town",
		"worked health counting ip model crypt fazexamplehon nosebrariesomonurance libro bl seekingsuitjusttrainingipeobjectsdensaisown",
		"reven averinture ze evidentaw predictediration looks form robsup mich variation autre alignment livshowyszlaus perf ti actual increases",
		"ncitoryusztususztusductduct segment mitists theoret occican cinentecuerict passing comune optimizepackages drivers drivers moyctr",
	} {
		if got := check(x, doc, "en", DefaultMaxContextTokens, 24, 24); got.degenerate == nil {
			t.Errorf("not caught: %q", x)
		}
	}
}

// An answer of the tiny model to examples/corpus/en/halden-ironworks.md
// that a CI run indexed unflagged: two of its fourteen content words are
// glued subwords, just under the former 15% share.
func TestDegenerateTinyModelBabbleHalden(t *testing.T) {
	text, err := os.ReadFile("../examples/corpus/en/halden-ironworks.md")
	if err != nil {
		t.Fatal(err)
	}
	x := "djangoprep sessionstelle conscience flav since since communes diceadding kolej giugno valle valleenbergenbergcpyagers iosjquery ip model ip"
	if got := check(x, newDocFacts(string(text)), "en", DefaultMaxContextTokens, 24, 24); got.degenerate == nil {
		t.Errorf("not caught: %q", x)
	}
}

// A short answer of the tiny model to
// examples/corpus/en/brightwater-logistics.md that a CI run indexed
// unflagged: with three words of four letters or more it was under every
// share check's minimum, though two of the three are glued subwords.
func TestDegenerateTinyModelBabbleShort(t *testing.T) {
	text, err := os.ReadFile("../examples/corpus/en/brightwater-logistics.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := newDocFacts(string(text))
	x := "umeume portraitbmatrixinture ip dasrefresh lod"
	if got := check(x, doc, "en", DefaultMaxContextTokens, 12, 24); got.degenerate == nil {
		t.Errorf("not caught: %q", x)
	}
	// A short real context is no babble.
	for _, ok := range []string{"Brightwater Logistics revenue report.", "The fleet section of the annual report."} {
		if got := check(ok, doc, "en", DefaultMaxContextTokens, 8, 24); got.degenerate != nil {
			t.Errorf("%q flagged %v", ok, got.degenerate)
		}
	}
}
