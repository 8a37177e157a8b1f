package openai_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/llamatest"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/provider/openai"
)

var measure = flag.Bool("measure", false, "run the prefix-cache efficiency measurement against a real llama-server (about 2 minutes on 2 cores)")

// recorder passes calls to a llama.cpp client and keeps every prompt and
// the server's timings.
type recorder struct {
	c  *openai.Client
	mu sync.Mutex
	// calls in completion order
	calls []recorded
}

type recorded struct {
	p       driver.Prompt
	usage   driver.Usage
	timings openai.Timings
}

func (r *recorder) Name() string { return r.c.Name() }
func (r *recorder) ContextWindow(ctx context.Context) (int, error) {
	return r.c.ContextWindow(ctx)
}
func (r *recorder) CountTokens(ctx context.Context, s string) (int, error) {
	return r.c.CountTokens(ctx, s)
}
func (r *recorder) Complete(ctx context.Context, p driver.Prompt) (driver.Completion, error) {
	comp, t, err := r.c.CompleteTimings(ctx, p)
	if err == nil {
		r.mu.Lock()
		q := p
		q.Started = nil
		r.calls = append(r.calls, recorded{p: q, usage: comp.Usage, timings: t})
		r.mu.Unlock()
	}
	return comp, err
}

// corpus is n synthetic documents of about words words, each cut into
// chunks line-aligned chunks.
func corpus(n, words, chunks int) []llm.DocChunks {
	var docs []llm.DocChunks
	for d := 0; d < n; d++ {
		text := fmt.Sprintf("Report %d.\n", d) + synthDoc(d+10, words)
		doc := driver.Document{ID: fmt.Sprintf("report-%02d.md", d), Text: text, Lang: "en"}
		lines := strings.SplitAfter(text, "\n")
		per := (len(lines) + chunks - 1) / chunks
		var cs []driver.Chunk
		start := 0
		for i := 0; i < len(lines); i += per {
			end := start
			for _, l := range lines[i:min(i+per, len(lines))] {
				end += len(l)
			}
			cs = append(cs, driver.Chunk{DocID: doc.ID, Index: len(cs), Start: start, End: end, Text: text[start:end]})
			start = end
		}
		docs = append(docs, llm.DocChunks{Doc: doc, Chunks: cs})
	}
	return docs
}

// TestCacheEfficiency measures issue 5: how many prompt tokens llama-server
// actually evaluates (sum of timings.prompt_n) when the contextualizer
// schedules a corpus (a document's chunks together, each document pinned
// to a slot), against the same prompts sent in a shuffled order, and
// against the minimum: for every document, the tokens its prompts share
// (document and template text up to the chunk) once, plus every prompt's
// remaining tokens (which include the chat template's few per-call tokens,
// so the minimum is slightly above the ideal). It runs with llama.cpp's
// host-memory prompt cache on (the default --cache-ram 8192) and off
// (--cache-ram 0, like older llama.cpp versions and servers that only keep
// the KV cache of each slot's last prompt).
func TestCacheEfficiency(t *testing.T) {
	if !*measure {
		t.Skip("measurement: run with -measure (starts llama-server four times, about 3 minutes)")
	}
	for _, slots := range []string{openai.SlotsHash, openai.SlotsServer} {
		for _, tc := range []struct {
			name string
			args []string
		}{{"cache-ram=default", nil}, {"cache-ram=0", []string{"--cache-ram", "0"}}} {
			t.Run("slots="+slots+"/"+tc.name, func(t *testing.T) { measureCache(t, slots, tc.args) })
		}
	}
}

