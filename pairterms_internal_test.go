package situate

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/rank"
)

// memoryArms gives e in-memory indexes for every arm its options enable.
func memoryArms(t *testing.T, e *Engine) {
	t.Helper()
	for _, spec := range enabledArms(e.opts) {
		ix, err := bm25.New(spec.options(e))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		e.arms = append(e.arms, &lexArm{spec: spec, ix: ix, weight: spec.weight(e.opts)})
	}
}

// TestPairArmFromLanguageTerms: a document prepared ahead (prepareLexical,
// where the word-pair arm reuses the language arm's analysed terms) gives
// the pair arm the same index as one staged from its text (stage, where
// the pair arm analyses the text itself), in every language and for code,
// stop words, CJK and a chunk without a context; and the terms are reused
// for every chunk, so the test compares the two paths.
func TestPairArmFromLanguageTerms(t *testing.T) {
	docs := []struct {
		lang, format, text string
	}{
		{"en", FormatMarkdown, "# Revenue\n\nThe company's revenue grew 3% in the third quarter of 2024, and the board of directors approved the dividend.\n\nIt was not the first time that the U.S. subsidiary's results were restated."},
		{"de", FormatMarkdown, "Die Bundesregierung hat das Haushaltsgesetz verabschiedet. Über die Donaudampfschifffahrtsgesellschaft wurde nicht gesprochen, aber über Straßenbahnen."},
		{"es", FormatText, "El niño comió manzanas en la cocina. Las políticas públicas de los años noventa cambiaron la economía del país."},
		{"ru", FormatText, "Компания увеличила выручку на 3% в третьем квартале. Совет директоров утвердил дивиденды, а акционеры были довольны."},
		{"zh", FormatText, "公司第三季度收入增长了百分之三。董事会批准了股息，股东们很满意。这是第一次重新公布子公司的业绩。"},
		{"en", FormatCode, "package chunked\n\n// NewChunkedReader returns a new chunkedReader that translates the data read from r\n// out of HTTP \"chunked\" format before returning it.\nfunc NewChunkedReader(r io.Reader) io.Reader {\n\tbr, ok := r.(*bufio.Reader)\n\tif !ok {\n\t\tbr = bufio.NewReader(r)\n\t}\n\treturn &chunkedReader{r: br}\n}\n"},
	}
	o := DefaultOptions()
	if o.PairArmWeight <= 0 || o.ContextWeight != 0 {
		t.Fatalf("the default options have no pair arm (%v) or a separate context field (%v): this test needs neither", o.PairArmWeight, o.ContextWeight)
	}
	ahead, staged := &Engine{opts: o}, &Engine{opts: o}
	memoryArms(t, ahead)
	memoryArms(t, staged)
	pairArm := slicesIndex(ahead.arms, func(a *lexArm) bool { return a.spec.docsFromTerms != nil })
	if pairArm < 0 {
		t.Fatal("no arm is built from the language arm's terms")
	}
	aheadBatch, stagedBatch := partBatches(ahead), partBatches(staged)
	var pairTexts []string
	for i, d := range docs {
		id := fmt.Sprintf("d%d", i)
		var chunks []Chunk
		var contexts []Context
		for j, part := range strings.SplitAfter(d.text, ". ") {
			chunks = append(chunks, Chunk{DocID: id, Index: j, Text: part})
			ctx := Context{Text: "Aus dem Dokument " + id + ": the report's opening; 报告的开头.", Source: "offline"}
			if j == 1 {
				ctx = Context{} // a chunk without a context
			}
			contexts = append(contexts, ctx)
		}
		p := &Prepared{doc: Document{ID: id, Lang: d.lang, Format: d.format, Text: d.text}, chunks: chunks, contexts: contexts}
		if err := ahead.prepareLexical(p); err != nil {
			t.Fatal(err)
		}
		stageAll(aheadBatch, &stagedDoc{rec: DocumentRecord{ID: id, Lang: d.lang}, analysed: p.lex})
		stored := make([]StoredChunk, len(chunks))
		for j := range chunks {
			stored[j] = StoredChunk{Chunk: chunks[j], Context: contexts[j]}
		}
		lang := staged.lexicalDocs(DocumentRecord{ID: id, Lang: d.lang}, stored)
		stageAll(stagedBatch, &stagedDoc{rec: DocumentRecord{ID: id, Lang: d.lang}, docs: lang})
		for _, pd := range staged.pairDocs(lang) {
			pairTexts = append(pairTexts, pd.Fields[bm25.DefaultField])
		}
		// The reuse happens: the language arm sees every chunk's terms
		// under the pair analyzer.
		seen := 0
		if _, err := ahead.arms[0].ix.AnalyzeSeen(id, lang, fieldText, func(int, string, []string) { seen++ }); err != nil {
			t.Fatal(err)
		}
		if seen != len(lang) {
			t.Errorf("%s: the language arm handed on the terms of %d of %d chunks", id, seen, len(lang))
		}
	}
	for _, b := range append(aheadBatch, stagedBatch...) {
		if err := b.apply(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	queries := 0
	for _, text := range pairTexts {
		for _, pair := range strings.Fields(text) {
			if !strings.Contains(pair, rank.PairSeparator) {
				t.Fatalf("pair text %q has a token %q without the separator", text, pair)
			}
			q := bm25.Query{Text: pair, K: 100}
			a, err := ahead.arms[pairArm].ix.Search(q)
			if err != nil {
				t.Fatal(err)
			}
			s, err := staged.arms[pairArm].ix.Search(q)
			if err != nil {
				t.Fatal(err)
			}
			if len(s) == 0 || !reflect.DeepEqual(a, s) {
				t.Errorf("pair %q: prepared ahead %v, staged %v", pair, a, s)
			}
			queries++
		}
	}
	if queries < 50 {
		t.Fatalf("only %d pair queries: the documents make too few pairs to compare", queries)
	}
}

func slicesIndex(arms []*lexArm, f func(*lexArm) bool) int {
	for i, a := range arms {
		if f(a) {
			return i
		}
	}
	return -1
}

// partBatches are a batch of each of e's index parts.
func partBatches(e *Engine) []partBatch {
	var out []partBatch
	for _, p := range e.indexParts() {
		out = append(out, p.newBatch())
	}
	return out
}

func stageAll(batches []partBatch, d *stagedDoc) {
	for _, b := range batches {
		b.stage(d)
	}
}
