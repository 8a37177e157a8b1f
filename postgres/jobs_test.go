package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/postgres"
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

// TestJobQueue and TestKeys are the SQLite store's queue and key tests, run
// on PostgreSQL.
func TestJobQueue(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	data := []byte("# Title\n\nSome text that compresses: " + string(make([]byte, 1000)))
	j1, err := s.EnqueueUpload(ctx, situate.Upload{DocID: "a.md", Name: "a.md", Title: "A", Metadata: map[string]string{"k": "v"}, Access: []string{"x"}, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	up, err := s.Upload(ctx, "a.md")
	if err != nil || string(up.Data) != string(data) || up.Title != "A" || up.Metadata["k"] != "v" || up.Access[0] != "x" || up.UpdatedAt.IsZero() {
		t.Fatalf("upload round trip: %+v %v", up, err)
	}
	j2, _ := s.EnqueueUpload(ctx, situate.Upload{DocID: "b.md", Data: []byte("b")})
	if _, ok, err := s.EnqueueJob(ctx, "a.md", nil); ok || err != nil {
		t.Errorf("EnqueueJob beside a queued job: %v %v", ok, err)
	}
	// Claims go oldest first; a claimed job is not claimed again while its
	// lease runs, and is once it ran out (its worker died).
	c1, ok, err := s.ClaimJob(ctx, time.Hour)
	if !ok || err != nil || c1.ID != j1.ID || c1.State != situate.JobRunning || c1.Attempts != 1 || c1.Access[0] != "x" {
		t.Fatalf("claim 1: %+v %v %v", c1, ok, err)
	}
	c2, ok, _ := s.ClaimJob(ctx, 10*time.Millisecond)
	if !ok || c2.ID != j2.ID {
		t.Fatalf("claim 2: %+v", c2)
	}
	if _, ok, _ := s.ClaimJob(ctx, time.Hour); ok {
		t.Fatal("claimed a job whose lease runs")
	}
	time.Sleep(20 * time.Millisecond)
	c2b, ok, _ := s.ClaimJob(ctx, time.Hour)
	if !ok || c2b.ID != j2.ID || c2b.Attempts != 2 {
		t.Fatalf("expired lease not reclaimed: %+v %v", c2b, ok)
	}
	c1.State, c1.Change, c1.Chunks, c1.ChunksDone, c1.Calls, c1.Tokens, c1.FinishedAt = situate.JobDone, "added", 3, 3, 4, 500, time.Now()
	if err := s.UpdateJob(ctx, c1, time.Hour); err != nil {
		t.Fatal(err)
	}
	got, err := s.Job(ctx, j1.ID)
	if err != nil || got.State != situate.JobDone || got.Calls != 4 || got.Tokens != 500 || got.Change != "added" || got.FinishedAt.IsZero() {
		t.Fatalf("job after update: %+v %v", got, err)
	}
	if n, err := s.RequeueJobs(ctx); n != 1 || err != nil {
		t.Fatalf("requeue: %d %v", n, err)
	}
	counts, _ := s.JobCounts(ctx)
	if counts[situate.JobQueued] != 1 || counts[situate.JobDone] != 1 {
		t.Errorf("counts %v", counts)
	}
	if _, err := s.Job(ctx, 999); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("unknown job: %v", err)
	}
	if err := s.DeleteUpload(ctx, "a.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Upload(ctx, "a.md"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("deleted upload: %v", err)
	}
	if _, ok, err := s.EnqueueJob(ctx, "a.md", nil); !ok || err != nil {
		t.Errorf("EnqueueJob with none queued: %v %v", ok, err)
	}
}

func TestKeys(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	k := situate.APIKey{ID: "0123456789abcdef", Tenant: "acme", Principals: []string{"a", "b"}, Write: true, Hash: []byte{1, 2, 3}}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateKey(ctx, k); err == nil {
		t.Error("duplicate key id accepted")
	}
	got, err := s.Key(ctx, k.ID)
	if err != nil || got.Tenant != "acme" || len(got.Principals) != 2 || !got.Write || got.Admin || string(got.Hash) != string(k.Hash) || !got.RevokedAt.IsZero() {
		t.Fatalf("key: %+v %v", got, err)
	}
	if err := s.RevokeKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Key(ctx, k.ID); got.RevokedAt.IsZero() {
		t.Error("revoked key has no RevokedAt")
	}
	if err := s.RevokeKey(ctx, "nope"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("revoke unknown: %v", err)
	}
	if keys, _ := s.Keys(ctx); len(keys) != 1 {
		t.Errorf("keys: %d", len(keys))
	}
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
		if _, err := ss[i%stores].EnqueueUpload(ctx, situate.Upload{DocID: fmt.Sprintf("d%03d", i), Data: []byte("x")}); err != nil {
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
