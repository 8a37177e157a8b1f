package llm

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/situate/situate/driver"
)

// windowRun contextualizes one document with a context window and returns
// the calls by chunk index.
func windowRun(t *testing.T, m driver.LLM, f *fakeLLM, d DocChunks, o Options) ([]driver.Context, map[int]fakeCall) {
	t.Helper()
	c := mustNew(t, m, o)
	xs, err := c.Contextualize(context.Background(), d.Doc, d.Chunks)
	if err != nil {
		t.Fatal(err)
	}
	byText := map[string]int{}
	for i, ch := range d.Chunks {
		byText[ch.Text] = i
	}
	calls := map[int]fakeCall{}
	for _, c := range f.snapshot() {
		i, ok := byText[c.Chunk]
		if !ok {
			t.Fatalf("call for an unknown chunk %q", c.Chunk)
		}
		if _, dup := calls[i]; dup {
			t.Fatalf("chunk %d called twice", i)
		}
		calls[i] = c
	}
	return xs, calls
}

func windowOptions(window int) Options {
	o := testOptions()
	o.ContextWindow = window
	o.MaxTokens = 100
	o.EstimateMargin = 0
	return o
}

func TestWindowExactFit(t *testing.T) {
	d := synthDocs(20, []int{12})[0]
	tm := BuiltinTemplate("en")
	// The budget a whole-document prompt needs, as documented: o200k count
	// of each part (+1 per part), plus MaxTokens.
	fullTok := rawTokens(tm.before) + rawTokens(d.Doc.Text) + rawTokens(tm.after) + 1
	need := 0
	for _, ch := range d.Chunks {
		need = max(need, fullTok+rawTokens(tm.suffixA)+rawTokens(ch.Text)+rawTokens(tm.suffixB)+1+100)
	}
	f := newFake()
	_, calls := windowRun(t, f, f, d, windowOptions(need))
	for i, c := range calls {
		if c.Prefix != tm.Prefix(d.Doc.Text, "") {
			t.Fatalf("window %d (exact fit): chunk %d got an excerpt", need, i)
		}
	}
	f = newFake()
	_, calls = windowRun(t, f, f, d, windowOptions(need-1))
	excerpted := 0
	for i, c := range calls {
		if rawTokens(c.Prefix+c.Suffix)+100 > need-1 {
			t.Errorf("chunk %d: prompt of %d tokens + 100 does not fit %d", i, rawTokens(c.Prefix+c.Suffix), need-1)
		}
		if strings.Contains(c.Prefix, "<document excerpt>") {
			excerpted++
		}
	}
	if excerpted == 0 {
		t.Errorf("window %d (one token short): no chunk was excerpted", need-1)
	}
}

func TestWindowExcerpts(t *testing.T) {
	d := synthDocs(21, []int{40})[0]
	const window = 1500
	if n := rawTokens(d.Doc.Text); n < 2*window {
		t.Fatalf("test document has only %d tokens", n)
	}
	f := newFake()
	xs, calls := windowRun(t, f, f, d, windowOptions(window))
	if len(calls) != 40 {
		t.Fatalf("%d calls, want 40", len(calls))
	}
	prefixes := map[string]bool{}
	shared := 0
	for i := range 40 {
		c := calls[i]
		if n := rawTokens(c.Prefix + c.Suffix); n+100 > window {
			t.Errorf("chunk %d: %d prompt tokens + 100 output > window %d", i, n, window)
		}
		if !strings.Contains(c.Prefix, "<document excerpt>") {
			t.Errorf("chunk %d: prefix not marked as an excerpt", i)
		}
		if !strings.Contains(c.Prefix, d.Chunks[0].Text) {
			t.Errorf("chunk %d: excerpt lacks the document's beginning", i)
		}
		if !strings.Contains(c.Prefix, d.Chunks[i].Text) {
			t.Errorf("chunk %d: excerpt lacks the chunk itself", i)
		}
		if i > 0 && !strings.Contains(c.Prefix, d.Chunks[i-1].Text) {
			t.Errorf("chunk %d: excerpt lacks the chunk just before it", i)
		}
		if i > 0 && calls[i-1].Prefix == c.Prefix {
			shared++
		}
		prefixes[c.Prefix] = true
		if xs[i].Source != "fake:model" {
			t.Errorf("chunk %d: %+v", i, xs[i])
		}
	}
	t.Logf("40 chunks, window %d: %d distinct prefixes, %d chunks share their predecessor's prefix", window, len(prefixes), shared)
	if len(prefixes) > 20 || shared < 20 {
		t.Errorf("%d distinct prefixes, %d shared: the window should advance in blocks", len(prefixes), shared)
	}
	// Every excerpt group's first call started answering before its other
	// calls began.
	firstOf := map[string]fakeCall{}
	for _, c := range calls {
		if f, ok := firstOf[c.Prefix]; !ok || c.StartSeq < f.StartSeq {
			firstOf[c.Prefix] = c
		}
	}
	for i, c := range calls {
		if f := firstOf[c.Prefix]; c.StartSeq != f.StartSeq && c.StartSeq < f.StartedSeq {
			t.Errorf("chunk %d started before its group's first call answered", i)
		}
	}
}

