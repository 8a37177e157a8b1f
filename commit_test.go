package situate_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/sqlite"
)

// refusingStore is a SQLite store that refuses to store one document, in a
// batch or alone, and counts the batches it was given.
type refusingStore struct {
	*sqlite.Store
	refuse  string
	batches atomic.Int64
}

var errRefused = errors.New("refused by the test store")

func (s *refusingStore) PutDocuments(ctx context.Context, puts []driver.DocumentPut) error {
	s.batches.Add(1)
	for _, p := range puts {
		if p.Record.ID == s.refuse {
			return errRefused
		}
	}
	return s.Store.PutDocuments(ctx, puts)
}

func (s *refusingStore) PutDocument(ctx context.Context, rec situate.DocumentRecord, chunks []situate.StoredChunk) error {
	if rec.ID == s.refuse {
		return errRefused
	}
	return s.Store.PutDocument(ctx, rec, chunks)
}

// TestCommitBatchAndPartialFailure: a batch is stored in one transaction;
// when the store refuses a document of a batch, the documents before it are
// stored and searchable, the error names it, and neither it nor the ones
// after it reach the store or the index (the arms' segments are built while
// the store writes, so this checks that a built batch is not published
// with documents the store did not take).
func TestCommitBatchAndPartialFailure(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	store := &refusingStore{Store: ts.store, refuse: "b"}
	eng, err := situate.Open(ctx, ts.dir, store, situate.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	prepare := func(docs ...situate.Document) []*situate.Prepared {
		t.Helper()
		var ps []*situate.Prepared
		for _, d := range docs {
			p, err := eng.Prepare(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		return ps
	}
	found := func(word string) []string {
		t.Helper()
		hits, err := eng.Search(ctx, situate.Query{Text: word, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.DocID)
		}
		return ids
	}

	changes, err := eng.Commit(ctx, prepare(doc("x", "Xylophone tuning notes."), doc("y", "Yodel practice notes.")))
	if err != nil || len(changes) != 2 {
		t.Fatalf("commit x, y: %v, %v", changes, err)
	}
	if n := store.batches.Load(); n != 1 {
		t.Errorf("two documents went to the store in %d batches, want 1", n)
	}

	changes, err = eng.Commit(ctx, prepare(doc("a", "Albatross flight notes."), doc("b", "Barnacle growth notes."), doc("c", "Cormorant diving notes.")))
	if !errors.Is(err, errRefused) || !strings.Contains(err.Error(), "store b") {
		t.Fatalf("commit a, b, c: error %v, want the store's refusal naming b", err)
	}
	if len(changes) != 1 || changes[0] != situate.Added {
		t.Errorf("commit a, b, c: changes %v, want [added] for a alone", changes)
	}
	for word, want := range map[string]string{"albatross": "a", "barnacle": "", "cormorant": "", "xylophone": "x"} {
		got := found(word)
		if want == "" && len(got) != 0 || want != "" && (len(got) != 1 || got[0] != want) {
			t.Errorf("search %q: %v, want %q", word, got, want)
		}
	}
	for id, want := range map[string]bool{"a": true, "b": false, "c": false} {
		_, err := store.Document(ctx, id)
		if got := err == nil; got != want {
			t.Errorf("store holds %s: %v, want %v (%v)", id, got, want, err)
		}
	}
	// The index holds exactly what the store does.
	checkIndexed(t, eng, "a", "x", "y")
}
