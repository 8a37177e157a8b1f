package weaviate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/weaviatetest"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/weaviate"
)

// faultChunks is the number of chunks of version v of document i: every
// document's count changes between versions (1 to 3), so a new version both
// adds chunks and leaves old ones to delete.
func faultChunks(i, v int) int { return 1 + (i+v)%3 }

func faultID(i int) string { return fmt.Sprintf("doc-%04d.md", i) }

// faultPut indexes version v of documents ids in one commit, as `situate
// index` commits a batch (chunks and contexts given, so the chunk counts
// are exact).
func faultPut(ctx context.Context, e *situate.Engine, v int, ids ...int) error {
	var batch []*situate.Prepared
	for _, i := range ids {
		p, err := faultPrepare(ctx, e, i, v)
		if err != nil {
			return err
		}
		batch = append(batch, p)
	}
	_, err := e.Commit(ctx, batch)
	return err
}

func faultPrepare(ctx context.Context, e *situate.Engine, i, v int) (*situate.Prepared, error) {
	n := faultChunks(i, v)
	chunks := make([]situate.Chunk, n)
	contexts := make([]situate.Context, n)
	for c := range n {
		chunks[c] = situate.Chunk{Text: fmt.Sprintf("Ship %d of harbor %d carried cargo K%05d in part %d of version v%d. The crane lifted container %d.",
			i, i%17, i, c, v, i*3+c)}
		contexts[c] = situate.Context{Text: fmt.Sprintf("Report %d, part %d.", i, c), Source: "test"}
	}
	return e.PrepareChunks(ctx, situate.Document{ID: faultID(i), Lang: "en", Format: situate.FormatText}, chunks, contexts)
}

