package situate_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/sqlite"
)

// callContextualizer stands in for an LLM contextualizer: one "call" per
// chunk, reported through situate.ObserveCall as package llm does, with
// per-document failures chosen by the test.
type callContextualizer struct {
	name string
	// fail returns the error a document's contextualization ends with.
	fail func(docID string) error
	// fallback gives a document's chunks the fallback context, flagged.
	fallback func(docID string) bool
	// retryErr, when set, makes every call fail once with it (a retried
	// attempt) before succeeding.
	retryErr error
	calls    atomic.Int64
}

func (c *callContextualizer) Name() string { return c.name }

func (c *callContextualizer) Contextualize(ctx context.Context, doc situate.Document, chunks []situate.Chunk) ([]situate.Context, error) {
	if c.fail != nil {
		if err := c.fail(doc.ID); err != nil {
			driver.ObserveCall(ctx, situate.CallEvent{DocID: doc.ID, Kind: driver.CallStart})
			driver.ObserveCall(ctx, situate.CallEvent{DocID: doc.ID, Kind: driver.CallFail, Err: err})
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]situate.Context, len(chunks))
	for i := range chunks {
		c.calls.Add(1)
		if c.retryErr != nil {
			driver.ObserveCall(ctx, situate.CallEvent{DocID: doc.ID, Kind: driver.CallStart})
			driver.ObserveCall(ctx, situate.CallEvent{DocID: doc.ID, Kind: driver.CallRetry, Err: c.retryErr,
				Usage: situate.Usage{InputTokens: 10}})
		}
		driver.ObserveCall(ctx, situate.CallEvent{DocID: doc.ID, Kind: driver.CallStart})
		if c.fallback != nil && c.fallback(doc.ID) {
			driver.ObserveCall(ctx, situate.CallEvent{DocID: doc.ID, Kind: driver.CallFail, Err: errors.New("HTTP 500: boom")})
			out[i] = situate.Context{Text: "fallback of " + doc.Title, Source: "offline", Flags: []string{situate.FlagFallback}}
			continue
		}
		driver.ObserveCall(ctx, situate.CallEvent{DocID: doc.ID, Kind: driver.CallDone,
			Usage: situate.Usage{InputTokens: 100, CacheReadTokens: 50, OutputTokens: 20, CostUSD: 0.001}})
		out[i] = situate.Context{Text: "about " + doc.Title, Source: c.name}
	}
	return out, nil
}

type indexStore struct {
	*sqlite.Store
	dir string
}

func openIndexEngine(t *testing.T, cz situate.Contextualizer) (*situate.Engine, indexStore) {
	t.Helper()
	dir := t.TempDir()
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "situate.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	eng := reopenIndexEngine(t, indexStore{store, dir}, cz)
	return eng, indexStore{store, dir}
}