func TestWindowTooLarge(t *testing.T) {
	d := synthDocs(22, []int{6})[0]
	// Make chunk 3 huge: 600 words.
	big := strings.Repeat("enormous paragraph text ", 200)
	text := d.Doc.Text[:d.Chunks[3].Start] + big + d.Doc.Text[d.Chunks[3].End:]
	shift := len(big) - (d.Chunks[3].End - d.Chunks[3].Start)
	d.Chunks[3].End += shift
	d.Chunks[3].Text = big
	for i := 4; i < 6; i++ {
		d.Chunks[i].Start += shift
		d.Chunks[i].End += shift
	}
	d.Doc.Text = text
	for i, ch := range d.Chunks {
		if text[ch.Start:ch.End] != ch.Text {
			t.Fatalf("bad span %d", i)
		}
	}
	f := newFake()
	o := windowOptions(500)
	o.Fallback = offlineFake{}
	xs, calls := windowRun(t, f, f, d, o)
	if _, ok := calls[3]; ok {
		t.Error("the chunk that cannot fit was sent")
	}
	if x := xs[3]; x.Source != "offline" || strings.Join(x.Flags, ",") != "fallback,too-large" {
		t.Errorf("too-large chunk: %+v", x)
	}
	for i, c := range calls {
		if n := rawTokens(c.Prefix + c.Suffix); n+100 > 500 {
			t.Errorf("chunk %d: %d tokens + 100 > 500", i, n)
		}
		if xs[i].Source != "fake:model" {
			t.Errorf("chunk %d: %+v", i, xs[i])
		}
	}
	if len(calls) != 5 {
		t.Errorf("%d calls, want 5", len(calls))
	}
}

// countingFake reports a context window and counts tokens exactly; its
// tokenizer needs twice as many tokens as o200k.
type countingFake struct {
	*fakeLLM
	counts atomic.Int32
}

func (c *countingFake) ContextWindow(context.Context) (int, error) { return c.window, nil }
func (c *countingFake) CountTokens(_ context.Context, text string) (int, error) {
	c.counts.Add(1)
	return 2 * rawTokens(text), nil
}

func TestWindowFromModelAndExactCounts(t *testing.T) {
	d := synthDocs(23, []int{30})[0]
	f := newFake()
	f.window = 3000
	m := &countingFake{fakeLLM: f}
	o := windowOptions(0)
	usage := &usageLog{}
	o.Usage = usage
	_, calls := windowRun(t, m, f, d, o)
	if m.counts.Load() != 1 {
		t.Errorf("CountTokens called %d times, want once for the document", m.counts.Load())
	}
	for i, c := range calls {
		if n := 2 * rawTokens(c.Prefix+c.Suffix); n+100 > 3000 {
			t.Errorf("chunk %d: %d exact tokens + 100 > window 3000", i, n)
		}
		if !strings.Contains(c.Prefix, "<document excerpt>") {
			t.Errorf("chunk %d: not excerpted although the document needs %d exact tokens", i, 2*rawTokens(d.Doc.Text))
		}
	}
	ops := map[string]int{}
	for _, u := range usage.us {
		ops[u.Operation]++
	}
	if ops["count"] != 1 || ops["context"] != 30 {
		t.Errorf("usage operations %v", ops)
	}
	// A small document is not counted remotely.
	small := synthDocs(24, []int{3})[0]
	m2 := &countingFake{fakeLLM: newFake()}
	m2.window = 100000
	windowRun(t, m2, m2.fakeLLM, small, windowOptions(0))
	if m2.counts.Load() != 0 {
		t.Errorf("a document that fits by the estimate was counted remotely")
	}
}

func TestWindowChangesKeyOnlyForExcerpts(t *testing.T) {
	d := synthDocs(25, []int{30})[0]
	cache := &memCache{}
	o := windowOptions(2000)
	o.Cache = cache
	f := newFake()
	windowRun(t, f, f, d, o)
	// The same window again: all cached.
	f2 := newFake()
	windowRun(t, f2, f2, d, o)
	if n := len(f2.snapshot()); n != 0 {
		t.Errorf("same window: %d calls, want 0", n)
	}
	// A larger window changes the excerpts, so their contexts are redone.
	o.ContextWindow = 2600
	f3 := newFake()
	windowRun(t, f3, f3, d, o)
	if n := len(f3.snapshot()); n == 0 {
		t.Error("a different window reused excerpt contexts made for another prompt")
	}
}