// TestFaultNodeDown is issue 12's fault test on a 3-node cluster with
// replication factor 3 at consistency QUORUM (the configuration the README
// recommends): a search load runs throughout; one node is stopped during it
// and stays down while new versions are indexed (in commits of 6
// documents), comes back during
// indexing, and a second node is stopped during indexing and comes back
// after it. Every search succeeds; once the nodes are back, every node holds
// every document at its latest version with exactly its chunks (no stale
// chunk, none missing, deleted documents gone), read object by object from
// each node, and searches at QUORUM find exactly those chunks.
func TestFaultNodeDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node Weaviate cluster and stops nodes (about 2 minutes)")
	}
	start := time.Now()
	cl := weaviatetest.StartCluster(t, 3)
	t.Logf("cluster ready in %s", time.Since(start).Round(time.Second))
	ctx := context.Background()
	// One collection exists already, replicated without asynchronous
	// replication and with Weaviate's default deletion strategy (as an
	// earlier situate made them): opening must turn both on.
	postJSON(t, cl.Nodes[0].URL+"/v1/schema", map[string]any{"class": "FaultDocs", "vectorizer": "none",
		"multiTenancyConfig": map[string]any{"enabled": true, "autoTenantCreation": true}, "replicationConfig": map[string]any{"factor": 3}})
	cfg := weaviate.Config{URLs: cl.URLs(), Collection: "Fault", Tenant: "acme", Replication: 3, Consistency: "QUORUM", Timeout: 20 * time.Second}
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
	for _, c := range faultClasses(t, cl.Nodes[0].URL, "Fault") {
		var s struct {
			ReplicationConfig struct {
				Factor           int    `json:"factor"`
				AsyncEnabled     bool   `json:"asyncEnabled"`
				DeletionStrategy string `json:"deletionStrategy"`
			} `json:"replicationConfig"`
		}
		getJSON(t, cl.Nodes[0].URL+"/v1/schema/"+c, &s)
		if r := s.ReplicationConfig; r.Factor != 3 || !r.AsyncEnabled || r.DeletionStrategy != "TimeBasedResolution" {
			t.Errorf("collection %s: replication %+v, want factor 3, asyncEnabled, TimeBasedResolution", c, r)
		}
	}
	const docs, added, batch = 60, 6, 6
	deleted := func(i int) bool { return i%10 == 9 }
	for i := 0; i < docs; i += batch {
		if err := faultPut(ctx, e, 1, seq(i, i+batch)...); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("version 1 of %d documents indexed at %s", docs, time.Since(start).Round(time.Second))
	a, b := cl.Nodes[1], cl.Nodes[2]

	// A search load for the whole test: each query names one document's
	// own cargo number, which every version carries; the document must
	// come first.
	var ok, okDown, failed atomic.Int64
	var down atomic.Int32
	var firstErr atomic.Value
	stopLoad := make(chan struct{})
	var load sync.WaitGroup
	for c := range 3 {
		load.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stopLoad:
					return
				case <-time.After(10 * time.Millisecond): // leave the machine's cores to the cluster
				}
				n := (c*97 + i) % docs
				if deleted(n) {
					continue
				}
				wasDown := down.Load() > 0
				hits, err := e.Search(ctx, situate.Query{Text: fmt.Sprintf("cargo K%05d", n), K: 5, Mode: situate.ModeBM25})
				switch {
				case err != nil:
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				case len(hits) == 0 || hits[0].DocID != faultID(n):
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Errorf("cargo K%05d: got %v", n, hits))
				default:
					ok.Add(1)
					if wasDown && down.Load() > 0 {
						okDown.Add(1)
					}
				}
			}
		})
	}
	stopNode := func(n *weaviatetest.Node) {
		down.Add(1)
		n.Stop()
		t.Logf("%s stopped at %s", n.Name, time.Since(start).Round(time.Second))
	}
	restart := func(n *weaviatetest.Node) error {
		err := n.Restart()
		down.Add(-1)
		t.Logf("%s back at %s", n.Name, time.Since(start).Round(time.Second))
		return err
	}

	// 1. Node a stops during the search load.
	time.Sleep(2 * time.Second)
	stopNode(a)
	time.Sleep(3 * time.Second)

	// 2. Indexing: new versions (other chunk counts) and deletions; a
	// comes back after the first third, b stops during the last third and
	// comes back at the end.
	var restartA, stopB sync.WaitGroup
	var restartErr error
	for i := 0; i < docs; i += batch {
		switch i / batch { // node a is back after 3 of the 10 commits; b stops after 7
		case 3:
			restartA.Go(func() { restartErr = restart(a) })
		case 7:
			restartA.Wait()
			if restartErr != nil {
				t.Fatal(restartErr)
			}
			stopB.Go(func() { stopNode(b) })
		}
		var put []int
		for _, j := range seq(i, i+batch) {
			if !deleted(j) {
				put = append(put, j)
			} else if err := e.Delete(ctx, faultID(j)); err != nil {
				t.Fatalf("delete %s with a node down: %v", faultID(j), err)
			}
		}
		if err := faultPut(ctx, e, 2, put...); err != nil {
			t.Fatalf("version 2 of documents %d-%d with a node down: %v", i, i+batch-1, err)
		}
	}
	if err := faultPut(ctx, e, 1, seq(docs, docs+added)...); err != nil {
		t.Fatalf("new documents with a node down: %v", err)
	}
	stopB.Wait()
	if err := restart(b); err != nil {
		t.Fatal(err)
	}
	t.Logf("indexing done at %s", time.Since(start).Round(time.Second))
	time.Sleep(time.Second)
	close(stopLoad)
	load.Wait()
	t.Logf("search load: %d searches succeeded, %d of them with a node down; %d failed", ok.Load(), okDown.Load(), failed.Load())
	if failed.Load() > 0 {
		t.Errorf("%d searches failed; first: %v", failed.Load(), firstErr.Load())
	}
	if okDown.Load() == 0 {
		t.Errorf("no search ran while a node was down")
	}

	// 3. Nothing lost: every node converges (Weaviate's asynchronous
	// replication, with TimeBasedResolution for deletions) to exactly what
	// the store holds.
	want := map[string]situate.DocumentRecord{}
	for _, r := range e.Documents() {
		want[r.ID] = r
	}
	if len(want) != docs+added-docs/10 {
		t.Fatalf("the store holds %d documents, want %d", len(want), docs+added-docs/10)
	}
	classes := faultClasses(t, cl.Nodes[0].URL, "Fault")
	var problems []string
	converge := time.Now()
	for {
		problems = divergence(t, cl, classes, "acme", docs+added, want)
		if len(problems) == 0 || time.Since(converge) > 2*time.Minute {
			break
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("replicas checked object by object on %d nodes, %d collections: %d problems %s after the last node returned",
		len(cl.Nodes), len(classes), len(problems), time.Since(converge).Round(time.Second))
	for _, p := range problems[:min(len(problems), 20)] {
		t.Error(p)
	}
	// And through the index at QUORUM: the versions listed, and each
	// document's own term finds exactly its chunks, once each.
	v, err := x.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range want {
		if v[id] != r.Version {
			t.Errorf("%s: Versions says %d, the store %d", id, v[id], r.Version)
		}
	}
	for id := range v {
		if _, ok := want[id]; !ok {
			t.Errorf("%s: listed by Versions, deleted from the store", id)
		}
	}
	for i := range docs + added {
		id := faultID(i)
		hits, err := x.SearchTerms(ctx, driver.TermQuery{Arm: "bm25", Terms: map[string][]string{"english": {fmt.Sprintf("k%05d", i)}}, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, h := range hits {
			if h.DocID != id {
				t.Errorf("k%05d: found %s#%d", i, h.DocID, h.Chunk)
			}
			got = append(got, h.Chunk)
		}
		slices.Sort(got)
		var exp []int
		if r, ok := want[id]; ok {
			for c := range r.Chunks {
				exp = append(exp, c)
			}
		}
		if !slices.Equal(got, exp) {
			t.Errorf("%s: a search at QUORUM finds chunks %v, want %v", id, got, exp)
		}
	}
	t.Logf("done at %s", time.Since(start).Round(time.Second))
}

// seq is from, from+1, ..., to-1.
func seq(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// faultClasses lists the collections whose names start with prefix.
func faultClasses(t *testing.T, url, prefix string) []string {
	t.Helper()
	var s struct {
		Classes []struct {
			Class string `json:"class"`
		} `json:"classes"`
	}
	getJSON(t, url+"/v1/schema", &s)
	var out []string
	for _, c := range s.Classes {
		if strings.HasPrefix(c.Class, prefix) {
			out = append(out, c.Class)
		}
	}
	slices.Sort(out)
	return out
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func postJSON(t *testing.T, url string, body any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: status %d: %s", url, resp.StatusCode, msg)
	}
}

// nodeObject is one object as one node holds it.
type nodeObject struct {
	found           bool
	version, chunks int
}

// readOnNode reads an object from one node's replica (node_name: no
// coordination, no repair).
func readOnNode(via, class, id, tenant, node string) (nodeObject, error) {
	u := fmt.Sprintf("%s/v1/objects/%s/%s?tenant=%s&node_name=%s", via, class, id, url.QueryEscape(tenant), url.QueryEscape(node))
	resp, err := http.Get(u)
	if err != nil {
		return nodeObject{}, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotFound:
		return nodeObject{}, nil
	case http.StatusOK:
	default:
		return nodeObject{}, fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	var o struct {
		Properties struct {
			Version float64 `json:"version"`
			Chunks  float64 `json:"chunks"`
		} `json:"properties"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil {
		return nodeObject{}, fmt.Errorf("GET %s: %w", u, err)
	}
	return nodeObject{true, int(o.Properties.Version), int(o.Properties.Chunks)}, nil
}

// divergence compares every node's replica with the store's documents
// (want), object by object, for document ids 0..ids-1 and chunk numbers
// 0..2 in every collection: the documents' collection holds each document
// at its version and chunk count; the chunks' and the English language
// collection hold each of its chunks at its version and nothing past its
// last chunk; the other lexical collections hold a chunk (at its version)
// on all nodes or on none; deleted documents are gone everywhere. It
// returns what differs.
func divergence(t *testing.T, cl *weaviatetest.Cluster, classes []string, tenant string, ids int, want map[string]situate.DocumentRecord) []string {
	type job struct {
		class, doc string
		chunk      int
	}
	var jobs []job
	for i := range ids {
		id := faultID(i)
		for _, c := range classes {
			if strings.HasSuffix(c, "Docs") {
				jobs = append(jobs, job{c, id, -1})
				continue
			}
			for ch := range 3 {
				jobs = append(jobs, job{c, id, ch})
			}
		}
	}
	var mu sync.Mutex
	var problems []string
	add := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	next := make(chan job)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for j := range next {
				r, live := want[j.doc]
				var seen []nodeObject
				for k, n := range cl.Nodes {
					via := cl.Nodes[(k+1)%len(cl.Nodes)].URL
					o, err := readOnNode(via, j.class, weaviate.ObjectID(j.doc, j.chunk), tenant, n.Name)
					if err != nil {
						add("%s %s#%d on %s: %v", j.class, j.doc, j.chunk, n.Name, err)
						continue
					}
					seen = append(seen, o)
					where := fmt.Sprintf("%s %s#%d on %s", j.class, j.doc, j.chunk, n.Name)
					switch {
					case !live || j.chunk >= r.Chunks:
						if o.found {
							add("%s: present (version %d), should be gone", where, o.version)
						}
					case j.chunk < 0:
						if !o.found || o.version != r.Version || o.chunks != r.Chunks {
							add("%s: %+v, want version %d with %d chunks", where, o, r.Version, r.Chunks)
						}
					case strings.HasSuffix(j.class, "Chunks") || strings.HasSuffix(j.class, "LangEnglish"):
						if !o.found || o.version != r.Version {
							add("%s: %+v, want version %d", where, o, r.Version)
						}
					default:
						if o.found && o.version != r.Version {
							add("%s: version %d, want %d", where, o.version, r.Version)
						}
					}
				}
				if len(seen) == len(cl.Nodes) && slices.ContainsFunc(seen, func(o nodeObject) bool { return o.found != seen[0].found }) {
					add("%s %s#%d: on some nodes only: %+v", j.class, j.doc, j.chunk, seen)
				}
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	slices.Sort(problems)
	return problems
}
