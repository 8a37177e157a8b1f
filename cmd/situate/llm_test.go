package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/provider/anthropic/anthropictest"
)

// TestLLMCacheEfficiencyCodebase runs the LLM contextualizer over Anthropic's
// codebase set (90 documents, 737 chunks) through "situate eval" against
// anthropictest, which stands in for api.anthropic.com with its prompt-caching
// semantics (an entry is readable only once the response that writes it has
// started) and its per-model minimum cacheable length. There must be exactly
// one call per chunk; each cacheable document's prefix is written once; at
// least 95% of the other calls of cacheable documents read the cache.
func TestLLMCacheEfficiencyCodebase(t *testing.T) {
	if testing.Short() {
		t.Skip("737 calls against the fake API")
	}
	data := sharedData(t, "codebase")
	srv := anthropictest.NewServer(anthropictest.Config{
		APIKey:          "test-key",
		FirstTokenDelay: 5 * time.Millisecond,
		StreamDelay:     20 * time.Millisecond,
	})
	defer srv.Close()

	var stdout, stderr bytes.Buffer
	envVars := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string { return envVars[k] }, workDir: t.TempDir()}
	code := Main(context.Background(), e, []string{"eval", "--format", "anthropic",
		"--chunks", filepath.Join(data, "codebase_chunks.json"),
		"--queries", filepath.Join(data, "evaluation_set.jsonl"),
		"--llm", "anthropic:claude-sonnet-4-5", "--llm-concurrency", "16", "--json"})
	if code != exitOK {
		t.Fatalf("eval exit %d\n%s", code, stderr.String())
	}
	st := srv.Stats()
	t.Logf("calls %d, cache writes %d (%d tokens), cache reads %d (%d tokens), faults %d",
		st.Messages, st.CacheWrites, st.CacheWriteTokens, st.CacheReads, st.CacheReadTokens, st.Faults)
	// A document that is one chunk gets no call.
	raw, err := os.ReadFile(filepath.Join(data, "codebase_chunks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		Content string `json:"content"`
		Chunks  []struct {
			Content string `json:"content"`
		} `json:"chunks"`
	}
	if err := json.Unmarshal(raw, &docs); err != nil {
		t.Fatal(err)
	}
	whole := 0
	for _, d := range docs {
		if len(d.Chunks) == 1 && strings.TrimSpace(d.Chunks[0].Content) == strings.TrimSpace(d.Content) {
			whole++
		}
	}
	if whole == 0 || st.Messages != 737-whole {
		t.Errorf("%d calls, want exactly one per chunk of the documents of several chunks (737 - %d)", st.Messages, whole)
	}
	// Which documents are cacheable, from the prefixes the server received.
	callsPerPrefix := map[string]int{}
	for _, r := range srv.Requests() {
		var body struct {
			Messages []struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		if r.Path != "/v1/messages" || json.Unmarshal(r.Body, &body) != nil || len(body.Messages) == 0 || len(body.Messages[0].Content) == 0 {
			continue
		}
		callsPerPrefix[body.Messages[0].Content[0].Text]++
	}
	min := anthropictest.MinCacheTokens("claude-sonnet-4-5")
	cacheableDocs, cacheableCalls, prefixTokens := 0, 0, 0
	for prefix, n := range callsPerPrefix {
		if tokens := anthropictest.CountTokens(prefix) + anthropictest.MessageOverhead; tokens >= min {
			cacheableDocs++
			cacheableCalls += n
			prefixTokens += anthropictest.CountTokens(prefix)
		}
	}
	t.Logf("%d distinct prefixes, %d cacheable (>= %d tokens) with %d calls and %d prefix tokens",
		len(callsPerPrefix), cacheableDocs, min, cacheableCalls, prefixTokens)
	if float64(st.CacheWriteTokens) > 1.05*float64(prefixTokens)+float64(cacheableDocs*anthropictest.MessageOverhead) {
		t.Errorf("prefix tokens written %d, want <= 1.05 x %d", st.CacheWriteTokens, prefixTokens)
	}
	if others := cacheableCalls - cacheableDocs; float64(st.CacheReads) < 0.95*float64(others) {
		t.Errorf("%d of %d non-first calls of cacheable documents read the cache, want >= 95%%", st.CacheReads, others)
	}
	if !strings.Contains(stdout.String(), `"name": "llm"`) {
		t.Errorf("eval output lacks the llm configuration:\n%s", stdout.String())
	}
}
