package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
	"github.com/situate/situate/sqlite"
)

func costOf(t *testing.T, f *fakeAPI, dir string, args ...string) costJSON {
	t.Helper()
	out, _ := f.mustRun(t, dir, append([]string{"cost", "--json"}, args...)...)
	var c costJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("cost --json: %v\n%s", err, out)
	}
	return c
}

// TestCostExampleCorpus estimates the example corpus (11 documents in 5
// languages and 5 formats) and checks the figures against llm.Estimate on
// chunks made independently, against the chunks "situate index" stores,
// and for internal consistency; then it runs the LLM index and compares
// the estimated calls with the calls the server saw.
func TestCostExampleCorpus(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	copyTree(t, filepath.Join(root, "ingest", "testdata", "corpus"), corpus)
	f := newFakeAPI(t, anthropictest.Config{})
	before := f.srv.Stats()
	est := costOf(t, f, dir, "--llm", testModel, corpus)
	if after := f.srv.Stats(); after.Messages+after.CountTokens != before.Messages+before.CountTokens {
		t.Fatalf("cost called the API")
	}
	t.Logf("estimate: %+v", est)

	// The same estimate from chunks made here, as the engine makes them.
	var docs []llm.DocChunks
	store, eng := memEngine(t)
	defer store.Close()
	defer eng.Close()
	err := ingest.Walk(context.Background(), []string{corpus}, ingest.Options{PDF: pdf.New(pdf.Options{})}, func(d situate.Document, err error) error {
		if err != nil {
			var fe *ingest.FileError
			if errors.As(err, &fe) {
				return nil
			}
			return err
		}
		d.Lang = driver.ResolveLanguage(d)
		chunks, err := eng.Split(d)
		docs = append(docs, llm.DocChunks{Doc: d, Chunks: chunks})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	o := llm.DefaultOptions()
	o.ContextWindow = anthropic.ModelContextWindow("claude-sonnet-4-5", nil)
	o.Concurrency = llm.DefaultConcurrency * situate.DefaultParallelDocuments
	want := llm.Estimate(docs, testModel, nil, llm.EstimateOptions{Options: o})
	if est.Docs != want.Docs || est.Chunks != want.Chunks || est.Calls != want.Calls || est.PromptTokens != want.PromptTokens ||
		est.CacheReadTokens != want.CacheReadTokens || math.Abs(est.CostUSD-want.CostUSD) > 1e-9 {
		t.Errorf("cost %+v\ndiffers from llm.Estimate %+v", est, want)
	}
	// Documents of one chunk get no call.
	oneChunk := 0
	for _, d := range docs {
		if len(d.Chunks) == 1 {
			oneChunk++
		}
	}
	if oneChunk == 0 || est.OneChunkDocs != oneChunk || est.SavedCalls != oneChunk || est.SavedCostUSD <= 0 {
		t.Errorf("%d documents of one chunk; the estimate says %d, saving %d calls, $%g", oneChunk, est.OneChunkDocs, est.SavedCalls, est.SavedCostUSD)
	}
	// Consistency of the figures.
	if est.Docs != 11 || est.Calls != est.Chunks-est.TooLarge-est.SavedCalls || est.PromptTokens != est.InputTokens+est.CacheWriteTokens+est.CacheReadTokens ||
		est.OutputTokens != est.Calls*llm.DefaultEstimateOutputTokens || !est.PriceKnown ||
		math.Abs(est.CostBatchUSD-est.CostNoCacheUSD/2) > 1e-9 || est.MinCacheTokens != 1024 || est.Seconds <= 0 {
		t.Errorf("inconsistent estimate: %+v", est)
	}
	noCache := (float64(est.PromptTokens)*3 + float64(est.OutputTokens)*15) / 1e6
	if math.Abs(est.CostNoCacheUSD-noCache) > 1e-9 {
		t.Errorf("cost without caching $%.6f, want $%.6f at Sonnet 4.5 list prices", est.CostNoCacheUSD, noCache)
	}
	// Haiku 4.5 caches nothing under 4096 tokens: no cache traffic, and
	// caching saves nothing.
	haiku := costOf(t, f, dir, "--llm", "anthropic:claude-haiku-4-5", corpus)
	if haiku.CacheReadTokens != 0 || haiku.CacheWriteTokens != 0 || math.Abs(haiku.CostUSD-haiku.CostNoCacheUSD) > 1e-12 || haiku.MinCacheTokens != 4096 {
		t.Errorf("haiku estimate on short documents: %+v", haiku)
	}
	if alt := costOf(t, f, dir, "--provider", "anthropic", "--model", "claude-haiku-4-5", corpus); alt != haiku {
		t.Errorf("--provider/--model estimate %+v differs from --llm's %+v", alt, haiku)
	}
	// Rate limits slow the projection down.
	slow := costOf(t, f, dir, "--llm", testModel, "--rpm", "10", corpus)
	if want := float64(est.Calls) / 10 * 60; math.Abs(slow.Seconds-want) > 1 {
		t.Errorf("at 10 requests/min: %.0f s, want %.0f", slow.Seconds, want)
	}

	// The real run: as many calls as estimated, as many chunks as stored.
	st := filepath.Join(dir, "store")
	f.mustRun(t, dir, "index", "--store", st, "--llm", testModel, corpus)
	if chunks := storeStats(t, st).Chunks; chunks != est.Chunks {
		t.Errorf("index stored %d chunks, cost estimated %d", chunks, est.Chunks)
	}
	if calls := f.srv.Stats().Messages - before.Messages; calls != est.Calls {
		t.Errorf("index made %d calls, cost estimated %d", calls, est.Calls)
	}
	out, _ := f.mustRun(t, dir, "cost", "--llm", testModel, corpus)
	for _, w := range []string{"calls ", "cache read ", "without caching", "batch mode", "time "} {
		if !strings.Contains(out, w) {
			t.Errorf("cost table lacks %q:\n%s", w, out)
		}
	}
	t.Logf("\n%s", out)
}

// TestCostCachedCorpus checks the cache figures against a run on
// documents long enough to be cached.
func TestCostCachedCorpus(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 4)
	f := newFakeAPI(t, anthropictest.Config{FirstTokenDelay: time.Millisecond, StreamDelay: 5 * time.Millisecond})
	est := costOf(t, f, dir, "--llm", testModel, corpus)
	st := filepath.Join(dir, "store")
	f.mustRun(t, dir, "index", "--store", st, "--llm", testModel, corpus)
	s := f.srv.Stats()
	t.Logf("run cost by usage: $%.4f", usageGroup(usageOf(t, f, dir, st), "context").CostUSD)
	t.Logf("estimate: %d calls, %d written, %d read, $%.4f (no cache $%.4f, batch $%.4f); run: %d calls, %d written, %d read (bytes/4 tokens)",
		est.Calls, est.CacheWriteTokens, est.CacheReadTokens, est.CostUSD, est.CostNoCacheUSD, est.CostBatchUSD, s.Messages, s.CacheWriteTokens, s.CacheReadTokens)
	if est.Calls != s.Messages || s.CacheWrites != 4 || est.CacheWriteTokens == 0 {
		t.Errorf("estimate %+v vs server %+v", est, s)
	}
	// One write per document, the other calls read: the same split.
	if r := float64(est.CacheReadTokens) / float64(est.CacheWriteTokens); math.Abs(r-float64(s.CacheReadTokens)/float64(s.CacheWriteTokens)) > 0.5 {
		t.Errorf("read/write ratio: estimated %.2f, run %.2f", r, float64(s.CacheReadTokens)/float64(s.CacheWriteTokens))
	}
	if est.CostUSD >= est.CostNoCacheUSD {
		t.Errorf("caching saves nothing: $%.4f vs $%.4f", est.CostUSD, est.CostNoCacheUSD)
	}
}

func TestCostBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cost", dir}, "--llm"},
		{[]string{"cost", "--llm", "anthropic:claude-sonnet-4-5"}, "no PATH"},
		{[]string{"cost", "--llm", "claude", dir}, "PROVIDER:MODEL"},
		{[]string{"cost", "--llm", testModel, "--rpm", "-1", dir}, "--rpm"},
		{[]string{"cost", "--provider", "anthropic", dir}, "--model"},
		{[]string{"cost", "--llm", testModel, "--llm-cache-ttl", "2h", dir}, "CacheTTL"},
	} {
		code, _, errOut := run(t, dir, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("situate %v: exit %d, stderr %q; want usage error mentioning %q", tc.args, code, errOut, tc.want)
		}
	}
}

// memEngine is an engine with the default chunking over a temporary store.
func memEngine(t *testing.T) (*sqlite.Store, *situate.Engine) {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), storeFile))
	if err != nil {
		t.Fatal(err)
	}
	o := situate.DefaultOptions()
	o.Contextualizer = nil
	eng, err := situate.Open(context.Background(), "", s, o)
	if err != nil {
		t.Fatal(err)
	}
	return s, eng
}
