package situate_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// runQueued claims and runs every queued job through r, as a worker's
// Run loop does but without its polling, and returns the jobs as they
// ended.
func runQueued(t *testing.T, r *situate.JobRunner) []driver.Job {
	t.Helper()
	ctx := context.Background()
	var ended []driver.Job
	r.Finished = func(j driver.Job, _ time.Duration) { ended = append(ended, j) }
	for range 100 {
		j, ok, err := r.Jobs.ClaimJob(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return ended
		}
		r.RunJob(ctx, j)
	}
	t.Fatal("jobs keep coming after 100 runs")
	return nil
}

func jobStates(jobs []driver.Job) map[string]string {
	out := map[string]string{}
	for _, j := range jobs {
		out[j.DocID] = j.State + " " + j.Change
	}
	return out
}

// TestQueueThenRunJobs: Queue stores each new or changed document as an
// upload with a job and indexes none; JobRunners index them; a second
// Queue of the same source queues nothing the store holds (a document
// without a format included); a change of
// attributes alone holds at once with no job; Prune removes a document
// and its upload; a document with its own chunks, or without an id,
// fails alone.
func TestQueueThenRunJobs(t *testing.T) {
	ctx := context.Background()
	eng, store := openTestEngine(t, t.TempDir(), situate.DefaultOptions())
	docs := []situate.Document{doc("a", "The ferry crosses the sound at dawn."),
		doc("b", "Stone bridges span the river."), doc("c", "The bakery sells rye bread.")}
	res, err := eng.Queue(ctx, situate.Documents(docs...), store, situate.QueueOptions{})
	if err != nil || res.Added != 3 {
		t.Fatalf("first Queue: %+v, %v; want 3 added", res, err)
	}
	if ids := searchIDs(t, eng, situate.Query{Text: "ferry bridges bakery", K: 10}); len(ids) != 0 {
		t.Errorf("Queue indexed %v; the runners index", ids)
	}
	if c, _ := store.JobCounts(ctx); c[situate.JobQueued] != 3 {
		t.Errorf("job counts after Queue: %v, want 3 queued", c)
	}
	// The same source again, before any runner: no second job each.
	if _, err := eng.Queue(ctx, situate.Documents(docs...), store, situate.QueueOptions{}); err != nil {
		t.Fatal(err)
	}
	if c, _ := store.JobCounts(ctx); c[situate.JobQueued] != 3 {
		t.Errorf("job counts after queueing the same source twice: %v, want 3 queued", c)
	}
	ended := runQueued(t, &situate.JobRunner{Engine: eng, Jobs: store})
	if got := jobStates(ended); len(got) != 3 || got["a"] != "done added" || got["b"] != "done added" || got["c"] != "done added" {
		t.Errorf("jobs ended %v, want a, b, c done added", got)
	}
	if ids := searchIDs(t, eng, situate.Query{Text: "ferry bridges bakery", K: 10}); !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Errorf("after the runners: %v", ids)
	}

	// The source again after the runners: the store holds every
	// document's content (read as a runner reads an upload: a document
	// without a format is text), so nothing is queued.
	res, err = eng.Queue(ctx, situate.Documents(docs...), store, situate.QueueOptions{})
	if err != nil || res.Unchanged != 3 {
		t.Errorf("Queue of the indexed source: %+v, %v; want 3 unchanged", res, err)
	}
	if c, _ := store.JobCounts(ctx); c[situate.JobQueued] != 0 {
		t.Errorf("Queue of the indexed source queued jobs: %v", c)
	}

	// b only changes access, c is gone: Prune.
	b := docs[1]
	b.Access = []string{"staff"}
	res, err = eng.Queue(ctx, situate.Documents(docs[0], b), store, situate.QueueOptions{Prune: true})
	if err != nil || res.Unchanged != 1 || res.Updated != 1 || res.Removed != 1 {
		t.Fatalf("Queue of a, b with new access, without c: %+v, %v; want 1 unchanged, 1 updated, 1 removed", res, err)
	}
	if c, _ := store.JobCounts(ctx); c[situate.JobQueued] != 0 {
		t.Errorf("an access change queued a job: %v", c)
	}
	if ids := searchIDs(t, eng, situate.Query{Text: "bridges", K: 10, Filter: situate.Filter{Principals: []string{"visitor"}}}); len(ids) != 0 {
		t.Errorf("b's new access list does not hold at once: a visitor finds %v", ids)
	}
	if _, err := store.Upload(ctx, "c"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("c's upload after Prune: %v, want ErrNotFound", err)
	}
	if _, err := eng.Document("c"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("c after Prune: %v, want ErrNotFound", err)
	}

	own := func(ctx context.Context, f *situate.Feed) error {
		if err := f.AddChunks(doc("own", "x"), []situate.Chunk{{Text: "x"}}, nil); err != nil {
			return err
		}
		if err := f.Add(situate.Document{Text: "no id"}, ""); err != nil {
			return err
		}
		return f.Add(doc("d", "Lanterns light the quay."), "")
	}
	res, err = eng.Queue(ctx, own, store, situate.QueueOptions{})
	if err != nil || res.Added != 1 || res.Failed != 2 {
		t.Fatalf("Queue of a pre-chunked document, one without id and d: %+v, %v; want d added, 2 failed", res, err)
	}
	for _, f := range res.Failures {
		// A DocumentError is an error naming the document and wrapping
		// the cause.
		var err error = f
		if !errors.Is(err, situate.ErrInvalid) || f.DocID != "" && !strings.HasPrefix(err.Error(), f.DocID+": ") {
			t.Errorf("failure %q: %v, want ErrInvalid, the document named", f.DocID, err)
		}
	}

	if _, err := eng.Queue(ctx, situate.Documents(), nil, situate.QueueOptions{}); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("Queue without a job store: %v, want ErrInvalid", err)
	}
}

