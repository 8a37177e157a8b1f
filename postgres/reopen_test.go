package postgres_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/postgres"
)

// listCounting is the store with its whole-document-list reads counted.
type listCounting struct {
	*postgres.Store
	lists atomic.Int64
}

func (s *listCounting) Documents(ctx context.Context) ([]situate.DocumentRecord, error) {
	s.lists.Add(1)
	return s.Store.Documents(ctx)
}

// Reopening a shared engine whose local indexes were synced reads only the
// changes made meanwhile (ChangeLister), never the whole document list: the
// changed, deleted and added documents are searched and listed right. Local
// indexes synced to another database (one created again, reaching the same
// change stamp) are rebuilt from it, and indexes that do not hold the
// store's chunk count although their SYNC file says they are synced (here a
// forged stamp) are rebuilt too.
func TestSharedReopenReadsOnlyChanges(t *testing.T) {
	url := postgres.NewTestDatabase(t)
	ctx := t.Context()
	dir := t.TempDir()
	wo := sharedOptions()
	wo.OpenMode = situate.OpenStoreOnly
	w, sw := openShared(t, url, "", wo)
	defer sw.Close()
	defer w.Close()
	put := func(id, text string) {
		t.Helper()
		if _, err := w.Put(ctx, situate.Document{ID: id, Title: id, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	put("harbour", "The harbour master counts the ships at the tide.")
	put("garden", "Roses and tulips grow in the walled garden.")
	put("mill", "The mill grinds grain by the river.")

	open := func(url string) (*situate.Engine, *listCounting) {
		t.Helper()
		s, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		ls := &listCounting{Store: s}
		e, err := situate.Open(ctx, dir, ls, sharedOptions())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close(); s.Close() })
		return e, ls
	}
	a, _ := open(url)
	if got := hitDocs(t, a, "tulips"); !slices.Equal(got, []string{"garden"}) {
		t.Fatalf("first open: %v", got)
	}
	a.Close()

	put("harbour", "The lighthouse keeper watches the ships in the storm.")
	if err := w.Delete(ctx, "garden"); err != nil {
		t.Fatal(err)
	}
	put("forge", "The smith hammers iron at the forge.")
	a, ls := open(url)
	if n := ls.lists.Load(); n != 0 {
		t.Errorf("reopening read the document list %d times, want 0", n)
	}
	for q, want := range map[string][]string{"tulips": nil, "lighthouse": {"harbour"}, "tide master": nil, "smith iron": {"forge"}, "grain river": {"mill"}} {
		if got := hitDocs(t, a, q); !slices.Equal(got, want) {
			t.Errorf("after reopening, %q finds %v, want %v", q, got, want)
		}
	}
	if rec, err := a.Document("harbour"); err != nil || rec.Version != 2 {
		t.Errorf("harbour after reopening: %+v %v", rec, err)
	}
	if _, err := a.Document("garden"); err == nil {
		t.Error("the deleted garden is still a document")
	}
	var ids []string
	for _, r := range a.Documents() {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []string{"forge", "harbour", "mill"}) {
		t.Errorf("documents after reopening: %v", ids)
	}
	a.Close()

	// Another database at the same change stamp: rebuilt, not trusted.
	url2 := postgres.NewTestDatabase(t)
	w2, sw2 := openShared(t, url2, "", wo)
	defer sw2.Close()
	defer w2.Close()
	// As many chunks as the first store holds, so that only the stores'
	// ids tell them apart.
	for i, id := range []string{"d1", "d2", "d3", "d1", "d2", "d3"} {
		if _, err := w2.Put(ctx, situate.Document{ID: id, Text: "Bells ring over the valley of " + id + " " + strings.Repeat("again ", i/3) + "."}); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := sw.ChangeStamp(ctx); st != "6" {
		t.Fatalf("change stamp of the first store: %s (the test wants it equal to the second's, 6)", st)
	}
	if st, _ := sw2.ChangeStamp(ctx); st != "6" {
		t.Fatalf("change stamp of the second store: %s", st)
	}
	b, _ := open(url2)
	if got := hitDocs(t, b, "bells valley"); len(got) != 3 {
		t.Errorf("over the other database: %v", got)
	}
	if got := hitDocs(t, b, "smith iron"); len(got) != 0 {
		t.Errorf("over the other database, the first one's document: %v", got)
	}
	b.Close()

	// A SYNC file whose stamp says more than its indexes hold.
	if _, err := w2.Put(ctx, situate.Document{ID: "d7", Text: "Owls hoot in the barn."}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "SYNC")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	json.Unmarshal(raw, &st)
	st["stamp"] = "7"
	raw, _ = json.Marshal(st)
	os.WriteFile(path, raw, 0o644)
	b, _ = open(url2)
	if got := hitDocs(t, b, "owls barn"); !slices.Equal(got, []string{"d7"}) {
		t.Errorf("indexes behind a forged stamp were not rebuilt: %v", got)
	}
}
