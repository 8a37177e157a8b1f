package llm

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate/driver"
)

// checkSchedule asserts one call per chunk, identical prefixes per
// document, and that every document's other calls started only after its
// first call had started answering. It returns the share of cache reads
// among non-first calls.
func checkSchedule(t *testing.T, docs []DocChunks, calls []fakeCall) float64 {
	t.Helper()
	// A document that is one chunk gets no call (TestWholeDocumentNoCall).
	total := 0
	for _, d := range docs {
		if !wholeDocument(d) {
			total += len(d.Chunks)
		}
	}
	if len(calls) != total {
		t.Fatalf("got %d model calls, want exactly one per chunk of the documents of several chunks: %d", len(calls), total)
	}
	byDoc := map[string][]fakeCall{}
	perChunk := map[string]int{}
	for _, c := range calls {
		byDoc[c.DocID] = append(byDoc[c.DocID], c)
		perChunk[c.DocID+"\x00"+c.Chunk]++
	}
	for _, d := range docs {
		if wholeDocument(d) {
			continue
		}
		for _, ch := range d.Chunks {
			if n := perChunk[d.Doc.ID+"\x00"+ch.Text]; n != 1 {
				t.Errorf("%s chunk %d: %d calls, want 1", d.Doc.ID, ch.Index, n)
			}
		}
	}
	reads, others := 0, 0
	for id, cs := range byDoc {
		first := cs[0]
		for _, c := range cs {
			if c.StartSeq < first.StartSeq {
				first = c
			}
		}
		if first.StartedSeq == 0 {
			t.Errorf("%s: first call never started answering", id)
		}
		for _, c := range cs {
			if c.Prefix != first.Prefix {
				t.Errorf("%s: prefixes differ between chunks", id)
			}
			if c.StartSeq == first.StartSeq {
				continue
			}
			others++
			if c.StartSeq < first.StartedSeq {
				t.Errorf("%s: a call started (seq %d) before the first call started answering (seq %d)", id, c.StartSeq, first.StartedSeq)
			}
			if c.CacheRead {
				reads++
			}
		}
	}
	if others == 0 {
		return 0
	}
	return float64(reads) / float64(others)
}

func TestRunWorkload90(t *testing.T) {
	docs := workload90()
	f := newFake()
	o := testOptions()
	o.Concurrency = 16
	usage := &usageLog{}
	o.Usage = usage
	c, err := New(f, o)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := collect(t, context.Background(), c, docs)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	calls := f.snapshot()
	share := checkSchedule(t, docs, calls)
	t.Logf("90 docs / %d calls at concurrency 16: cache-read share of non-first calls %.4f, max in flight %d, %v",
		len(calls), share, f.maxIn, elapsed)
	if share < 0.95 {
		t.Errorf("cache-read share %.3f < 0.95", share)
	}
	if f.maxIn < 8 {
		t.Errorf("max calls in flight %d: the provider was not kept busy (want >= 8 of 16)", f.maxIn)
	}
	if f.maxIn > 16 {
		t.Errorf("max calls in flight %d exceeds Concurrency 16", f.maxIn)
	}
	for d, xs := range got {
		for i, x := range xs {
			if x.Source != "fake:model" || len(x.Flags) != 0 || !strings.HasPrefix(x.Text, "This chunk is part") {
				t.Fatalf("doc %d chunk %d: %+v", d, i, x)
			}
		}
	}
	if len(usage.us) != len(calls) {
		t.Errorf("%d usage records for %d calls", len(usage.us), len(calls))
	}
	for _, u := range usage.us {
		if u.Operation != "context" || u.Provider != "fake" || u.Model != "model" || u.DocID == "" || u.Error != "" {
			t.Fatalf("usage %+v", u)
		}
	}
}

