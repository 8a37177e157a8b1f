package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/shareddata"
)

// fakeLLM stands in for a chat-model provider with a prompt prefix cache
// (Anthropic cache_control, OpenAI automatic caching, llama.cpp slots): a
// prefix is written by the first call that sends it and becomes readable
// only once that call has started answering (Prompt.Started). It records
// every call, simulates latency, and injects failures and odd answers.
type fakeLLM struct {
	name      string
	ttft      time.Duration // until Started
	latency   time.Duration // whole call
	noStarted bool          // never call Prompt.Started

	// fail, if set, may fail call n (0-based, over all calls) of a prompt.
	fail func(n int, p driver.Prompt) error
	// answer, if set, replaces the default answer.
	answer func(p driver.Prompt) string
	// window, if > 0, is reported by ContextWindow.
	window int
	// together, if > 0, holds every call before it answers until that many
	// calls have arrived (or togetherWait passed): a test of what the
	// scheduler sends at once then does not depend on how fast goroutines
	// start on a loaded machine.
	together     int
	togetherWait time.Duration
	arrived      chan struct{}

	mu       sync.Mutex
	seq      int
	cache    map[string]bool
	calls    []*fakeCall
	inflight int
	maxIn    int
}

type fakeCall struct {
	DocID          string
	Prefix, Suffix string
	Chunk          string
	StartSeq       int
	StartedSeq     int // 0 if never started
	EndSeq         int
	CacheRead      bool
	OK             bool
	Sample         int
}

func newFake() *fakeLLM {
	return &fakeLLM{name: "fake:model", ttft: 2 * time.Millisecond, latency: 4 * time.Millisecond}
}

func (f *fakeLLM) Name() string { return f.name }

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// chunkOf extracts the chunk from a rendered suffix.
func chunkOf(suffix string) string {
	_, rest, ok := strings.Cut(suffix, "<chunk>\n")
	if !ok {
		return ""
	}
	c, _, _ := strings.Cut(rest, "\n</chunk>")
	return c
}

// defaultAnswer situates the chunk with words taken from it, so it contains
// no number or identifier absent from the document.
func defaultAnswer(p driver.Prompt) string {
	words := strings.Fields(chunkOf(p.Suffix))
	if len(words) > 8 {
		words = words[:8]
	}
	return "This chunk is part of the document and covers " + strings.Join(words, " ") + "."
}

func (f *fakeLLM) Complete(ctx context.Context, p driver.Prompt) (driver.Completion, error) {
	f.mu.Lock()
	if f.cache == nil {
		f.cache = map[string]bool{}
	}
	f.seq++
	c := &fakeCall{DocID: p.DocID, Prefix: p.Prefix, Suffix: p.Suffix, Chunk: chunkOf(p.Suffix), StartSeq: f.seq, Sample: p.Sample}
	ph := hashText(p.Prefix)
	c.CacheRead = f.cache[ph]
	n := len(f.calls)
	f.calls = append(f.calls, c)
	f.inflight++
	f.maxIn = max(f.maxIn, f.inflight)
	if f.together > 0 && f.arrived == nil {
		f.arrived = make(chan struct{})
	}
	if f.together > 0 && len(f.calls) == f.together {
		close(f.arrived)
	}
	arrived := f.arrived
	f.mu.Unlock()
	if arrived != nil {
		t := time.NewTimer(f.togetherWait)
		select {
		case <-arrived:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	defer func() {
		f.mu.Lock()
		f.inflight--
		f.seq++
		c.EndSeq = f.seq
		f.mu.Unlock()
	}()
	if f.fail != nil {
		if err := f.fail(n, p); err != nil {
			if err := sleepCtx(ctx, f.ttft); err != nil {
				return driver.Completion{}, err
			}
			return driver.Completion{}, err
		}
	}
	if err := sleepCtx(ctx, f.ttft); err != nil {
		return driver.Completion{}, err
	}
	f.mu.Lock()
	f.cache[ph] = true
	f.seq++
	c.StartedSeq = f.seq
	f.mu.Unlock()
	if p.Started != nil && !f.noStarted {
		p.Started()
	}
	if err := sleepCtx(ctx, f.latency-f.ttft); err != nil {
		return driver.Completion{}, err
	}
	text := defaultAnswer(p)
	if f.answer != nil {
		text = f.answer(p)
	}
	u := driver.Usage{InputTokens: len(p.Suffix) / 4, OutputTokens: len(text) / 4}
	if c.CacheRead {
		u.CacheReadTokens = len(p.Prefix) / 4
	} else {
		u.CacheWriteTokens = len(p.Prefix) / 4
	}
	f.mu.Lock()
	c.OK = true
	f.mu.Unlock()
	return driver.Completion{Text: text, Usage: u}, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (f *fakeLLM) snapshot() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]fakeCall, len(f.calls))
	for i, c := range f.calls {
		out[i] = *c
	}
	return out
}

