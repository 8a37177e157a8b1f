package questions

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
	"github.com/situate/situate/provider/openai"
	"github.com/situate/situate/provider/openai/openaitest"
)

type usageLog struct {
	mu sync.Mutex
	us []driver.Usage
}

func (l *usageLog) RecordUsage(_ context.Context, u driver.Usage) error {
	l.mu.Lock()
	l.us = append(l.us, u)
	l.mu.Unlock()
	return nil
}

// TestGenerateAnthropic runs a 200-question generation over both example
// corpora against the fake Anthropic Messages API (standing in for
// api.anthropic.com), with every check exercised by scripted bad outputs,
// and checks the prompt cache: each document's prefix is written once and
// read by its later calls.
func TestGenerateAnthropic(t *testing.T) {
	srcs := loadSources(t, 80, exampleDirs()...)
	sc := &scripted{}
	srv := anthropictest.NewServer(anthropictest.Config{APIKey: "k",
		MinCacheTokens: func(string) int { return 1 },
		Generate:       func(_ string, blocks []string) string { return sc.answer(blocks[len(blocks)-1]) }})
	defer srv.Close()
	m, err := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.URL, Model: "claude-haiku-4-5", MaxTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	log := &usageLog{}
	opts := Options{N: 200, Seed: 7, Usage: log, Concurrency: 4,
		Price: func(u driver.Usage) float64 { return float64(u.InputTokens+u.OutputTokens) * 1e-6 }}
	res, err := Generate(context.Background(), m, srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d chunks, %d sampled, %d kept, dropped %v, skipped %v", res.Chunks, res.Sampled, len(res.Items), res.Dropped, res.Skipped)
	if res.Sampled != 200 {
		t.Errorf("sampled %d, want 200 (%d chunks)", res.Sampled, res.Chunks)
	}
	checkDrops(t, srcs, res, opts)

	// Cache: one write per document asked about, every later call reads.
	docs := map[string]int{}
	for _, it := range res.All {
		docs[it.Doc]++
	}
	st := srv.Stats()
	if st.Messages != 200 || sc.calls != 200 {
		t.Errorf("%d messages, %d generations, want 200", st.Messages, sc.calls)
	}
	if st.CacheWrites != len(docs) || st.CacheReads != 200-len(docs) {
		t.Errorf("cache writes %d, reads %d; want %d writes (one per document) and %d reads", st.CacheWrites, st.CacheReads, len(docs), 200-len(docs))
	}
	// Usage: one record per call, operation "question", summed in the result.
	if len(log.us) != 200 {
		t.Fatalf("%d usage records, want 200", len(log.us))
	}
	var in, cw, cr int
	var cost float64
	for _, u := range log.us {
		if u.Operation != "question" || u.Provider != "anthropic" || u.Model != "claude-haiku-4-5" || u.DocID == "" {
			t.Fatalf("usage record %+v", u)
		}
		in, cw, cr, cost = in+u.InputTokens, cw+u.CacheWriteTokens, cr+u.CacheReadTokens, cost+u.CostUSD
	}
	if cw != st.CacheWriteTokens || cr != st.CacheReadTokens || cw == 0 || cr == 0 || res.Usage.CacheReadTokens != cr || cost != res.CostUSD || cost == 0 {
		t.Errorf("usage: cache write %d (server %d), read %d (server %d), cost %g (result %g)", cw, st.CacheWriteTokens, cr, st.CacheReadTokens, cost, res.CostUSD)
	}
	var rep bytes.Buffer
	if err := WriteReport(&rep, res); err != nil {
		t.Fatal(err)
	}
	for _, why := range Reasons[1:] {
		if !strings.Contains(rep.String(), "| "+why+" |") {
			t.Errorf("report lacks %s:\n%s", why, rep.String())
		}
	}
	t.Logf("report:\n%s", rep.String())
}

// TestGenerateOpenAICompatible does the same against the fake
// OpenAI-compatible chat completions API (vLLM flavour, standing in for a
// vLLM server) and checks reproducibility: the same seed and the same
// model outputs give the same dataset file, byte for byte, whatever the
// concurrency; another seed gives another sample.
func TestGenerateOpenAICompatible(t *testing.T) {
	srcs := loadSources(t, 80, exampleDirs()...)
	sc := &scripted{}
	srv := openaitest.NewServer(openaitest.Config{Flavor: openaitest.FlavorVLLM,
		Generate: func(content string) string {
			// The content is the prefix followed by the suffix.
			i := strings.Index(content, "\n</document>\n")
			return sc.answer(content[i+len("\n</document>\n"):])
		}})
	defer srv.Close()
	c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1", Model: "qwen", Flavor: openai.FlavorVLLM, MaxTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	m := c.LLM()
	opts := Options{N: 200, Seed: 42, Concurrency: 1}
	res, err := Generate(context.Background(), m, srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkDrops(t, srcs, res, opts)
	st := srv.Stats()
	if st.Chat != 200 || st.CachedTokens == 0 {
		t.Errorf("%d chat calls, %d cached tokens", st.Chat, st.CachedTokens)
	}
	first := datasetBytes(t, res.Items)
	opts.Concurrency = 8
	again, err := Generate(context.Background(), m, loadSources(t, 80, exampleDirs()...), opts)
	if err != nil {
		t.Fatal(err)
	}
	if second := datasetBytes(t, again.Items); !bytes.Equal(first, second) {
		t.Errorf("same seed, same outputs: dataset files differ\n%s\n----\n%s", first, second)
	}
	opts.Seed = 43
	opts.N = 20
	other, err := Generate(context.Background(), m, srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(datasetBytes(t, other.All), datasetBytes(t, res.All[:20])) {
		t.Error("another seed gave the same sample")
	}
	// Every kept line is the answers format.
	for i, line := range bytes.Split(bytes.TrimSpace(first), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, k := range []string{"id", "query", "doc", "answer", "lang", "start", "end", "chunk"} {
			if _, ok := r[k]; !ok {
				t.Errorf("line %d lacks %s: %s", i+1, k, line)
			}
		}
	}
}
