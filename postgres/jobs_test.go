package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/postgres"
	"github.com/situate/situate/situatetest"
)

func openTemp(t *testing.T) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), postgres.NewTestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The queue and the keys pass the same suites as every JobStore and KeyStore.
func TestJobQueue(t *testing.T) {
	situatetest.TestJobStore(t, func(t *testing.T) driver.JobStore { return openTemp(t) })
}

func TestKeys(t *testing.T) {
	situatetest.TestKeyStore(t, func(t *testing.T) driver.KeyStore { return openTemp(t) })
}

// Workers in several processes (here: several stores on one database, each
// with its own connection pool) claim concurrently: every job is claimed
// exactly once, none is lost.
func TestClaimAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	url := postgres.NewTestDatabase(t)
	const stores, workers, jobs = 3, 4, 200
	var ss []*postgres.Store
	for range stores {
		s, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ss = append(ss, s)
	}
	for i := range jobs {
		if _, err := ss[i%stores].EnqueueUpload(ctx, driver.Upload{DocID: fmt.Sprintf("d%03d", i), Data: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu      sync.Mutex
		claimed = map[int64]int{}
		wg      sync.WaitGroup
	)
	for w := range stores * workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := ss[w%stores]
			for {
				j, ok, err := s.ClaimJob(ctx, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				mu.Lock()
				claimed[j.ID]++
				mu.Unlock()
				j.State, j.FinishedAt = situate.JobDone, time.Now()
				if err := s.UpdateJob(ctx, j, 0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(claimed) != jobs {
		t.Errorf("%d jobs claimed, want %d", len(claimed), jobs)
	}
	for id, n := range claimed {
		if n != 1 {
			t.Errorf("job %d claimed %d times", id, n)
		}
	}
	counts, err := ss[0].JobCounts(ctx)
	if err != nil || counts[situate.JobDone] != jobs || len(counts) != 1 {
		t.Errorf("counts %v %v, want %d done", counts, err, jobs)
	}
}

// Concurrent EnqueueJob calls for one document from several processes queue
// one job.
func TestEnqueueJobOnceAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	url := postgres.NewTestDatabase(t)
	var ss []*postgres.Store
	for range 4 {
		s, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ss = append(ss, s)
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		queued int
	)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ok, err := ss[i%len(ss)].EnqueueJob(ctx, "doc", nil)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				queued++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if queued != 1 {
		t.Errorf("%d jobs queued for one document, want 1", queued)
	}
}
