package situate_test

import (
	"context"
	"errors"
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

// failingContextualizer fails every call with err.
type failingContextualizer struct{ err error }

func (f failingContextualizer) Name() string { return "test:failing" }
func (f failingContextualizer) Contextualize(context.Context, situate.Document, []situate.Chunk) ([]situate.Context, error) {
	return nil, f.err
}

// TestRunJobOutcomes: how a job ends when its upload is gone before it
// runs (done, "deleted"), when its upload cannot be parsed (failed, the
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

	enqueue("gone", "A document deleted before its job ran.")
	if err := store.DeleteUpload(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
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
		// A newer upload lands while raced's first job runs.
		Lock: func(id string) func() {
			if id == "raced" && !raced {
				raced = true
				time.Sleep(time.Millisecond) // a later UpdatedAt on coarse clocks
				enqueue("raced", "The second version.")
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
	if _, ok := got["gone"]; ok && (got["gone"].State != situate.JobDone || got["gone"].Change != "deleted") {
		t.Errorf("the deleted upload's job: %+v, want done deleted", got["gone"])
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
