package situate_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/offline"
)

// countingContextualizer is the offline contextualizer that counts its
// calls and, when gate is set, waits on it before answering (nil error: the
// contexts; an error: fails).
type countingContextualizer struct {
	driver.Contextualizer
	calls   atomic.Int64
	entered chan struct{}
	gate    chan error
}

func newCounting() *countingContextualizer {
	return &countingContextualizer{Contextualizer: offline.New(offline.DefaultOptions())}
}

func (c *countingContextualizer) Contextualize(ctx context.Context, doc driver.Document, chunks []driver.Chunk) ([]driver.Context, error) {
	c.calls.Add(1)
	if c.gate != nil {
		c.entered <- struct{}{}
		if err := <-c.gate; err != nil {
			return nil, err
		}
	}
	return c.Contextualizer.Contextualize(ctx, doc, chunks)
}

func hitsOf(t *testing.T, eng *situate.Engine, query string, principals []string) []string {
	t.Helper()
	hits, err := eng.Search(context.Background(), situate.Query{Text: query, K: 10, Filter: situate.Filter{Principals: principals}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		if !slices.Contains(ids, h.DocID) {
			ids = append(ids, h.DocID)
		}
	}
	return ids
}

// TestAttributesOnlyChange: a Put whose text is stored and whose title,
// metadata or access changed, and a Patch, apply at once with no call to
// the contextualizer; the next search and read see them.
func TestAttributesOnlyChange(t *testing.T) {
	ctx := context.Background()
	cz := newCounting()
	opts := situate.DefaultOptions()
	opts.Contextualizer = cz
	eng := newTestStore(t).open(opts)
	d := doc("plan", "The lakeside office opens in spring.")
	if ch, err := eng.Put(ctx, d); err != nil || ch != situate.Added {
		t.Fatalf("put: %v %v", ch, err)
	}
	calls := cz.calls.Load()

	d.Access = []string{"hr"}
	if ch, err := eng.Put(ctx, d); err != nil || ch != situate.Updated {
		t.Fatalf("access-only put: %v %v, want updated", ch, err)
	}
	if got := hitsOf(t, eng, "lakeside", []string{"alice"}); len(got) != 0 {
		t.Errorf("alice finds %v after the access change", got)
	}
	if got := hitsOf(t, eng, "lakeside", []string{"hr"}); !slices.Equal(got, []string{"plan"}) {
		t.Errorf("hr finds %v, want plan", got)
	}
	if ch, err := eng.Put(ctx, d); err != nil || ch != situate.Unchanged {
		t.Errorf("the same put again: %v %v, want unchanged", ch, err)
	}

	title, meta := "Lakeside plan", map[string]string{"team": "hr"}
	rec, err := eng.Patch(ctx, "plan", situate.Patch{Title: &title, Metadata: &meta})
	if err != nil || rec.Title != title || rec.Metadata["team"] != "hr" || !slices.Equal(rec.Access, []string{"hr"}) || rec.Version != 1 {
		t.Fatalf("patch: %+v %v", rec, err)
	}
	if got, err := eng.Document("plan"); err != nil || got.Title != title {
		t.Errorf("read after patch: %+v %v", got, err)
	}
	everyone := []string{}
	if _, err := eng.Patch(ctx, "plan", situate.Patch{Access: &everyone}); err != nil {
		t.Fatal(err)
	}
	if got := hitsOf(t, eng, "lakeside", []string{"alice"}); !slices.Equal(got, []string{"plan"}) {
		t.Errorf("alice finds %v once everyone may read it", got)
	}
	if n := cz.calls.Load(); n != calls {
		t.Errorf("%d contextualizer calls for attribute changes, want none", n-calls)
	}
	if _, err := eng.Patch(ctx, "none", situate.Patch{Title: &title}); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("patch of an unknown document: %v", err)
	}
}

