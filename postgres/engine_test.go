package postgres_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/postgres"
)

func sharedOptions() situate.Options {
	o := situate.DefaultOptions()
	o.SharedStore = true
	return o
}

func openShared(t *testing.T, url, dir string, o situate.Options) (*situate.Engine, *postgres.Store) {
	t.Helper()
	s, err := postgres.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	e, err := situate.Open(t.Context(), dir, s, o)
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	return e, s
}

func hitDocs(t *testing.T, e *situate.Engine, q string) []string {
	t.Helper()
	hits, err := e.Search(t.Context(), situate.Query{Text: q, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		if !slices.Contains(ids, h.DocID) {
			ids = append(ids, h.DocID)
		}
	}
	slices.Sort(ids)
	return ids
}

// Engines in several processes share one PostgreSQL store, each with its
// own local indexes: what one commits (added, changed, deleted), another
// searches after Sync, and one that was closed meanwhile catches up when it
// opens again, re-indexing only what changed. A store-only engine (a
// worker) writes documents that the others then search.
func TestSharedEnginesSync(t *testing.T) {
	url := postgres.NewTestDatabase(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	a, sa := openShared(t, url, dirA, sharedOptions())
	defer sa.Close()
	b, sb := openShared(t, url, dirB, sharedOptions())
	defer sb.Close()
	ctx := t.Context()

	put := func(e *situate.Engine, id, text string) situate.Change {
		t.Helper()
		ch, err := e.Put(ctx, situate.Document{ID: id, Title: id, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	put(a, "harbour", "The harbour master counts the ships at the tide.")
	put(a, "garden", "Roses and tulips grow in the walled garden.")
	if got := hitDocs(t, b, "harbour ships"); len(got) != 0 {
		t.Fatalf("b found %v before syncing", got)
	}
	res, err := b.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 2 || res.Removed != 0 {
		t.Errorf("first sync: %+v, want 2 indexed", res)
	}
	if got := hitDocs(t, b, "harbour ships"); !slices.Equal(got, []string{"harbour"}) {
		t.Errorf("b after sync: %v", got)
	}
	// b changes a document a indexed: the version comes from the store,
	// not from b's memory.
	if ch := put(b, "harbour", "The lighthouse keeper watches the ships in the storm."); ch != situate.Updated {
		t.Errorf("b's update of a's document: %v, want updated", ch)
	}
	if rec, err := sb.Document(ctx, "harbour"); err != nil || rec.Version != 2 {
		t.Errorf("stored version after b's update: %+v %v", rec.Version, err)
	}
	if ch := put(b, "harbour", "The lighthouse keeper watches the ships in the storm."); ch != situate.Unchanged {
		t.Errorf("the same text again: %v, want unchanged", ch)
	}
	if err := b.Delete(ctx, "garden"); err != nil {
		t.Fatal(err)
	}
	// Nothing changed from b's point of view.
	if res, err := b.Sync(ctx); err != nil || res != (situate.SyncResult{}) {
		t.Errorf("b's sync after its own commits: %+v %v", res, err)
	}
	if res, err := a.Sync(ctx); err != nil || res.Indexed != 1 || res.Removed != 1 {
		t.Errorf("a's sync: %+v %v, want 1 indexed, 1 removed", res, err)
	}
	if got := hitDocs(t, a, "lighthouse storm"); !slices.Equal(got, []string{"harbour"}) {
		t.Errorf("a after sync: lighthouse %v", got)
	}
	if got := hitDocs(t, a, "tulips garden"); len(got) != 0 {
		t.Errorf("a still finds the deleted garden: %v", got)
	}
	if got := hitDocs(t, a, "tide master"); len(got) != 0 {
		t.Errorf("a still finds the old version: %v", got)
	}
	if rec, err := a.Document("harbour"); err != nil || rec.Version != 2 {
		t.Errorf("a's record: %+v %v", rec, err)
	}

	// a closes; a worker writes meanwhile; a reopens and catches up on the
	// one new document only.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	wo := sharedOptions()
	wo.OpenMode = situate.OpenStoreOnly
	w, sw := openShared(t, url, "", wo)
	defer sw.Close()
	put(w, "orchard", "Apples and pears ripen in the orchard in autumn.")
	if _, err := w.Search(ctx, situate.Query{Text: "apples"}); err == nil {
		t.Error("a store-only engine searched")
	}
	w.Close()
	var synced situate.SyncResult
	a, err = situate.Open(ctx, dirA, sa, sharedOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	synced, _ = a.Sync(ctx)
	if got := hitDocs(t, a, "apples orchard"); !slices.Equal(got, []string{"orchard"}) {
		t.Errorf("a after reopening: %v", got)
	}
	if got := hitDocs(t, a, "lighthouse"); !slices.Equal(got, []string{"harbour"}) {
		t.Errorf("a after reopening: lighthouse %v", got)
	}
	if synced != (situate.SyncResult{}) {
		t.Errorf("a second sync right after open did work: %+v", synced)
	}
	if _, err := os.Stat(filepath.Join(dirA, "SYNC")); err != nil {
		t.Errorf("no SYNC file: %v", err)
	}
	// A damaged SYNC file rebuilds the local indexes from the store.
	a.Close()
	if err := os.WriteFile(filepath.Join(dirA, "SYNC"), []byte("{garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err = situate.Open(ctx, dirA, sa, sharedOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := hitDocs(t, a, "apples lighthouse"); !slices.Equal(got, []string{"harbour", "orchard"}) {
		t.Errorf("a after a damaged SYNC file: %v", got)
	}
	// A reader of a shared store builds its indexes in memory.
	ro := sharedOptions()
	ro.OpenMode = situate.OpenReader
	r, err := situate.Open(context.Background(), dirB, sb, ro)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := hitDocs(t, r, "apples lighthouse"); !slices.Equal(got, []string{"harbour", "orchard"}) {
		t.Errorf("shared reader: %v", got)
	}
}

// Two schemas of one database are two stores: a tenant's documents,
// jobs and keys are not another's. Opening a schema twice (two processes)
// shares it.
func TestOpenSchemaIsolates(t *testing.T) {
	url := postgres.NewTestDatabase(t)
	ctx := t.Context()
	a, err := postgres.OpenSchema(ctx, url, "situate_tenant_a")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := postgres.OpenSchema(ctx, url, "situate_tenant_b")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a2, err := postgres.OpenSchema(ctx, url, "situate_tenant_a")
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	rec := situate.DocumentRecord{ID: "secret", Title: "A's", Version: 1}
	if err := a.PutDocument(ctx, rec, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.EnqueueUpload(ctx, driver.Upload{DocID: "secret", Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if docs, err := b.Documents(ctx); err != nil || len(docs) != 0 {
		t.Errorf("schema b sees %v, %v", docs, err)
	}
	if _, ok, err := b.ClaimJob(ctx, time.Minute); err != nil || ok {
		t.Errorf("schema b claimed a job of a: %v %v", ok, err)
	}
	if docs, err := a2.Documents(ctx); err != nil || len(docs) != 1 {
		t.Errorf("a second handle on schema a sees %v, %v", docs, err)
	}
	if _, err := postgres.OpenSchema(ctx, url, ""); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("empty schema name: %v", err)
	}
	// A hostile name is quoted, not executed.
	odd := `x"; DROP TABLE documents; --`
	o, err := postgres.OpenSchema(ctx, url, odd)
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	if docs, err := a.Documents(ctx); err != nil || len(docs) != 1 {
		t.Errorf("after the odd schema name: %v, %v", docs, err)
	}
}

// Between two Syncs a document is deleted and written again, another
// written then deleted: the incremental Sync (changes since the last
// stamp) ends where a full one would.
func TestSharedSyncChurn(t *testing.T) {
	url := postgres.NewTestDatabase(t)
	a, sa := openShared(t, url, t.TempDir(), sharedOptions())
	defer sa.Close()
	defer a.Close()
	b, sb := openShared(t, url, t.TempDir(), sharedOptions())
	defer sb.Close()
	defer b.Close()
	ctx := t.Context()
	put := func(id, text string) {
		if _, err := a.Put(ctx, situate.Document{ID: id, Title: id, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	put("x", "Quince jelly sets overnight in the cellar.")
	put("y", "Walnuts dry on racks in the attic.")
	if _, err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	put("x", "Plum brandy rests in oak barrels.")
	put("z", "Chestnuts roast on the stove.")
	if err := a.Delete(ctx, "z"); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, "y"); err != nil {
		t.Fatal(err)
	}
	res, err := b.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 1 || res.Removed != 1 {
		t.Errorf("sync: %+v, want x indexed and y removed", res)
	}
	if got := hitDocs(t, b, "plum brandy"); !slices.Equal(got, []string{"x"}) {
		t.Errorf("plum brandy: %v", got)
	}
	for _, q := range []string{"quince jelly", "walnuts", "chestnuts"} {
		if got := hitDocs(t, b, q); len(got) != 0 {
			t.Errorf("%s: %v, want nothing", q, got)
		}
	}
	var ids []string
	for _, r := range b.Documents() {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []string{"x"}) {
		t.Errorf("b's records: %v", ids)
	}
}

// A shared engine's document records follow its Sync while readers list,
// fetch and search concurrently (a server's requests beside its sync loop):
// no search finds a document whose record is not known yet (Sync records
// before it indexes), and after the last Sync every committed document is
// listed and found by id, not only by search.
func TestSharedRecordsFollowSync(t *testing.T) {
	url := postgres.NewTestDatabase(t)
	ctx := t.Context()
	a, sa := openShared(t, url, t.TempDir(), sharedOptions())
	defer sa.Close()
	defer a.Close()
	a.Documents()
	wo := sharedOptions()
	wo.OpenMode = situate.OpenStoreOnly
	w, sw := openShared(t, url, "", wo)
	defer sw.Close()
	defer w.Close()
	stop := make(chan struct{})
	done := make(chan struct{})
	var orphans atomic.Int64 // hits whose record the engine does not know
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			a.Documents()
			a.Document("d-0")
			hits, _ := a.Search(ctx, situate.Query{Text: "lantern", K: 50})
			for _, h := range hits {
				if _, err := a.Document(h.DocID); err != nil {
					orphans.Add(1)
				}
			}
		}
	}()
	const n = 40
	for i := range n {
		id := "d-" + strconv.Itoa(i)
		if _, err := w.Put(ctx, situate.Document{ID: id, Text: "The lantern keeper " + id + " trims the wick."}); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := a.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-done
	if got := len(a.Documents()); got != n {
		t.Errorf("listed %d documents, want %d", got, n)
	}
	if n := orphans.Load(); n > 0 {
		t.Errorf("%d hits were of documents the engine did not know yet (records must come before the index)", n)
	}
	for i := range n {
		if _, err := a.Document("d-" + strconv.Itoa(i)); err != nil {
			t.Errorf("document d-%d: %v", i, err)
		}
	}
}
