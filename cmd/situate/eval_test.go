package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/eval"

	"github.com/situate/situate/internal/shareddata"
)

func sharedData(t *testing.T, parts ...string) string {
	t.Helper()
	return shareddata.Path(t, filepath.Join(parts...))
}

func evalJSON(t *testing.T, args ...string) map[string]eval.Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(string) string { return "" }, workDir: t.TempDir()}
	if code := Main(context.Background(), e, append([]string{"eval", "--json"}, args...)); code != exitOK {
		t.Fatalf("eval exit %d\n%s", code, stderr.String())
	}
	rs, err := eval.ReadJSON(&stdout)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]eval.Result{}
	for _, r := range rs {
		out[r.Name] = r
	}
	return out
}

// TestEvalCodebaseNoModel runs situate's defaults on Anthropic's codebase set
// with no model at all and checks the figures issue 4 sets against the
// published ones (see EVAL.md): Claude 3 Haiku contexts beat the cookbook's
// best non-reranked pipeline at Pass@5 and Pass@20 and Lucene's contextual
// BM25 everywhere; situate's own offline contexts beat voyage-2 basic RAG.
func TestEvalCodebaseNoModel(t *testing.T) {
	data := sharedData(t, "codebase")
	rs := evalJSON(t, "--format", "anthropic",
		"--chunks", filepath.Join(data, "codebase_chunks.json"),
		"--queries", filepath.Join(data, "evaluation_set.jsonl"),
		"--contexts", filepath.Join(data, "contexts_claude3haiku.json"),
		"--configs", "offline,provided")
	p, o := rs["provided"].Metrics, rs["offline"].Metrics
	t.Logf("provided Pass@5/10/20 %.2f/%.2f/%.2f; offline %.2f/%.2f/%.2f",
		p["pass@5"], p["pass@10"], p["pass@20"], o["pass@5"], o["pass@10"], o["pass@20"])
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"provided Pass@5 (cookbook best non-reranked 86.43)", p["pass@5"], 86.5},
		{"provided Pass@10 (Lucene contextual BM25 87.51)", p["pass@10"], 87.51},
		{"provided Pass@20 (cookbook best non-reranked 94.99)", p["pass@20"], 95.0},
		{"offline Pass@20 (voyage-2 basic RAG 90.06)", o["pass@20"], 90.1},
	} {
		if c.got < c.want {
			t.Errorf("%s: %.2f, want >= %.2f", c.name, c.got, c.want)
		}
	}
	if p["pass@10"] < 93.3 {
		t.Logf("provided Pass@10 %.2f is below issue 4's 93.3 target (recorded in EVAL.md)", p["pass@10"])
	}
}

// TestEvalCACMLuceneParity checks that the product path — ingest, chunk,
// store, index, search through situate eval — reproduces Lucene's CACM run
// exactly with the Lucene recipe (Anserini: english, k1 0.9, b 0.4).
func TestEvalCACMLuceneParity(t *testing.T) {
	data := sharedData(t, "cacm")
	rs := evalJSON(t, "--format", "trec", "--docs", filepath.Join(data, "cacm.tar.gz"),
		"--topics", filepath.Join(data, "topics.cacm.txt"), "--qrels", filepath.Join(data, "qrels.cacm.txt"),
		"--contextualizer", "none", "--analyzer", "english", "--bm25-k1", "0.9", "--bm25-b", "0.4",
		"--recipe", "lucene", "--chunk-size", "100000", "--chunk-overlap", "0")
	m := rs["raw"].Metrics
	t.Logf("CACM MAP %.4f P@30 %.4f", m["map"], m["p@30"])
	if d := m["map"] - 0.3123; d < -0.0005 || d > 0.0005 {
		t.Errorf("MAP %.4f, want 0.3123 ± 0.0005", m["map"])
	}
	if d := m["p@30"] - 0.1942; d < -0.0005 || d > 0.0005 {
		t.Errorf("P@30 %.4f, want 0.1942 ± 0.0005", m["p@30"])
	}
}

