package analysis

import (
	"testing"

	"github.com/situate/situate/internal/shareddata"
)

// sharedData returns ../shared/data/<rel>, or skips the test when absent.
func sharedData(tb testing.TB, rel string) string {
	tb.Helper()
	return shareddata.Path(tb, rel)
}

type cacmDoc struct{ id, text string }

// readCACM reads the CACM collection in place (see shareddata.CACM).
func readCACM(tb testing.TB) []cacmDoc {
	tb.Helper()
	var docs []cacmDoc
	for _, d := range shareddata.CACM(tb) {
		docs = append(docs, cacmDoc{d.ID, d.Text})
	}
	return docs
}

// TestCACMEnglishParity checks the English analyzer against the index
// statistics Anserini (Lucene 8) reports for CACM with the same chain.
func TestCACMEnglishParity(t *testing.T) {
	docs := readCACM(t)
	a, err := New(English)
	if err != nil {
		t.Fatal(err)
	}
	terms := map[string]struct{}{}
	tokens := 0
	for _, d := range docs {
		for _, tok := range a.Analyze(d.text) {
			terms[tok.Term] = struct{}{}
			tokens++
		}
	}
	const wantDocs, wantTerms, wantTokens = 3204, 14363, 320968
	t.Logf("CACM: %d docs, %d unique terms, %d tokens", len(docs), len(terms), tokens)
	if len(docs) != wantDocs || len(terms) != wantTerms || tokens != wantTokens {
		t.Errorf("CACM: got %d docs / %d unique terms / %d tokens, Lucene has %d / %d / %d",
			len(docs), len(terms), tokens, wantDocs, wantTerms, wantTokens)
	}
}