// failingContextualizer fails every call with err.
type failingContextualizer struct{ err error }

func (f failingContextualizer) Name() string { return "test:failing" }
func (f failingContextualizer) Contextualize(context.Context, situate.Document, []situate.Chunk) ([]situate.Context, error) {
	return nil, f.err
}

// TestRunJobOutcomes: how a job ends when its upload is deleted while it
// runs (done, "deleted", nothing indexed), when its upload cannot be parsed (failed, the
// error naming the document), when a newer upload replaces it while it
// runs (done, "superseded": the newer job indexes), when the store holds
// its content (done, "unchanged"), and when its contextualizer fails
// (queued again with the error, failed after MaxAttempts).
func TestRunJobOutcomes(t *testing.T) {
	ctx := context.Background()
	eng, store := openTestEngine(t, t.TempDir(), situate.DefaultOptions())
	enqueue := func(id, text string) {
		t.Helper()
		if _, err := store.EnqueueUpload(ctx, driver.Upload{DocID: id, Title: id, Lang: "en", Data: []byte(text)}); err != nil {
			t.Fatal(err)
		}
	}

	enqueue("gone", "A document deleted while its job runs.")
	enqueue("bad", "unparsable")
	enqueue("raced", "The first version.")
	parse := func(ctx context.Context, u driver.Upload) (situate.Document, error) {
		if u.DocID == "bad" {
			return situate.Document{}, errors.New("not a PDF")
		}
		return situate.Document{Text: string(u.Data)}, nil
	}
	raced := false
	r := &situate.JobRunner{Engine: eng, Jobs: store, Parse: parse,
		// While the jobs run, before they commit: a newer upload of
		// raced lands, and gone is deleted (a DELETE of the document).
		Lock: func(id string) func() {
			switch {
			case id == "raced" && !raced:
				raced = true
				time.Sleep(time.Millisecond) // a later UpdatedAt on coarse clocks
				enqueue("raced", "The second version.")
			case id == "gone":
				if err := store.DeleteUpload(ctx, "gone"); err != nil {
					t.Fatal(err)
				}
			}
			return func() {}
		}}
	got := map[string]driver.Job{}
	for _, j := range runQueued(t, r) {
		if _, seen := got[j.DocID]; !seen {
			got[j.DocID] = j
		}
	}
	if j := got["bad"]; j.State != situate.JobFailed || !strings.Contains(j.Error, "parse bad") || !strings.Contains(j.Error, "not a PDF") {
		t.Errorf("the unparsable upload's job: %s %q, want failed naming it and the cause", j.State, j.Error)
	}
	if j := got["raced"]; j.State != situate.JobDone || j.Change != "superseded" {
		t.Errorf("the replaced upload's job: %s %q, want done superseded", j.State, j.Change)
	}
	if rec, err := eng.Document("raced"); err != nil || !strings.Contains(searchText(t, eng, "second version"), "second") {
		t.Errorf("the newer upload was not indexed by its own job: %+v %v", rec, err)
	}
	if j := got["gone"]; j.State != situate.JobDone || j.Change != "deleted" {
		t.Errorf("the job of the upload deleted while it ran: %s %q, want done deleted", j.State, j.Change)
	}
	if _, err := eng.Document("gone"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("the upload deleted while its job ran was indexed: %v", err)
	}

	// The stored content again: unchanged, nothing called.
	enqueue("raced", "The second version.")
	r.Lock = nil
	if ended := runQueued(t, r); len(ended) != 1 || ended[0].Change != situate.Unchanged.String() {
		t.Errorf("a job for the stored content: %+v, want done unchanged", ended)
	}

	// A contextualizer that fails: retried, then failed.
	opts := situate.DefaultOptions()
	opts.Contextualizer = failingContextualizer{err: errors.New("model down")}
	feng, fstore := openTestEngine(t, t.TempDir(), opts)
	if _, err := fstore.EnqueueUpload(ctx, driver.Upload{DocID: "x", Lang: "en", Data: []byte("Some text to contextualize.")}); err != nil {
		t.Fatal(err)
	}
	fr := &situate.JobRunner{Engine: feng, Jobs: fstore, MaxAttempts: 2}
	ended := runQueued(t, fr)
	if len(ended) != 1 || ended[0].State != situate.JobFailed || !strings.Contains(ended[0].Error, "model down") || ended[0].Attempts != 2 {
		t.Errorf("a job whose contextualizer fails: %+v, want failed after 2 attempts with the cause", ended)
	}
}

func searchText(t *testing.T, e *situate.Engine, q string) string {
	t.Helper()
	var b strings.Builder
	for _, h := range search(t, e, situate.Query{Text: q, K: 5}) {
		b.WriteString(h.Text + "\n")
	}
	return b.String()
}