// TestNewAccessHoldsWhileTextIsContextualized: when text and access change
// together, the new access holds for the stored version from the moment
// Put starts, and stays when contextualizing the new text fails.
func TestNewAccessHoldsWhileTextIsContextualized(t *testing.T) {
	ctx := context.Background()
	cz := newCounting()
	opts := situate.DefaultOptions()
	opts.Contextualizer = cz
	eng := newTestStore(t).open(opts)
	if _, err := eng.Put(ctx, doc("plan", "The lakeside office opens in spring.")); err != nil {
		t.Fatal(err)
	}
	cz.entered, cz.gate = make(chan struct{}), make(chan error)
	var wg sync.WaitGroup
	var putErr error
	wg.Go(func() {
		d := doc("plan", "The lakeside office opens in autumn.")
		d.Access = []string{"hr"}
		_, putErr = eng.Put(ctx, d)
	})
	<-cz.entered // the new text is being contextualized
	if got := hitsOf(t, eng, "lakeside", []string{"alice"}); len(got) != 0 {
		t.Errorf("alice finds %v while the new text is contextualized", got)
	}
	if recs, err := eng.DocumentsMatching(situate.Filter{Principals: []string{"alice"}}); err != nil || len(recs) != 0 {
		t.Errorf("alice's documents: %v %v", recs, err)
	}
	cz.gate <- errors.New("model down")
	wg.Wait()
	if putErr == nil {
		t.Fatal("the put succeeded with a failing contextualizer")
	}
	rec, err := eng.Document("plan")
	if err != nil || !slices.Equal(rec.Access, []string{"hr"}) {
		t.Errorf("after the failed put: %+v %v, want access [hr]", rec, err)
	}
	chunks, err := eng.Chunks(ctx, "plan")
	if err != nil || len(chunks) == 0 || !strings.Contains(chunks[0].Text, "spring") {
		t.Errorf("the stored text changed: %+v %v", chunks, err)
	}
	if got := hitsOf(t, eng, "lakeside", []string{"alice"}); len(got) != 0 {
		t.Errorf("alice finds %v after the failed put", got)
	}
}

// TestRecordHashWrittenBefore: a record whose Hash an earlier situate wrote
// (Document.Hash over content and attributes) is still unchanged for the
// same document, and an access change to it costs no contextualizer call.
func TestRecordHashWrittenBefore(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	cz := newCounting()
	opts := situate.DefaultOptions()
	opts.Contextualizer = cz
	eng := ts.open(opts)
	d := doc("plan", "The lakeside office opens in spring.")
	if _, err := eng.Put(ctx, d); err != nil {
		t.Fatal(err)
	}
	rec, err := ts.store.Document(ctx, "plan")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Hash, "+") {
		t.Fatalf("hash %q: want content and attributes apart", rec.Hash)
	}
	chunks, err := ts.store.Chunks(ctx, "plan")
	if err != nil {
		t.Fatal(err)
	}
	rec.Hash = d.Hash() + "/" + eng.ProcessingFingerprint() // as written before
	if err := ts.store.PutDocument(ctx, rec, chunks); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	eng = ts.open(opts)
	calls := cz.calls.Load()
	if ch, err := eng.Put(ctx, d); err != nil || ch != situate.Unchanged {
		t.Errorf("the same document over an earlier hash: %v %v, want unchanged", ch, err)
	}
	d.Access = []string{"hr"}
	if ch, err := eng.Put(ctx, d); err != nil || ch != situate.Updated {
		t.Errorf("an access change over an earlier hash: %v %v, want updated", ch, err)
	}
	if n := cz.calls.Load(); n != calls {
		t.Errorf("%d contextualizer calls, want none", n-calls)
	}
	if got := hitsOf(t, eng, "lakeside", []string{"alice"}); len(got) != 0 {
		t.Errorf("alice finds %v", got)
	}
	if ch, err := eng.Put(ctx, d); err != nil || ch != situate.Unchanged {
		t.Errorf("the changed document again: %v %v, want unchanged", ch, err)
	}
}