// codebaseDocs reads Anthropic's codebase set in place.
func codebaseDocs(t *testing.T) []DocChunks {
	path := filepath.Join(repoRoot(t), "..", "shared", "data", "codebase", "codebase_chunks.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("codebase data not available (%v): skipping", err)
	}
	var raw []struct {
		DocID   string `json:"doc_id"`
		Content string `json:"content"`
		Chunks  []struct {
			Index   int    `json:"original_index"`
			Content string `json:"content"`
		} `json:"chunks"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var docs []DocChunks
	for _, r := range raw {
		d := DocChunks{Doc: driver.Document{ID: r.DocID, Text: r.Content, Format: driver.FormatCode}}
		from := 0
		for i, ch := range r.Chunks {
			s := strings.Index(r.Content[from:], ch.Content)
			start := -1
			if s >= 0 {
				start = from + s
				from = start
			} else {
				start = strings.Index(r.Content, ch.Content)
			}
			d.Chunks = append(d.Chunks, driver.Chunk{DocID: r.DocID, Index: i, Start: start, End: start + len(ch.Content), Text: ch.Content})
		}
		docs = append(docs, d)
	}
	return docs
}

func TestRunCodebase(t *testing.T) {
	docs := codebaseDocs(t)
	f := newFake()
	f.ttft, f.latency = time.Millisecond, 2*time.Millisecond
	o := testOptions()
	o.Concurrency = 16
	c, err := New(f, o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(t, context.Background(), c, docs)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.snapshot()
	for _, cl := range calls {
		if cl.Sample > 0 {
			t.Logf("resampled: %q", defaultAnswer(driver.Prompt{Suffix: cl.Suffix}))
		}
	}
	share := checkSchedule(t, docs, calls)
	flagged := 0
	for _, xs := range got {
		for _, x := range xs {
			if len(x.Flags) > 0 && !reflect.DeepEqual(x.Flags, []string{FlagTruncated}) {
				flagged++
				t.Logf("flagged: %q %v", x.Text, x.Flags)
			}
		}
	}
	t.Logf("codebase: %d docs, %d calls, cache-read share %.4f, %d contexts flagged", len(docs), len(calls), share, flagged)
	if share < 0.95 {
		t.Errorf("cache-read share %.3f < 0.95", share)
	}
	if flagged != 0 {
		t.Errorf("%d contexts flagged; the fake answers only with words of the chunk", flagged)
	}
}

func TestProviderWithoutStarted(t *testing.T) {
	docs := synthDocs(2, []int{5, 6, 7})
	f := newFake()
	f.noStarted = true
	c, err := New(f, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, context.Background(), c, docs); err != nil {
		t.Fatal(err)
	}
	calls := f.snapshot()
	if len(calls) != 18 {
		t.Fatalf("%d calls, want 18", len(calls))
	}
	// Without Started, fan-out waits for the first call to return.
	first := map[string]fakeCall{}
	for _, c := range calls {
		if f, ok := first[c.DocID]; !ok || c.StartSeq < f.StartSeq {
			first[c.DocID] = c
		}
	}
	for _, c := range calls {
		if f := first[c.DocID]; c.StartSeq != f.StartSeq && c.StartSeq < f.EndSeq {
			t.Errorf("%s: call started before the first call returned", c.DocID)
		}
	}
}

func TestResume(t *testing.T) {
	docs := synthDocs(3, []int{8, 9, 7, 8, 10, 6, 8, 9, 8, 7})
	// Reference: an uninterrupted run.
	ref, err := collect(t, context.Background(), mustNew(t, newFake(), testOptions()), docs)
	if err != nil {
		t.Fatal(err)
	}

	cache := &memCache{}
	o := testOptions()
	o.Concurrency = 4
	o.Cache = cache
	f1 := newFake()
	c1 := mustNew(t, f1, o)
	ctx, cancel := context.WithCancel(context.Background())
	var emitted atomic.Int32
	err = c1.Run(ctx, docs, func(d, i int, x driver.Context) error {
		if emitted.Add(1) == 30 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err = %v, want context.Canceled", err)
	}
	total := 0
	for _, d := range docs {
		total += len(d.Chunks)
	}
	done := map[string]bool{}
	for _, c := range f1.snapshot() {
		if c.OK {
			done[c.DocID+"\x00"+c.Chunk] = true
		}
	}
	if len(done) < 30 || len(done) >= total {
		t.Fatalf("interrupted run completed %d calls; want a partial run", len(done))
	}

	f2 := newFake()
	got, err := collect(t, context.Background(), mustNew(t, f2, o), docs)
	if err != nil {
		t.Fatal(err)
	}
	calls2 := f2.snapshot()
	for _, c := range calls2 {
		if done[c.DocID+"\x00"+c.Chunk] {
			t.Errorf("%s chunk %q: call repeated after resume", c.DocID, c.Chunk[:20])
		}
	}
	if len(done)+len(calls2) != total {
		t.Errorf("resume made %d calls after %d done; %d chunks unaccounted for", len(calls2), len(done), total-len(done)-len(calls2))
	}
	if !reflect.DeepEqual(got, ref) {
		t.Error("resumed results differ from an uninterrupted run")
	}
	t.Logf("interrupted after %d completed calls; resume made %d calls", len(done), len(calls2))
	// A third run is served entirely from the cache.
	f3 := newFake()
	got3, err := collect(t, context.Background(), mustNew(t, f3, o), docs)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f3.snapshot()); n != 0 {
		t.Errorf("fully cached run made %d calls", n)
	}
	if !reflect.DeepEqual(got3, ref) {
		t.Error("cached results differ")
	}
}

func mustNew(t testing.TB, m driver.LLM, o Options) *Contextualizer {
	t.Helper()
	c, err := New(m, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRetryAfter(t *testing.T) {
	docs := synthDocs(4, []int{4})
	f := newFake()
	var mu sync.Mutex
	attempts := map[string]int{}
	f.fail = func(n int, p driver.Prompt) error {
		mu.Lock()
		defer mu.Unlock()
		ch := chunkOf(p.Suffix)
		attempts[ch]++
		if ch == docs[0].Chunks[2].Text && attempts[ch] <= 2 {
			return &providerError{status: 429, after: 30 * time.Millisecond}
		}
		return nil
	}
	usage := &usageLog{}
	o := testOptions()
	o.Usage = usage
	o.Concurrency = 4
	c := mustNew(t, f, o)
	start := time.Now()
	got, err := collect(t, context.Background(), c, docs)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 60*time.Millisecond {
		t.Errorf("run took %v; two retry-after waits of 30ms were not honoured", el)
	}
	if x := got[0][2]; x.Source != "fake:model" || len(x.Flags) != 0 {
		t.Errorf("retried chunk: %+v", x)
	}
	retries, calls, failed := -1, 0, 0
	for _, u := range usage.us {
		switch u.Operation {
		case "context":
			calls++
			if u.Retries > 0 {
				retries = u.Retries
			}
		case "context-retry":
			failed++
			if !strings.Contains(u.Error, "429") {
				t.Errorf("retried attempt recorded without its error: %+v", u)
			}
		}
	}
	if retries != 2 || calls != 4 || failed != 2 {
		t.Errorf("usage: %d calls, %d failed attempts, retries %d; want 4 calls, one with 2 retries, and its 2 failed attempts", calls, failed, retries)
	}
}

func TestRateLimitHalvesConcurrency(t *testing.T) {
	docs := synthDocs(5, []int{20, 20})
	f := newFake()
	var n atomic.Int32
	f.fail = func(int, driver.Prompt) error {
		if n.Add(1)%5 == 0 {
			return &providerError{status: 429}
		}
		return nil
	}
	o := testOptions()
	o.Concurrency = 8
	c := mustNew(t, f, o)
	got, err := collect(t, context.Background(), c, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, xs := range got {
		for _, x := range xs {
			if x.Source != "fake:model" {
				t.Fatalf("a rate-limited chunk was not retried to success: %+v", x)
			}
		}
	}
	// The limiter is per run; check its behaviour directly.
	l := newLimiter(8)
	e, _ := l.acquire()
	l.rateLimited(e)
	l.rateLimited(e) // same round: no second halving
	if l.current() != 4 {
		t.Errorf("limit after one rate-limit round = %d, want 4", l.current())
	}
	l.rateLimited(l.epoch)
	if l.current() != 2 {
		t.Errorf("limit after second round = %d, want 2", l.current())
	}
	for range 2 + 3 {
		l.success()
	}
	if l.current() != 4 {
		t.Errorf("limit after 5 successes = %d, want 4 (additive increase)", l.current())
	}
}

func TestCallTimeoutRetried(t *testing.T) {
	docs := synthDocs(6, []int{3})
	f := newFake()
	f.ttft, f.latency = time.Millisecond, 2*time.Millisecond
	var first atomic.Bool
	slow := &slowOnce{fakeLLM: f, first: &first}
	o := testOptions()
	// The hung call waits out the timeout; the others answer in 3 ms, but
	// on a loaded machine a goroutine can wait tens of milliseconds for a
	// core, so 50 ms sometimes timed out good calls too.
	o.CallTimeout = 300 * time.Millisecond
	c := mustNew(t, slow, o)
	got, err := collect(t, context.Background(), c, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range got[0] {
		if x.Source != "fake:model" {
			t.Errorf("timed-out call was not retried: %+v", x)
		}
	}
	if !first.Load() {
		t.Error("the slow call never happened")
	}
}

// slowOnce hangs on its first call until the context ends.
type slowOnce struct {
	*fakeLLM
	first *atomic.Bool
}

func (s *slowOnce) Complete(ctx context.Context, p driver.Prompt) (driver.Completion, error) {
	if s.first.CompareAndSwap(false, true) {
		<-ctx.Done()
		return driver.Completion{}, ctx.Err()
	}
	return s.fakeLLM.Complete(ctx, p)
}

func TestPermanentErrorFallback(t *testing.T) {
	docs := synthDocs(7, []int{5})
	bad := docs[0].Chunks[3].Text
	f := newFake()
	f.fail = func(_ int, p driver.Prompt) error {
		if chunkOf(p.Suffix) == bad {
			return errPermanent
		}
		return nil
	}
	cache := &memCache{}
	usage := &usageLog{}
	o := testOptions()
	o.Cache, o.Usage, o.Fallback = cache, usage, offlineFake{}
	got, err := collect(t, context.Background(), mustNew(t, f, o), docs)
	if err != nil {
		t.Fatal(err)
	}
	x := got[0][3]
	if x.Source != "offline" || x.Text != "From doc000.md." || !reflect.DeepEqual(x.Flags, []string{FlagFallback, FlagError}) {
		t.Errorf("failed chunk: %+v", x)
	}
	if cache.len() != 4 {
		t.Errorf("cache holds %d contexts, want 4 (the fallback is not cached)", cache.len())
	}
	nerr := 0
	for _, u := range usage.us {
		if u.Error != "" {
			nerr++
			if u.Retries != 0 {
				t.Errorf("permanent error retried %d times", u.Retries)
			}
		}
	}
	if nerr != 1 {
		t.Errorf("%d failed calls recorded, want 1", nerr)
	}
	// The next run retries only the failed chunk.
	f2 := newFake()
	got2, err := collect(t, context.Background(), mustNew(t, f2, o), docs)
	if err != nil {
		t.Fatal(err)
	}
	if calls := f2.snapshot(); len(calls) != 1 || calls[0].Chunk != bad {
		t.Errorf("second run made %d calls, want 1 for the failed chunk", len(calls))
	}
	if got2[0][3].Source != "fake:model" {
		t.Errorf("second run: %+v", got2[0][3])
	}
}

func TestRetryableErrorsExhausted(t *testing.T) {
	docs := synthDocs(8, []int{2})
	f := newFake()
	f.fail = func(int, driver.Prompt) error { return &providerError{status: 503} }
	o := testOptions()
	o.MaxRetries = 2
	usage := &usageLog{}
	o.Usage = usage
	got, err := collect(t, context.Background(), mustNew(t, f, o), docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range got[0] {
		if x.Source != "none" || !reflect.DeepEqual(x.Flags, []string{FlagFallback, FlagError}) {
			t.Errorf("context: %+v", x)
		}
	}
	if n := len(f.snapshot()); n != 6 {
		t.Errorf("%d calls, want 2 chunks x 3 attempts", n)
	}
	calls := 0
	for _, u := range usage.us {
		if u.Operation == "context" {
			calls++
			if u.Retries != 2 {
				t.Errorf("usage %+v", u)
			}
		}
		if !strings.Contains(u.Error, "503") {
			t.Errorf("usage %+v", u)
		}
	}
	if calls != 2 || len(usage.us) != 6 {
		t.Errorf("%d records, %d calls: want every attempt recorded, 2 calls", len(usage.us), calls)
	}
}

func TestEmptyAndWrongLanguage(t *testing.T) {
	docs := synthDocs(9, []int{4})
	f := newFake()
	f.answer = func(p driver.Prompt) string {
		switch chunkOf(p.Suffix) {
		case docs[0].Chunks[1].Text:
			return "  <context> </context> "
		case docs[0].Chunks[2].Text:
			return "Dieser Abschnitt beschreibt, wie das System die Daten in einer Tabelle speichert und nicht verliert."
		}
		return defaultAnswer(p)
	}
	o := testOptions()
	o.Fallback = offlineFake{}
	cache := &memCache{}
	o.Cache = cache
	got, err := collect(t, context.Background(), mustNew(t, f, o), docs)
	if err != nil {
		t.Fatal(err)
	}
	if x := got[0][1]; x.Source != "offline" || !reflect.DeepEqual(x.Flags, []string{FlagFallback, FlagEmpty}) {
		t.Errorf("empty answer: %+v", x)
	}
	if x := got[0][2]; x.Source != "fake:model" || !reflect.DeepEqual(x.Flags, []string{FlagWrongLanguage}) {
		t.Errorf("German answer to an English document: %+v", x)
	}
	if x := got[0][0]; len(x.Flags) != 0 {
		t.Errorf("clean answer flagged: %+v", x)
	}
	if cache.len() != 3 {
		t.Errorf("cache holds %d, want 3 (all but the empty one)", cache.len())
	}
}

func TestReplicas(t *testing.T) {
	docs := synthDocs(10, []int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	a, b := newFake(), newFake()
	o := testOptions()
	o.Replicas = []driver.LLM{b}
	if _, err := collect(t, context.Background(), mustNew(t, a, o), docs); err != nil {
		t.Fatal(err)
	}
	ca, cb := a.snapshot(), b.snapshot()
	if len(ca) == 0 || len(cb) == 0 || len(ca)+len(cb) != 36 {
		t.Fatalf("replica calls %d + %d, want both used, 36 in all", len(ca), len(cb))
	}
	inA := map[string]bool{}
	for _, c := range ca {
		inA[c.DocID] = true
	}
	for _, c := range cb {
		if inA[c.DocID] {
			t.Errorf("%s went to both replicas", c.DocID)
		}
	}
	// A replica of another model is refused.
	other := newFake()
	other.name = "fake:other"
	o.Replicas = []driver.LLM{other}
	if _, err := New(a, o); err == nil || !strings.Contains(err.Error(), "Replicas[0]") {
		t.Errorf("mismatched replica: err = %v", err)
	}
}

func TestBudget(t *testing.T) {
	docs := workload90()[:10]
	f := newFake()
	f.name = "fake:claude-3-haiku"
	o := testOptions()
	usage := &usageLog{}
	o.Usage = usage
	est := Estimate(docs, f.name, nil, EstimateOptions{Options: o})
	o.MaxCostUSD = est.CostNoCacheUSD / 3
	c := mustNew(t, f, o)
	_, err := collect(t, context.Background(), c, docs)
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
	spent := 0.0
	for _, u := range usage.us {
		spent += u.CostUSD
	}
	n := len(f.snapshot())
	if n == 0 || n >= 82 {
		t.Errorf("%d calls made under a third of the projected cost", n)
	}
	if spent > o.MaxCostUSD {
		t.Errorf("spent $%.6f > MaxCostUSD $%.6f", spent, o.MaxCostUSD)
	}
	t.Logf("budget $%.6f: %d calls, spent $%.6f; err: %v", o.MaxCostUSD, n, spent, err)
	// A model without a price cannot be budgeted.
	o.Usage = nil
	if _, err := New(newFake(), o); err == nil || !strings.Contains(err.Error(), "MaxCostUSD") {
		t.Errorf("budget without price: err = %v", err)
	}
}

func TestContextualizeOrderAndCount(t *testing.T) {
	docs := synthDocs(11, []int{12})
	c := mustNew(t, newFake(), testOptions())
	xs, err := c.Contextualize(context.Background(), docs[0].Doc, docs[0].Chunks)
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 12 {
		t.Fatalf("%d contexts for 12 chunks", len(xs))
	}
	for i, x := range xs {
		words := strings.Fields(docs[0].Chunks[i].Text)
		if !strings.Contains(x.Text, strings.Join(words[:8], " ")) {
			t.Errorf("context %d is not chunk %d's: %q", i, i, x.Text)
		}
	}
	// Empty input.
	xs, err = c.Contextualize(context.Background(), docs[0].Doc, nil)
	if err != nil || len(xs) != 0 {
		t.Errorf("no chunks: %v, %v", xs, err)
	}
}

func TestEmitErrorStops(t *testing.T) {
	docs := synthDocs(12, []int{10, 10})
	c := mustNew(t, newFake(), testOptions())
	boom := errors.New("store full")
	var n atomic.Int32
	err := c.Run(context.Background(), docs, func(int, int, driver.Context) error {
		if n.Add(1) == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the emit error", err)
	}
}

func TestShortPrefixFansOutAtOnce(t *testing.T) {
	docs := synthDocs(13, []int{6})
	f := newFake()
	f.name = "fake:claude-haiku-4-5" // caches prefixes of 4096 tokens or more
	f.ttft, f.latency = 20*time.Millisecond, 30*time.Millisecond
	// No call answers before the 6 have arrived (or 2 s passed, as a
	// scheduler that warms the prefix first would make it wait): with
	// only the 20 ms head start, a loaded machine could start the sixth
	// goroutine after the first answered.
	f.together, f.togetherWait = 6, 2*time.Second
	o := testOptions()
	if _, err := collect(t, context.Background(), mustNew(t, f, o), docs); err != nil {
		t.Fatal(err)
	}
	calls := f.snapshot()
	firstStarted := 0
	for _, c := range calls {
		if firstStarted == 0 || c.StartedSeq < firstStarted {
			firstStarted = c.StartedSeq
		}
	}
	before := 0
	for _, c := range calls {
		if c.StartSeq < firstStarted {
			before++
		}
	}
	if before != 6 {
		t.Errorf("%d of 6 calls started before any answered; a prefix below the cacheable minimum should fan out at once", before)
	}
}
