package weaviate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/internal/weaviatetest"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/weaviate"
)

// shardHolders returns the nodes holding the tenant's shard of class, with
// the object count each reports.
func shardHolders(t *testing.T, url, class, tenant string) map[string]int {
	t.Helper()
	resp, err := http.Get(url + "/v1/nodes?output=verbose")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var nodes struct {
		Nodes []struct {
			Name   string `json:"name"`
			Shards []struct {
				Class       string `json:"class"`
				Name        string `json:"name"`
				ObjectCount int    `json:"objectCount"`
			} `json:"shards"`
		} `json:"nodes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&nodes); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, n := range nodes.Nodes {
		for _, s := range n.Shards {
			if s.Class == class && s.Name == tenant {
				out[n.Name] = s.ObjectCount
			}
		}
	}
	return out
}

func faultDoc(i, version int) situate.Document {
	return situate.Document{ID: fmt.Sprintf("doc-%04d.md", i), Lang: "en", Format: situate.FormatMarkdown,
		Text: fmt.Sprintf("# Report %d\n\nShip %d of harbor %d carried cargo K%05d in version v%d. The crane lifted container %d.",
			i, i, i%17, i, version, i*3)}
}

// TestFaultNodeDown is issue 12's fault test on a 3-node cluster with
// replication factor 2 at consistency ONE: a node holding the tenant is
// stopped during a search load and during indexing; every search succeeds,
// indexing completes, and once the node is back every replica holds every
// chunk (nothing lost).
func TestFaultNodeDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node Weaviate cluster")
	}
	cl := weaviatetest.StartCluster(t, 3)
	ctx := context.Background()
	cfg := weaviate.Config{URLs: cl.URLs(), Collection: "Fault", Tenant: "acme", Replication: 2, Consistency: "ONE", Timeout: 20 * time.Second}
	x, err := weaviate.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.Backend = x
	e, err := situate.Open(ctx, "", store, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const docs = 300
	for i := range docs {
		if _, err := e.Put(ctx, faultDoc(i, 1)); err != nil {
			t.Fatal(err)
		}
	}
	holders := shardHolders(t, cl.Nodes[0].URL, "FaultChunks", "acme")
	if len(holders) != 2 {
		t.Fatalf("tenant acme is on %v, want 2 nodes (replication factor 2)", holders)
	}
	var victim *weaviatetest.Node
	for _, n := range cl.Nodes {
		if _, ok := holders[n.Name]; ok {
			victim = n
			break
		}
	}
	t.Logf("replicas: %v; stopping %s", holders, victim.Name)

	// 1. A search load; the node stops in the middle of it.
	var ok, failed atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				n := (c*97 + i) % docs
				hits, err := e.Search(ctx, situate.Query{Text: fmt.Sprintf("cargo K%05d", n), K: 5, Mode: situate.ModeBM25})
				switch {
				case err != nil:
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				case len(hits) == 0 || hits[0].DocID != fmt.Sprintf("doc-%04d.md", n):
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Errorf("cargo K%05d: got %v", n, hits))
				default:
					ok.Add(1)
				}
			}
		})
	}
	time.Sleep(3 * time.Second)
	before := ok.Load()
	victim.Stop()
	time.Sleep(8 * time.Second)
	close(stop)
	wg.Wait()
	t.Logf("search load: %d searches succeeded (%d before the stop), %d failed", ok.Load(), before, failed.Load())
	if failed.Load() > 0 {
		t.Errorf("%d searches failed with a node down; first: %v", failed.Load(), firstErr.Load())
	}
	if ok.Load() <= before {
		t.Errorf("no search succeeded after the node stopped")
	}

	// 2. Indexing with the node down: new versions of every document, and
	// the node comes back in the middle.
	var restartErr error
	var restarted sync.WaitGroup
	for i := range docs {
		if i == docs/2 {
			restarted.Go(func() { restartErr = victim.Restart() })
		}
		if _, err := e.Put(ctx, faultDoc(i, 2)); err != nil {
			t.Fatalf("put %d with a node down: %v", i, err)
		}
	}
	restarted.Wait()
	if restartErr != nil {
		t.Fatal(restartErr)
	}
	// Nothing lost: the backend lists every document at version 2, every
	// query finds its document, and both replicas come to hold every chunk.
	v, err := x.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		if id := fmt.Sprintf("doc-%04d.md", i); v[id] != 2 {
			t.Errorf("%s: backend holds version %d, want 2", id, v[id])
		}
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		h := shardHolders(t, cl.Nodes[0].URL, "FaultChunks", "acme")
		same := len(h) == 2
		for _, n := range h {
			same = same && n == docs
		}
		if same {
			t.Logf("replicas after the node returned: %v", h)
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("replicas after 3 minutes: %v, want %d objects on each of 2 nodes", h, docs)
			break
		}
		time.Sleep(2 * time.Second)
	}
	for i := range docs {
		hits, err := e.Search(ctx, situate.Query{Text: fmt.Sprintf("K%05d v2", i), K: 1, Mode: situate.ModeBM25})
		if err != nil || len(hits) == 0 || hits[0].DocID != fmt.Sprintf("doc-%04d.md", i) {
			t.Errorf("doc %d after the fault: %v %v", i, hits, err)
		}
	}
}
