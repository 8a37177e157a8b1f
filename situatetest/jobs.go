package situatetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// TestJobStore is the conformance suite of a situate.JobStore: uploads kept
// and deleted, one queued job per document, claims oldest first under
// leases that a dead worker's job outlives, updates, requeue and counts.
// open returns a new, empty store.
func TestJobStore(t *testing.T, open func(t *testing.T) driver.JobStore) {
	ctx := context.Background()
	s := open(t)
	data := []byte("# Title\n\nSome text that compresses: " + string(make([]byte, 1000)))
	j1, err := s.EnqueueUpload(ctx, driver.Upload{DocID: "a.md", Name: "a.md", Title: "A", Metadata: map[string]string{"k": "v"}, Access: []string{"x"}, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	up, err := s.Upload(ctx, "a.md")
	if err != nil || string(up.Data) != string(data) || up.Title != "A" || up.Metadata["k"] != "v" || up.Access[0] != "x" || up.UpdatedAt.IsZero() {
		t.Fatalf("upload round trip: %+v %v", up, err)
	}
	j2, _ := s.EnqueueUpload(ctx, driver.Upload{DocID: "b.md", Data: []byte("b")})
	if _, ok, err := s.EnqueueJob(ctx, "a.md", nil); ok || err != nil {
		t.Errorf("EnqueueJob beside a queued job: %v %v", ok, err)
	}
	// Claims go oldest first; a claimed job is not claimed again while its
	// lease runs, and is once it ran out (its worker died).
	c1, ok, err := s.ClaimJob(ctx, time.Hour)
	if !ok || err != nil || c1.ID != j1.ID || c1.State != situate.JobRunning || c1.Attempts != 1 || c1.Access[0] != "x" {
		t.Fatalf("claim 1: %+v %v %v", c1, ok, err)
	}
	// The short lease leaves a loaded machine time for the next claim.
	c2, ok, _ := s.ClaimJob(ctx, 500*time.Millisecond)
	if !ok || c2.ID != j2.ID {
		t.Fatalf("claim 2: %+v", c2)
	}
	if _, ok, _ := s.ClaimJob(ctx, time.Hour); ok {
		t.Fatal("claimed a job whose lease runs")
	}
	time.Sleep(600 * time.Millisecond)
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

// TestKeyStore is the conformance suite of a situate.KeyStore: keys
// created once, read back whole, listed and revoked. open returns a new,
// empty store.
func TestKeyStore(t *testing.T, open func(t *testing.T) driver.KeyStore) {
	ctx := context.Background()
	s := open(t)
	k := driver.APIKey{ID: "0123456789abcdef", Tenant: "acme", Principals: []string{"a", "b"}, Write: true, Hash: []byte{1, 2, 3}}
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
