package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/internal/llamatest"
)

// TestIndexWithRealLlamaServer runs "situate index --llm llamacpp" and a
// hybrid search against a real llama.cpp server (built by
// scripts/build-llama-server.sh) serving a tiny random-weight model the
// project generates: chat completions for the contexts, /v1/embeddings for the
// dense arm. Random weights write nonsense, so the test checks the plumbing —
// every chunk contextualized by the server, usage recorded, vectors searched —
// not the contexts' quality. The grammar field keeps the output parseable.
func TestIndexWithRealLlamaServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts llama-server twice")
	}
	chat := llamatest.Start(t, llamatest.Options{})
	embed := llamatest.Start(t, llamatest.Options{Args: []string{"--embedding", "--pooling", "mean"}})
	root := repoRoot(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	corpus := filepath.Join(root, "examples", "corpus", "en")
	// Random weights write nonsense, which the degenerate checks reject
	// (see TestLlamaNonsenseCaught): keep it, flagged, to test the plumbing.
	llmFlags := []string{"--llm", "llamacpp", "--llm-base-url", chat.BaseURL, "--llm-max-tokens", "12",
		"--llm-extra", `{"grammar": "root ::= [a-z ]+", "temperature": 0}`, "--llm-degenerate", "keep",
		"--embed", "llamacpp", "--embed-base-url", embed.BaseURL}
	_, errOut := mustRun(t, dir, append([]string{"index", "--store", store}, append(llmFlags, corpus)...)...)
	if !strings.Contains(errOut, "0 failed") {
		t.Fatalf("index: %s", errOut)
	}
	if !strings.Contains(errOut, "llm: ") || !strings.Contains(errOut, "% cached") {
		t.Errorf("index did not report what the LLM calls cost:\n%s", errOut)
	}
	out, _ := mustRun(t, dir, "usage", "--store", store)
	t.Logf("usage:\n%s", out)
	if !strings.Contains(out, "llamacpp") {
		t.Errorf("usage does not show the llama.cpp calls:\n%s", out)
	}
	res := search(t, dir, store, 3, "Brightwater Logistics barges", "--embed", "llamacpp", "--embed-base-url", embed.BaseURL)
	if len(res.Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range res.Results {
		if !strings.HasPrefix(r.Contextualizer, "llamacpp") {
			t.Errorf("result context made by %q, want the llama.cpp model", r.Contextualizer)
		}
	}
	flagged, _ := mustRun(t, dir, "contexts", "--store", store, "--flagged", "--sample", "0")
	if strings.Contains(flagged, "fallback") {
		t.Errorf("some chunks fell back to the offline context:\n%s", flagged)
	}
}