// TestEvalAnswersIndexesTheWholeFolder checks that documents no question
// names are indexed too: they compete for the top ranks, as in real use.
func TestEvalAnswersIndexesTheWholeFolder(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "ferry.md"), []byte("# Marlow ferry\n\nThe Marlow ferry carries twelve cars.\n"), 0o644)
	// A distractor that matches the question better than the answer does.
	os.WriteFile(filepath.Join(docs, "other.md"), []byte("# Ferry cars\n\nHow many cars does the ferry carry? Ferry cars, ferry cars.\n"), 0o644)
	queries := filepath.Join(dir, "q.jsonl")
	os.WriteFile(queries, []byte(`{"id":"1","query":"how many cars does the ferry carry","doc":"ferry.md","answer":"twelve cars"}`+"\n"), 0o644)
	code, out, errOut := run(t, dir, "eval", "--format", "answers", "--docs", docs, "--queries", queries, "--contextualizer", "none")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "2 documents") {
		t.Fatalf("the unnamed document was not indexed:\n%s", out)
	}
}

// TestEvalXQuADAtLeastLucene checks issue 4's prose target through the
// product: on XQuAD en and de, situate's defaults reach at least the
// hit@1 and MRR@10 Lucene gets with its language analyzer, with and
// without the article title as context (figures from the data README).
// For German it also checks that the compound matching is what lifts
// hit@1: with --compound-weight 0 the raw run must score lower.
func TestEvalXQuADAtLeastLucene(t *testing.T) {
	data := sharedData(t, "xquad")
	lucene := map[string]map[string][2]float64{ // lang -> config -> hit@1 (0-1), MRR@10
		"en": {"raw": {0.9286, 0.9546}, "title": {0.9370, 0.9602}},
		"de": {"raw": {0.8933, 0.9275}, "title": {0.9025, 0.9341}},
	}
	for _, lang := range []string{"en", "de"} {
		file := filepath.Join(data, "xquad."+lang+".json")
		rs := evalJSON(t, "--format", "squad", "--file", file, "--lang", lang, "--configs", "raw,title")
		for name, ref := range lucene[lang] {
			m := rs[name].Metrics
			t.Logf("%s %s: hit@1 %.4f MRR@10 %.4f (Lucene %.4f %.4f)", lang, name, m["hit@1"], m["mrr@10"], ref[0], ref[1])
			if m["hit@1"] < ref[0] || m["mrr@10"] < ref[1] {
				t.Errorf("%s %s: hit@1 %.4f MRR@10 %.4f, want at least Lucene's %.4f %.4f", lang, name, m["hit@1"], m["mrr@10"], ref[0], ref[1])
			}
		}
		if lang == "de" {
			off := evalJSON(t, "--format", "squad", "--file", file, "--lang", lang, "--configs", "raw", "--compound-weight", "0")
			on, without := rs["raw"].Metrics["hit@1"], off["raw"].Metrics["hit@1"]
			t.Logf("de raw hit@1: %.4f with compound matching, %.4f without", on, without)
			if on <= without {
				t.Errorf("de raw hit@1 %.4f with compound matching, %.4f without: want higher with", on, without)
			}
		}
	}
}

// TestEvalRussianChineseAtLeastLucene checks issue 13 item 9 on situate's own
// Russian and Chinese paragraph retrieval sets (paragraphs of the Debian
// FAQ, questions written by hand, testdata/debian-faq): the default recipe
// reaches at least the hit@1 of --recipe lucene (the language's analyzer,
// one BM25 arm) with no context and with offline contexts. Before, the code
// arm's second scoring of the Chinese bigrams put Chinese below it (raw
// 0.7455 against 0.7636, offline 0.7091 against 0.7455; EVAL.md "Russian and
// Chinese").
func TestEvalRussianChineseAtLeastLucene(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 evaluations per language (about 10 s); skipped with -short")
	}
	for _, lang := range []string{"ru", "zh"} {
		file := filepath.Join("testdata", "debian-faq", "hand."+lang+".json")
		def := evalJSON(t, "--format", "squad", "--file", file, "--lang", lang, "--configs", "raw,offline")
		luc := evalJSON(t, "--format", "squad", "--file", file, "--lang", lang, "--configs", "raw,offline", "--recipe", "lucene")
		for _, cfg := range []string{"raw", "offline"} {
			d, l := def[cfg].Metrics, luc[cfg].Metrics
			t.Logf("%s %s: situate hit@1 %.4f MRR@10 %.4f, lucene %.4f %.4f", lang, cfg, d["hit@1"], d["mrr@10"], l["hit@1"], l["mrr@10"])
			if d["hit@1"] < l["hit@1"] {
				t.Errorf("%s %s: hit@1 %.4f, below --recipe lucene's %.4f", lang, cfg, d["hit@1"], l["hit@1"])
			}
		}
	}
}