func measureCache(t *testing.T, slots string, args []string) {
	const nDocs, nWords, nChunks = 6, 900, 5
	docs := corpus(nDocs, nWords, nChunks)
	ctx := context.Background()

	// Grouped: the contextualizer's own order.
	s1 := llamatest.Start(t, llamatest.Options{Args: args})
	rec := &recorder{c: llamaClientSlots(t, s1, slots)}
	opts := llm.DefaultOptions()
	opts.MaxTokens, opts.Concurrency, opts.MaxRetries = 8, 2, 2
	opts.KeepDegenerate = true // random weights write nonsense; the test is about caching
	cz, err := llm.New(rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	emitted := 0
	if err := cz.Run(ctx, docs, func(_, _ int, x driver.Context) error {
		emitted++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if emitted != nDocs*nChunks || len(rec.calls) != nDocs*nChunks {
		t.Fatalf("%d contexts, %d successful calls; want %d", emitted, len(rec.calls), nDocs*nChunks)
	}
	grouped := rec.c.Timings()
	var seq strings.Builder
	for _, call := range rec.calls {
		fmt.Fprintf(&seq, " %s:%d/%d", strings.TrimSuffix(strings.TrimPrefix(call.p.DocID, "report-"), ".md"), call.timings.PromptN, call.timings.CacheN)
	}
	t.Logf("grouped calls in completion order (doc:prompt_n/cache_n):%s", seq.String())

	// The minimum, from the server's own tokenizer.
	shared := map[string]string{}
	for _, call := range rec.calls {
		content := call.p.Prefix + call.p.Suffix
		lcp, ok := shared[call.p.DocID]
		if !ok {
			shared[call.p.DocID] = content
			continue
		}
		n := 0
		for n < len(lcp) && n < len(content) && lcp[n] == content[n] {
			n++
		}
		shared[call.p.DocID] = lcp[:n]
	}
	sharedTokens := map[string]int{}
	minimum, total := 0, 0
	for id, lcp := range shared {
		if sharedTokens[id], err = rec.c.CountTokens(ctx, lcp); err != nil {
			t.Fatal(err)
		}
		minimum += sharedTokens[id]
	}
	for _, call := range rec.calls {
		promptTokens := call.usage.InputTokens + call.usage.CacheReadTokens
		total += promptTokens
		minimum += promptTokens - sharedTokens[call.p.DocID]
	}
	hashSlots := map[int][]string{}
	for _, d := range docs {
		s := openai.Slot(d.Doc.ID, 2)
		hashSlots[s] = append(hashSlots[s], d.Doc.ID)
	}

	// Naive: the same prompts, shuffled, on a fresh server (cold caches),
	// with the same two calls in flight.
	s2 := llamatest.Start(t, llamatest.Options{Args: args})
	naiveClient := llamaClientSlots(t, s2, slots)
	order := rand.New(rand.NewPCG(5, 5)).Perm(len(rec.calls))
	work := make(chan driver.Prompt)
	var wg sync.WaitGroup
	errs := make(chan error, len(order))
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if _, _, err := naiveClient.CompleteTimings(ctx, p); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, i := range order {
		work <- rec.calls[i].p
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	naive := naiveClient.Timings()

	report := fmt.Sprintf("corpus: %d documents x %d chunks (%d words each), llama-server -c 8192 -np 2 %s, tiny llama model (llama-spm vocabulary), %s/%s %d CPUs\n"+
		"client: Slots=%s, llm.Options Concurrency 2, MaxTokens 8; hash slots would be %v\n"+
		"prompt tokens sent:            %6d\n"+
		"minimum (shared once + rest):  %6d\n"+
		"grouped (llm.Contextualizer):  %6d evaluated (prompt_n), %6d reused (cache_n) = %.3f x minimum, %.0f ms prompt time\n"+
		"naive shuffled:                %6d evaluated (prompt_n), %6d reused (cache_n) = %.3f x minimum, %.0f ms prompt time\n",
		nDocs, nChunks, nWords, strings.Join(args, " "), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), slots, hashSlots, total, minimum,
		grouped.PromptN, grouped.CacheN, float64(grouped.PromptN)/float64(minimum), grouped.PromptMS,
		naive.PromptN, naive.CacheN, float64(naive.PromptN)/float64(minimum), naive.PromptMS)
	t.Log("\n" + report)
	if slots == openai.SlotsHash && len(args) == 0 && float64(grouped.PromptN) > 1.02*float64(minimum) {
		t.Errorf("grouped order evaluated %d tokens, more than 2%% above the minimum %d", grouped.PromptN, minimum)
	}
	if len(args) > 0 && naive.PromptN <= grouped.PromptN {
		t.Errorf("without the RAM cache, the shuffled order evaluated %d tokens, not more than grouped %d", naive.PromptN, grouped.PromptN)
	}
}

// TestLlamaServerWindowing: a document twice as long as a slot's context
// goes through llm.Contextualizer with this client: the window comes from
// /props, the exact size from /tokenize, and every prompt the
// contextualizer builds fits the slot (no HTTP 400, no fallback).
func TestLlamaServerWindowing(t *testing.T) {
	s := llamatest.Start(t, llamatest.Options{})
	rec := &recorder{c: llamaClient(t, s)}
	docs := corpus(1, 3600, 4) // ~5,100 tokens on 4,096-token slots
	opts := llm.DefaultOptions()
	// Retries ride out a call that failed on a loaded machine; only
	// successful calls are counted below.
	opts.MaxTokens, opts.Concurrency, opts.MaxRetries = 8, 2, 2
	opts.KeepDegenerate = true // random weights write nonsense; the test is about windows
	cz, err := llm.New(rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	n, err := rec.c.CountTokens(context.Background(), docs[0].Doc.Text)
	if err != nil || n < 4500 {
		t.Fatalf("document has %d tokens (%v), want more than a slot's 4096", n, err)
	}
	var flags []string
	err = cz.Run(context.Background(), docs, func(_, i int, x driver.Context) error {
		for _, f := range x.Flags {
			if f == llm.FlagFallback || f == llm.FlagTooLarge || f == llm.FlagError {
				flags = append(flags, fmt.Sprintf("chunk %d: %v", i, x.Flags))
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(flags) > 0 || len(rec.calls) != len(docs[0].Chunks) {
		t.Fatalf("%d successful calls for %d chunks; failed contexts: %v", len(rec.calls), len(docs[0].Chunks), flags)
	}
	for _, c := range rec.calls {
		if total := c.usage.InputTokens + c.usage.CacheReadTokens; total+8 > 4096 {
			t.Errorf("a prompt of %d tokens does not leave room for the answer in a 4096-token slot", total)
		}
	}
	t.Logf("document of %d tokens: %d calls, prompt sizes %v", n, len(rec.calls), func() []int {
		var out []int
		for _, c := range rec.calls {
			out = append(out, c.usage.InputTokens+c.usage.CacheReadTokens)
		}
		return out
	}())
}