// windowedFake also reports a context window.
type windowedFake struct{ *fakeLLM }

func (w windowedFake) ContextWindow(context.Context) (int, error) { return w.window, nil }

// providerError is what a provider package returns: it implements
// Retryable (and RateLimited for 429s).
type providerError struct {
	status int
	after  time.Duration
}

func (e *providerError) Error() string             { return fmt.Sprintf("fake provider: HTTP %d", e.status) }
func (e *providerError) Retryable() bool           { return e.status == 429 || e.status >= 500 }
func (e *providerError) RetryAfter() time.Duration { return e.after }
func (e *providerError) RateLimited() bool         { return e.status == 429 || e.status == 529 }

// memCache is an in-memory situate.ContextCache.
type memCache struct {
	mu sync.Mutex
	m  map[string]driver.Context
}

func (c *memCache) CachedContext(_ context.Context, key string) (driver.Context, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	x, ok := c.m[key]
	return x, ok, nil
}

func (c *memCache) CacheContext(_ context.Context, key string, x driver.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]driver.Context{}
	}
	c.m[key] = x
	return nil
}

func (c *memCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// usageLog is an in-memory situate.UsageRecorder.
type usageLog struct {
	mu sync.Mutex
	us []driver.Usage
}

func (l *usageLog) RecordUsage(_ context.Context, u driver.Usage) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.us = append(l.us, u)
	return nil
}

// offlineFake stands in for the offline extractive contextualizer.
type offlineFake struct{}

func (offlineFake) Name() string { return "offline" }
func (offlineFake) Contextualize(_ context.Context, doc driver.Document, chunks []driver.Chunk) ([]driver.Context, error) {
	out := make([]driver.Context, len(chunks))
	for i := range chunks {
		out[i] = driver.Context{Text: "From " + doc.ID + ".", Source: "offline"}
	}
	return out, nil
}

var errPermanent = errors.New("fake provider: HTTP 400 invalid request")

// vocabulary for synthetic documents.
var words = strings.Fields(`the system stores records in a table and each record has a key value
pair which the index maps to a page on disk while readers scan pages in order writers append new
records to the log before the table is updated so a crash never loses a committed change the
cache keeps recent pages in memory and evicts the oldest ones when it is full compaction merges
small files into larger ones to keep reads fast replication ships the log to followers that
apply it in the same order queries are parsed planned and executed against the chosen index
timeouts abort slow requests and retries repeat them with backoff metrics count requests errors
and latency per endpoint configuration lives in a file that operators edit`)

// synthDocs makes n documents with the given chunk counts: deterministic
// English-like text, chunks of 40-90 words, spans set.
func synthDocs(seed uint64, counts []int) []DocChunks {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]DocChunks, len(counts))
	for d, n := range counts {
		id := fmt.Sprintf("doc%03d.md", d)
		var b strings.Builder
		var chunks []driver.Chunk
		fmt.Fprintf(&b, "# Document %d\n\n", d)
		for i := range n {
			start := b.Len()
			nw := 40 + r.IntN(50)
			for k := range nw {
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			fmt.Fprintf(&b, " section %d.%d.", d, i)
			end := b.Len()
			b.WriteString("\n\n")
			chunks = append(chunks, driver.Chunk{DocID: id, Index: i, Start: start, End: end})
		}
		text := b.String()
		for i := range chunks {
			chunks[i].Text = text[chunks[i].Start:chunks[i].End]
		}
		out[d] = DocChunks{Doc: driver.Document{ID: id, Text: text, Lang: "en", Format: driver.FormatMarkdown}, Chunks: chunks}
	}
	return out
}

// workload90 is 90 documents with 737 chunks (the size of Anthropic's
// codebase evaluation set).
func workload90() []DocChunks {
	counts := make([]int, 90)
	for i := range counts {
		counts[i] = 8
		if i < 17 {
			counts[i] = 9
		}
	}
	return synthDocs(1, counts)
}

// repoRoot is the repository root (the directory holding go.mod).
func repoRoot(t testing.TB) string {
	t.Helper()
	return shareddata.Root(t)
}

func testOptions() Options {
	o := DefaultOptions()
	o.BaseBackoff = time.Millisecond
	o.MaxBackoff = 20 * time.Millisecond
	return o
}

// collect runs c over docs and returns the contexts by document.
func collect(t testing.TB, ctx context.Context, c *Contextualizer, docs []DocChunks) ([][]driver.Context, error) {
	t.Helper()
	out := make([][]driver.Context, len(docs))
	for i, d := range docs {
		out[i] = make([]driver.Context, len(d.Chunks))
	}
	var mu sync.Mutex
	seen := map[[2]int]bool{}
	err := c.Run(ctx, docs, func(d, i int, x driver.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if seen[[2]int{d, i}] {
			t.Errorf("doc %d chunk %d emitted twice", d, i)
		}
		seen[[2]int{d, i}] = true
		out[d][i] = x
		return nil
	})
	return out, err
}
