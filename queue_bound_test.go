package situate_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/sqlite"
)

// slowJobs is the store's job queue with EnqueueUpload held until release
// is closed: workers that cannot keep up with the source.
type slowJobs struct {
	*sqlite.Store
	release chan struct{}
}

func (j slowJobs) EnqueueUpload(ctx context.Context, u driver.Upload) (driver.Job, error) {
	select {
	case <-j.release:
	case <-ctx.Done():
		return driver.Job{}, ctx.Err()
	}
	return j.Store.EnqueueUpload(ctx, u)
}

// TestQueueSourceWaitsForTheWorkers: Queue reads its source on its own
// goroutine, and while the job store lags the source must stop reading once
// the run's queue holds its budget of text (16 MiB), as Index's does: it
// used to read the whole corpus into memory ahead of the workers. Every
// document is queued once the store catches up.
func TestQueueSourceWaitsForTheWorkers(t *testing.T) {
	ctx := context.Background()
	eng, store := openTestEngine(t, t.TempDir(), situate.DefaultOptions())
	jobs := slowJobs{Store: store, release: make(chan struct{})}
	const docs, size = 64, 1 << 20 // 64 MiB in all
	var fed atomic.Int64
	src := func(ctx context.Context, f *situate.Feed) error {
		for i := range docs {
			text := fmt.Sprintf("Document %d. ", i) + strings.Repeat("word ", size/5)
			if err := f.Add(situate.Document{ID: fmt.Sprintf("doc%02d.md", i), Text: text, Format: situate.FormatText, Lang: "en"}, ""); err != nil {
				return err
			}
			fed.Add(1)
		}
		return nil
	}
	type result struct {
		res situate.IndexResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := eng.Queue(ctx, src, jobs, situate.QueueOptions{Parallel: 2})
		done <- result{res, err}
	}()
	// A source that is not held back reads all 64 documents at once.
	time.Sleep(500 * time.Millisecond)
	// The queue's budget, plus one document per worker and the one
	// waiting for space.
	if n, most := fed.Load(), int64(16+2+1); n > most {
		t.Errorf("the source read %d documents (%d MiB) ahead of workers that stored none; want at most %d", n, n, most)
	}
	close(jobs.release)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.Added != docs {
		t.Errorf("queued %d documents, want %d", r.res.Added, docs)
	}
}

// TestQueueCancelledWhileTheSourceWaits: cancelling a Queue run whose
// source waits for room in the queue ends the run, with an error saying it
// was interrupted, and the source too.
func TestQueueCancelledWhileTheSourceWaits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	eng, store := openTestEngine(t, t.TempDir(), situate.DefaultOptions())
	jobs := slowJobs{Store: store, release: make(chan struct{})}
	var fed atomic.Int64
	srcDone := make(chan struct{})
	src := func(ctx context.Context, f *situate.Feed) error {
		defer close(srcDone)
		for i := range 64 {
			if err := f.Add(situate.Document{ID: fmt.Sprintf("doc%02d.md", i), Text: strings.Repeat("word ", 1<<18), Format: situate.FormatText, Lang: "en"}, ""); err != nil {
				return err
			}
			fed.Add(1)
		}
		return nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := eng.Queue(ctx, src, jobs, situate.QueueOptions{Parallel: 2})
		done <- err
	}()
	// Wait until the source waits: it has read a few and then nothing
	// for 200 ms.
	for last := int64(-1); ; {
		time.Sleep(200 * time.Millisecond)
		n := fed.Load()
		if n >= 8 && n == last {
			break
		}
		last = n
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "queue interrupted") {
			t.Errorf("Queue after cancel: %v, want 'queue interrupted'", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Queue did not return within 30 s of its cancellation")
	}
	select {
	case <-srcDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the source still waits 30 s after the run was cancelled")
	}
}
