package httpapi_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// TestResituateFromStoredSource restarts the server with another chunk
// size: the uploaded document is re-situated from its stored source, with
// no client uploading it again.
func TestResituateFromStoredSource(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	start := func(chunkSize int) (*httpapi.Server, *httptest.Server, *sqlite.Store) {
		store, err := sqlite.Open(ctx, filepath.Join(dir, "s.db"))
		if err != nil {
			t.Fatal(err)
		}
		open := func(ctx context.Context, name string) (*httpapi.Tenant, error) {
			o := situate.DefaultOptions()
			o.ChunkSize, o.ChunkOverlap = chunkSize, 0
			o.Contextualizer = offline.New(offline.DefaultOptions())
			eng, err := situate.Open(ctx, filepath.Join(dir, "idx"), store, o)
			if err != nil {
				return nil, err
			}
			return &httpapi.Tenant{Engine: eng, Jobs: store, Close: eng.Close}, nil
		}
		srv, err := httpapi.New(ctx, httpapi.Options{OpenTenant: open, Parse: parseSource})
		if err != nil {
			t.Fatal(err)
		}
		return srv, httptest.NewServer(srv.Handler()), store
	}
	text := "# Harbour\n\n"
	for range 30 {
		text += "The harbour master logs every ship that passes the granite quay at high tide. "
	}
	srv, ts, store := start(400)
	e := &env{t: t, ts: ts}
	first := e.wait("", e.upsert("", "log.md", httpapi.DocumentRequest{Text: text, Format: "markdown"}))
	ts.Close()
	srv.Close()
	store.Close()
	rec := func() situate.DocumentRecord {
		t.Helper()
		recs, err := store.Documents(ctx)
		if err != nil || len(recs) != 1 {
			t.Fatalf("documents: %v %v", recs, err)
		}
		return recs[0]
	}

	srv, ts, store = start(60) // a chunking change
	defer func() { ts.Close(); srv.Close(); store.Close() }()
	e = &env{t: t, ts: ts}
	deadline := time.Now().Add(30 * time.Second)
	for rec().Version != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("not re-situated: %+v", rec())
		}
		time.Sleep(20 * time.Millisecond)
	}
	j := e.wait("", first.ID+1)
	if j.State != situate.JobDone || j.Change != "updated" || j.Document != "log.md" || j.Chunks <= first.Chunks {
		t.Errorf("re-situating job %+v after %+v", j, first)
	}
	if r := rec(); r.Chunks != j.Chunks {
		t.Errorf("record %+v, job %+v", r, j)
	}
}
