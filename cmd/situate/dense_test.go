package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/eval"
	"github.com/situate/situate/provider/voyage/voyagetest"
)

// TestEvalCookbookComparison runs the cookbook's four configurations on
// Anthropic's codebase set in one "situate eval --compare" invocation: basic
// embeddings (raw chunks), contextual embeddings, + contextual BM25 (hybrid),
// + rerank. voyagetest stands in for api.voyageai.com (embeddings and rerank
// in Voyage's wire format) with deterministic bag-of-words vectors and a
// term-overlap reranker, so the figures test the pipeline, not a model.
func TestEvalCookbookComparison(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds the codebase set four times")
	}
	data := sharedData(t, "codebase")
	srv := voyagetest.NewServer(voyagetest.Config{APIKey: "vk"})
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	vars := map[string]string{"VOYAGE_API_KEY": "vk"}
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string { return vars[k] }, workDir: t.TempDir()}
	code := Main(context.Background(), e, []string{"eval", "--format", "anthropic",
		"--chunks", filepath.Join(data, "codebase_chunks.json"),
		"--queries", filepath.Join(data, "evaluation_set.jsonl"),
		"--contexts", filepath.Join(data, "contexts_claude3haiku.json"),
		"--embed", "voyage:voyage-3.5", "--embed-base-url", srv.URL,
		"--rerank", "voyage:rerank-2.5", "--rerank-base-url", srv.URL,
		"--configs", "raw+dense,provided+dense,provided+hybrid,provided+hybrid+rerank", "--json"})
	if code != exitOK {
		t.Fatalf("eval exit %d\n%s", code, stderr.String())
	}
	results, err := eval.ReadJSON(&stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 4 {
		t.Fatalf("%d configurations, want 4", len(results))
	}
	for _, r := range results {
		t.Logf("%-28s Pass@5 %.2f  @10 %.2f  @20 %.2f", r.Name, r.Metrics["pass@5"], r.Metrics["pass@10"], r.Metrics["pass@20"])
	}
	st := srv.Stats()
	t.Logf("fake Voyage: %d embed requests (%d texts), %d rerank requests", st.Embeds, st.Texts, st.Reranks)
	if st.Embeds == 0 || st.Reranks == 0 {
		t.Fatalf("providers not used: %+v", st)
	}
	// Contexts must help the dense arm even with bag-of-words vectors, and
	// adding BM25 must help it further: both hold for any sensible pipeline.
	basic, contextual, hybrid := results[0].Metrics["pass@20"], results[1].Metrics["pass@20"], results[2].Metrics["pass@20"]
	if contextual <= basic || hybrid <= contextual {
		t.Errorf("pass@20: basic %.2f, contextual %.2f, hybrid %.2f: want each stage to improve", basic, contextual, hybrid)
	}
}

// TestStatusCountsShortenedEmbeddings indexes with an embedding input limit
// so small that contexts must be shortened, and checks status says so.
func TestStatusCountsShortenedEmbeddings(t *testing.T) {
	root := repoRoot(t)
	srv := voyagetest.NewServer(voyagetest.Config{APIKey: "vk"})
	defer srv.Close()
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	vars := map[string]string{"VOYAGE_API_KEY": "vk"}
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string { return vars[k] }, workDir: dir}
	flags := []string{"--store", store, "--embed", "voyage:voyage-3.5", "--embed-base-url", srv.URL, "--embed-max-tokens", "40"}
	if code := Main(context.Background(), e, append(append([]string{"index"}, flags...), filepath.Join(root, "examples", "corpus", "en"))); code != exitOK {
		t.Fatalf("index exit %d: %s", code, stderr.String())
	}
	stdout.Reset()
	if code := Main(context.Background(), e, []string{"status", "--store", store}); code != exitOK {
		t.Fatalf("status exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "embed-shortened") {
		t.Errorf("status does not count shortened embeddings:\n%s", stdout.String())
	}
}