func reopenIndexEngine(t *testing.T, st indexStore, cz situate.Contextualizer) *situate.Engine {
	t.Helper()
	opts := situate.DefaultOptions()
	opts.ChunkSize, opts.ChunkOverlap = 32, 0
	opts.Contextualizer = cz
	eng, err := situate.Open(context.Background(), st.dir, st.Store, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

func idxDoc(id, text string) situate.Document {
	return situate.Document{ID: id, Title: "Title " + id, Text: text, Format: situate.FormatText, Lang: "en"}
}

// stampSource reports files by id with stamps, asking Feed.Unchanged first
// as a directory walk does; read counts the documents it had to read.
func stampSource(files map[string]string, stamps map[string]string, read *[]string) situate.Source {
	return func(ctx context.Context, f *situate.Feed) error {
		ids := make([]string, 0, len(files))
		for id := range files {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			if f.Unchanged(id, stamps[id]) {
				continue
			}
			*read = append(*read, id)
			if err := f.Add(idxDoc(id, files[id]), stamps[id]); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestIndexRuns(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("Brightwater Logistics reported third quarter revenue growth. ", 12)
	eng, _ := openIndexEngine(t, &callContextualizer{name: "test:llm"})
	files := map[string]string{"a.txt": long, "b.txt": "short text about warehouses", "c.txt": "contracts and invoices"}
	stamps := map[string]string{"a.txt": "1:1", "b.txt": "2:2", "c.txt": "3:3"}

	type want struct {
		added, updated, unchanged, removed, skipped int
		read                                        []string
	}
	steps := []struct {
		name   string
		change func()
		prune  bool
		want   want
	}{
		{"first run adds all", func() {}, false, want{added: 3, read: []string{"a.txt", "b.txt", "c.txt"}}},
		{"rerun reads nothing", func() {}, false, want{unchanged: 3}},
		{"touched file is read, content same", func() { stamps["b.txt"] = "2:3" }, false, want{unchanged: 3, read: []string{"b.txt"}}},
		{"changed file updates", func() { files["c.txt"] = "contracts, invoices and payments"; stamps["c.txt"] = "4:4" }, false,
			want{updated: 1, unchanged: 2, read: []string{"c.txt"}}},
		{"without prune a deleted file stays", func() { delete(files, "a.txt") }, false, want{unchanged: 2}},
		{"prune removes it", func() {}, true, want{unchanged: 2, removed: 1}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.change()
			var read []string
			res, err := eng.Index(ctx, stampSource(files, stamps, &read), situate.IndexOptions{Prune: s.prune})
			if err != nil {
				t.Fatal(err)
			}
			got := want{res.Added, res.Updated, res.Unchanged, res.Removed, len(res.Skipped), read}
			if fmt.Sprint(got) != fmt.Sprint(s.want) {
				t.Errorf("got %+v, want %+v", got, s.want)
			}
			if res.Documents != len(files) {
				t.Errorf("Documents %d, want %d", res.Documents, len(files))
			}
		})
	}
	if _, err := eng.Document("a.txt"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("pruned a.txt: %v", err)
	}
}

func TestIndexSkipAndFailure(t *testing.T) {
	ctx := context.Background()
	eng, _ := openIndexEngine(t, &callContextualizer{name: "test:llm", fail: func(id string) error {
		if id == "bad" {
			return errors.New("model answered nonsense")
		}
		return nil
	}})
	var events []situate.IndexEvent
	src := func(ctx context.Context, f *situate.Feed) error {
		f.Skip(errors.New("skip x.bin: binary"))
		for _, d := range []situate.Document{idxDoc("ok", "fine text"), idxDoc("bad", "bad text"), {ID: "", Text: "no id"}} {
			if err := f.Add(d, ""); err != nil {
				return err
			}
		}
		return nil
	}
	res, err := eng.Index(ctx, src, situate.IndexOptions{Progress: func(ev situate.IndexEvent) { events = append(events, ev) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Failed != 2 || len(res.Skipped) != 1 || res.Documents != 3 {
		t.Fatalf("result %+v", res)
	}
	var failed []string
	for _, f := range res.Failures {
		failed = append(failed, f.DocID)
	}
	slices.Sort(failed)
	if fmt.Sprint(failed) != "[ bad]" {
		t.Errorf("failures %q", failed)
	}
	if !errors.Is(res.Failures[0].Err, situate.ErrInvalid) && !errors.Is(res.Failures[1].Err, situate.ErrInvalid) {
		t.Errorf("empty id failure does not wrap ErrInvalid: %v", res.Failures)
	}
	kinds := map[situate.EventKind]int{}
	for _, ev := range events {
		kinds[ev.Kind]++
	}
	if kinds[situate.EventSkip] != 1 || kinds[situate.EventDocument] != 3 || kinds[situate.EventProviderError] != 1 {
		t.Errorf("events by kind %v", kinds)
	}
}

func TestIndexStopsOnFatalProviderError(t *testing.T) {
	for _, tc := range []struct {
		err error
		fix string
	}{
		{fmt.Errorf("anthropic: HTTP 401: invalid x-api-key: %w", situate.ErrUnauthorized), "API key"},
		{fmt.Errorf("openai: HTTP 404: model gpt-9 not found: %w", situate.ErrModelNotFound), "model name"},
		{fmt.Errorf("llamacpp: 12 calls failed in a row: connection refused: %w", situate.ErrProviderFailing), "running"},
	} {
		t.Run(driver.ErrorKind(tc.err), func(t *testing.T) {
			var started atomic.Int64
			cz := &callContextualizer{name: "test:llm", fail: func(id string) error {
				if id == "d05" {
					return tc.err
				}
				return nil
			}}
			eng, _ := openIndexEngine(t, cz)
			var docs []situate.Document
			for i := range 200 {
				docs = append(docs, idxDoc(fmt.Sprintf("d%02d", i), "text of document "+fmt.Sprint(i)))
			}
			src := func(ctx context.Context, f *situate.Feed) error {
				for _, d := range docs {
					started.Add(1)
					if err := f.Add(d, ""); err != nil {
						return err
					}
				}
				return nil
			}
			res, err := eng.Index(context.Background(), src, situate.IndexOptions{Prune: true})
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.fix) || !strings.Contains(err.Error(), "rerun resumes") {
				t.Errorf("error %q: want it to wrap the provider error, say %q and that a rerun resumes", err, tc.fix)
			}
			if res.Added+res.Failed >= len(docs) {
				t.Errorf("run went on: %d added, %d failed of %d", res.Added, res.Failed, len(docs))
			}
			if res.Removed != 0 || res.Failed != 0 {
				t.Errorf("stopped run pruned %d or counted %d failures", res.Removed, res.Failed)
			}
			// What was prepared is committed, and is what the store holds.
			if got := len(eng.Documents()); got != res.Added {
				t.Errorf("store holds %d documents, result says %d added", got, res.Added)
			}
			if _, err := eng.Document("d05"); err == nil {
				t.Error("the failing document was indexed")
			}
		})
	}
}

func TestIndexCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	cz := &callContextualizer{name: "test:llm", fail: func(id string) error {
		if id == "d10" {
			once.Do(cancel)
		}
		return nil
	}}
	eng, _ := openIndexEngine(t, cz)
	var docs []situate.Document
	for i := range 100 {
		docs = append(docs, idxDoc(fmt.Sprintf("d%02d", i), "text "+fmt.Sprint(i)))
	}
	res, err := eng.Index(ctx, situate.Documents(docs...), situate.IndexOptions{Prune: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if res.Added == len(docs) || res.Failed != 0 {
		t.Errorf("cancelled run: %d added, %d failed", res.Added, res.Failed)
	}
	if got := len(eng.Documents()); got != res.Added {
		t.Errorf("store holds %d documents, result says %d added", got, res.Added)
	}
}

func TestIndexRetriesFallbacks(t *testing.T) {
	ctx := context.Background()
	failing := true
	cz := &callContextualizer{name: "test:llm", fallback: func(id string) bool { return failing && id == "b" }}
	eng, _ := openIndexEngine(t, cz)
	docs := []situate.Document{idxDoc("a", "first document text"), idxDoc("b", "second document text")}
	res, err := eng.Index(ctx, situate.Documents(docs...), situate.IndexOptions{RetryFallbacks: true})
	if err != nil || res.Fallbacks != 1 || res.Progress.Fallbacks != 1 || res.Added != 2 {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	failing = false
	for _, tc := range []struct {
		name    string
		retry   bool
		retried int
	}{
		{"without RetryFallbacks nothing is redone", false, 0},
		{"with RetryFallbacks the fallback document is redone", true, 1},
		{"then nothing is left to retry", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := eng.Index(ctx, situate.Documents(docs...), situate.IndexOptions{RetryFallbacks: tc.retry})
			if err != nil {
				t.Fatal(err)
			}
			if res.Retried != tc.retried || res.Updated != tc.retried || res.Unchanged != 2-tc.retried || res.Fallbacks != 0 {
				t.Errorf("result %+v", res)
			}
		})
	}
	chunks, _ := eng.Chunks(ctx, "b")
	if len(chunks) == 0 || len(chunks[0].Context.Flags) != 0 || chunks[0].Context.Source != "test:llm" {
		t.Errorf("b after retry: %+v", chunks)
	}
}

func TestIndexProgress(t *testing.T) {
	ctx := context.Background()
	cz := &callContextualizer{name: "test:llm", retryErr: fmt.Errorf("HTTP 429: slow down")}
	eng, _ := openIndexEngine(t, cz)
	var docs []situate.Document
	for i := range 20 {
		docs = append(docs, idxDoc(fmt.Sprintf("d%02d", i), strings.Repeat(fmt.Sprintf("Sentence number %d about revenue. ", i), 1+i)))
	}
	var (
		events    []situate.IndexEvent
		sawTotal  bool
		sawETA    bool
		lastCalls int
	)
	res, err := eng.Index(ctx, situate.Documents(docs...), situate.IndexOptions{Progress: func(ev situate.IndexEvent) {
		events = append(events, ev)
		p := ev.Progress
		if p.Calls < lastCalls {
			t.Errorf("calls went back from %d to %d", lastCalls, p.Calls)
		}
		lastCalls = p.Calls
		if p.CallsTotal > 0 {
			sawTotal = true
			if p.CallsTotal < p.Calls+p.InFlight {
				t.Errorf("CallsTotal %d below calls %d + in flight %d", p.CallsTotal, p.Calls, p.InFlight)
			}
		}
		if p.ETA > 0 {
			sawETA = true
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Progress
	calls := int(cz.calls.Load())
	if p.Calls != calls || p.Retries != calls || p.InFlight != 0 || p.CallsTotal != calls {
		t.Errorf("calls %d retries %d in flight %d total %d; contextualizer made %d", p.Calls, p.Retries, p.InFlight, p.CallsTotal, calls)
	}
	if p.InputTokens != int64(110*calls) || p.CacheReadTokens != int64(50*calls) || p.OutputTokens != int64(20*calls) {
		t.Errorf("tokens %d/%d/%d for %d calls", p.InputTokens, p.CacheReadTokens, p.OutputTokens, calls)
	}
	if len(p.Errors) != 1 || p.Errors[0].Kind != "HTTP 429: slow down" || p.Errors[0].Count != calls {
		t.Errorf("errors %+v", p.Errors)
	}
	if p.Docs != 20 || p.DocsTotal != 20 || !p.SourceDone || p.Chunks != res.Chunks {
		t.Errorf("progress %+v, result chunks %d", p, res.Chunks)
	}
	if !sawTotal || !sawETA {
		t.Errorf("never saw a calls total (%v) or an ETA (%v)", sawTotal, sawETA)
	}
	if n := len(events); n < calls*4 {
		t.Errorf("%d events for %d calls", n, calls)
	}
}

func TestMarkStale(t *testing.T) {
	ctx := context.Background()
	cz := &callContextualizer{name: "test:llm"}
	eng, st := openIndexEngine(t, cz)
	docs := []situate.Document{idxDoc("a", "first document text"), idxDoc("b", "second document text")}
	if _, err := eng.Index(ctx, situate.Documents(docs...), situate.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	if !eng.Indexed(docs[0]) || eng.Indexed(idxDoc("a", "other text")) || eng.Indexed(idxDoc("z", "x")) {
		t.Error("Indexed is wrong")
	}
	if len(eng.Stale()) != 0 {
		t.Fatalf("fresh store has stale documents: %v", eng.Stale())
	}
	if err := eng.MarkStale(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := eng.MarkStale(ctx, "nope"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("MarkStale of an unknown document: %v", err)
	}
	if s := eng.Stale(); len(s) != 1 || s[0].ID != "b" || !eng.Indexed(docs[1]) {
		t.Fatalf("stale %v", s)
	}
	// The mark survives a restart, and the document stays searchable.
	eng.Close()
	eng = reopenIndexEngine(t, st, cz)
	if s := eng.Stale(); len(s) != 1 || s[0].ID != "b" {
		t.Fatalf("after reopen stale %v", s)
	}
	hits, err := eng.Search(ctx, situate.Query{Text: "second", K: 5})
	if err != nil || len(hits) == 0 || hits[0].DocID != "b" {
		t.Fatalf("stale document not searchable: %v %v", hits, err)
	}
	before := cz.calls.Load()
	res, err := eng.Index(ctx, situate.Documents(docs...), situate.IndexOptions{})
	// b is re-situated; its contexts come out the same, so it keeps its
	// version and counts as unchanged.
	if err != nil || res.Updated != 0 || res.Unchanged != 2 || cz.calls.Load() == before {
		t.Fatalf("index after MarkStale: %+v %v", res, err)
	}
	if len(eng.Stale()) != 0 {
		t.Errorf("still stale: %v", eng.Stale())
	}
	// Another contextualizer makes every document stale.
	eng.Close()
	eng = reopenIndexEngine(t, st, &callContextualizer{name: "test:other"})
	if len(eng.Stale()) != 2 {
		t.Errorf("other contextualizer: stale %v", eng.Stale())
	}
}

// batchContextualizer writes every chunk's context ahead, as a provider
// batch would, and answers from what it wrote.
type batchContextualizer struct {
	name    string
	got     []string
	written map[string]situate.Context
}

func (b *batchContextualizer) ContextualizeBatch(ctx context.Context, docs []driver.DocumentChunks) (situate.Contextualizer, error) {
	b.written = map[string]situate.Context{}
	b.got = nil
	for _, d := range docs {
		b.got = append(b.got, d.Doc.ID)
		for _, c := range d.Chunks {
			b.written[d.Doc.ID+"#"+fmt.Sprint(c.Index)] = situate.Context{Text: "batch context", Source: b.name}
		}
	}
	return b, nil
}

func (b *batchContextualizer) Name() string { return b.name }

func (b *batchContextualizer) Contextualize(ctx context.Context, doc situate.Document, chunks []situate.Chunk) ([]situate.Context, error) {
	out := make([]situate.Context, len(chunks))
	for i, c := range chunks {
		x, ok := b.written[doc.ID+"#"+fmt.Sprint(c.Index)]
		if !ok {
			return nil, fmt.Errorf("batch: no context for %s chunk %d", doc.ID, c.Index)
		}
		out[i] = x
	}
	return out, nil
}

func TestIndexBatch(t *testing.T) {
	ctx := context.Background()
	eng, _ := openIndexEngine(t, &callContextualizer{name: "test:llm"})
	b := &batchContextualizer{name: "test:llm"}
	docs := []situate.Document{idxDoc("a", "first document text"), idxDoc("b", "second document text")}
	res, err := eng.Index(ctx, situate.Documents(docs...), situate.IndexOptions{Batch: b})
	if err != nil || res.Added != 2 || fmt.Sprint(b.got) != "[a b]" {
		t.Fatalf("first batch run: %+v %v, batch got %v", res, err, b.got)
	}
	docs[1].Text = "second document, changed"
	docs = append(docs, idxDoc("c", "third"))
	res, err = eng.Index(ctx, situate.Documents(docs...), situate.IndexOptions{Batch: b})
	if err != nil || res.Added != 1 || res.Updated != 1 || res.Unchanged != 1 || fmt.Sprint(b.got) != "[b c]" {
		t.Fatalf("second batch run: %+v %v, batch got %v", res, err, b.got)
	}
	chunks, _ := eng.Chunks(ctx, "c")
	if chunks[0].Context.Text != "batch context" {
		t.Errorf("context %q", chunks[0].Context.Text)
	}
	_, err = eng.Index(ctx, situate.Documents(idxDoc("d", "x")), situate.IndexOptions{Batch: &batchContextualizer{name: "other"}})
	if !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("batch contextualizer of another name: %v", err)
	}
}

// A file whose stamp did not change is still read when the engine's
// processing settings changed (here the contextualizer's Fingerprint):
// the stamp fast path must not hide a settings change.
func TestIndexStampAfterSettingsChange(t *testing.T) {
	ctx := context.Background()
	cz := &fingerprinted{callContextualizer: &callContextualizer{name: "test:llm"}, fp: "a"}
	eng, st := openIndexEngine(t, cz)
	files := map[string]string{"a.txt": "short text about warehouses", "b.txt": "contracts and invoices"}
	stamps := map[string]string{"a.txt": "1:1", "b.txt": "2:2"}
	var read []string
	if _, err := eng.Index(ctx, stampSource(files, stamps, &read), situate.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	cz2 := &fingerprinted{callContextualizer: &callContextualizer{name: "test:llm"}, fp: "b"}
	eng = reopenIndexEngine(t, st, cz2)
	read = nil
	res, err := eng.Index(ctx, stampSource(files, stamps, &read), situate.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The contexts came out the same: re-processed, not updated.
	if len(read) != 2 || res.Unchanged != 2 || res.Updated != 0 || cz2.calls.Load() == 0 {
		t.Errorf("after a fingerprint change: read %v, %d updated, %d unchanged, %d calls; want both read and re-situated", read, res.Updated, res.Unchanged, cz2.calls.Load())
	}
}

// After a settings change (the contextualizer's Fingerprint), every
// document is re-processed, but only those whose chunks or contexts came
// out different get a new version; the others are stored under the new
// settings with their version, and a rerun makes no call.
func TestSettingsChangeBumpsOnlyChangedContexts(t *testing.T) {
	ctx := context.Background()
	docs := situate.Documents(idxDoc("a", "short text about warehouses"), idxDoc("b", "contracts and invoices"))
	eng, st := openIndexEngine(t, &fingerprinted{callContextualizer: &callContextualizer{name: "test:llm"}, fp: "a"})
	if _, err := eng.Index(ctx, docs, situate.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	versions := func(eng *situate.Engine) string {
		var out []string
		for _, r := range eng.Documents() {
			out = append(out, fmt.Sprintf("%s:%d", r.ID, r.Version))
		}
		slices.Sort(out)
		return fmt.Sprint(out)
	}
	// Another fingerprint, the same contexts: no version bumped.
	same := &fingerprinted{callContextualizer: &callContextualizer{name: "test:llm"}, fp: "b"}
	eng = reopenIndexEngine(t, st, same)
	res, err := eng.Index(ctx, docs, situate.IndexOptions{})
	if err != nil || same.calls.Load() == 0 || res.Updated != 0 || res.Unchanged != 2 || versions(eng) != "[a:1 b:1]" {
		t.Errorf("same contexts: %+v %v, %d calls, versions %s; want re-processed, unchanged, versions 1", res, err, same.calls.Load(), versions(eng))
	}
	res, err = eng.Index(ctx, docs, situate.IndexOptions{})
	if err != nil || same.calls.Load() != 2 || res.Unchanged != 2 {
		t.Errorf("rerun: %+v %v, %d calls; want no new call", res, err, same.calls.Load())
	}
	eng.Close()
	// Another fingerprint with other contexts for b only.
	other := &fingerprinted{callContextualizer: &callContextualizer{name: "test:llm",
		fallback: func(id string) bool { return id == "b" }}, fp: "c"}
	eng = reopenIndexEngine(t, st, other)
	res, err = eng.Index(ctx, docs, situate.IndexOptions{})
	if err != nil || res.Updated != 1 || res.Unchanged != 1 || versions(eng) != "[a:1 b:2]" {
		t.Errorf("b's contexts changed: %+v %v, versions %s; want b updated to version 2, a kept", res, err, versions(eng))
	}
}

type fingerprinted struct {
	*callContextualizer
	fp string
}

func (f *fingerprinted) Fingerprint() string { return f.fp }
