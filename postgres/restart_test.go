package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/postgres"
)

// A restart of PostgreSQL cuts every pooled connection; the store keeps
// working afterwards without being reopened, and nothing committed before
// the restart is lost.
func TestServerRestart(t *testing.T) {
	s, err := postgres.Open(t.Context(), postgres.NewTestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 5 {
		id := fmt.Sprintf("doc%d", i)
		cs := []situate.StoredChunk{{Chunk: situate.Chunk{Index: 0, End: 4, Text: "text"}}}
		if err := s.PutDocument(t.Context(), situate.DocumentRecord{ID: id, Version: 1}, cs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.EnqueueUpload(t.Context(), driver.Upload{DocID: "up", Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	RestartServer(t)
	docs, err := s.Documents(t.Context())
	if err != nil || len(docs) != 5 {
		t.Fatalf("Documents after the restart: %d, %v; want 5", len(docs), err)
	}
	cs := []situate.StoredChunk{{Chunk: situate.Chunk{Index: 0, End: 5, Text: "after"}}}
	if err := s.PutDocument(t.Context(), situate.DocumentRecord{ID: "after", Version: 1}, cs); err != nil {
		t.Fatalf("PutDocument after the restart: %v", err)
	}
	if j, ok, err := s.ClaimJob(t.Context(), 0); err != nil || !ok || j.DocID != "up" {
		t.Errorf("ClaimJob after the restart: %+v %v %v", j, ok, err)
	}
}

// Writers that keep putting documents while PostgreSQL restarts see errors
// only for the calls in flight; retrying those, every document ends whole at
// its last version, and claims of queued jobs go on with none lost.
func TestServerRestartUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("restart under load: skipped with -short")
	}
	s, err := postgres.Open(t.Context(), postgres.NewTestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const writers, versions = 4, 40
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("w%d", w)
			for v := 1; v <= versions; v++ {
				cs := make([]situate.StoredChunk, 1+v%7)
				for i := range cs {
					text := fmt.Sprintf("v%d chunk %d", v, i)
					cs[i] = situate.StoredChunk{Chunk: situate.Chunk{Index: i, End: len(text), Text: text}}
				}
				for try := 0; ; try++ {
					err := s.PutDocument(t.Context(), situate.DocumentRecord{ID: id, Version: v}, cs)
					if err == nil {
						break
					}
					mu.Lock()
					failed++
					mu.Unlock()
					if try == 50 {
						t.Errorf("put %s v%d: still failing: %v", id, v, err)
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	RestartServer(t)
	wg.Wait()
	t.Logf("%d puts failed during the restart and were retried", failed)
	for w := range writers {
		id := fmt.Sprintf("w%d", w)
		rec, err := s.Document(t.Context(), id)
		if err != nil || rec.Version != versions {
			t.Errorf("%s: version %d, %v; want %d", id, rec.Version, err, versions)
			continue
		}
		cs, err := s.Chunks(t.Context(), id)
		if err != nil || len(cs) != 1+versions%7 {
			t.Errorf("%s: %d chunks, %v", id, len(cs), err)
			continue
		}
		for _, c := range cs {
			if c.Text != fmt.Sprintf("v%d chunk %d", versions, c.Index) {
				t.Errorf("%s: chunk %d holds %q", id, c.Index, c.Text)
			}
		}
	}
}

func RestartServer(t *testing.T) { postgres.RestartTestServer(t) }
