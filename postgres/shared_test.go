package postgres_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/postgres"
)

// Two stores opened on one database (as two situate processes would) share
// one state: what one writes, the other reads at once, and a deletion by one
// is seen by the other.
func TestTwoStoresShareState(t *testing.T) {
	url := postgres.NewTestDatabase(t)
	a, err := postgres.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := postgres.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rec := situate.DocumentRecord{ID: "doc", Title: "T", Version: 1}
	cs := []situate.StoredChunk{{Chunk: situate.Chunk{Index: 0, Start: 0, End: 5, Text: "hello"}, Context: situate.Context{Text: "ctx"}}}
	if err := a.PutDocument(t.Context(), rec, cs); err != nil {
		t.Fatal(err)
	}
	got, err := b.Chunks(t.Context(), "doc")
	if err != nil || len(got) != 1 || got[0].Text != "hello" || got[0].Context.Text != "ctx" {
		t.Fatalf("the second store reads %+v, %v", got, err)
	}
	if err := b.CacheContext(t.Context(), "k", situate.Context{Text: "from b"}); err != nil {
		t.Fatal(err)
	}
	if c, ok, err := a.CachedContext(t.Context(), "k"); err != nil || !ok || c.Text != "from b" {
		t.Errorf("the first store's cache lookup: %+v %v %v", c, ok, err)
	}
	if err := b.DeleteDocument(t.Context(), "doc"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Document(t.Context(), "doc"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("after the other store deleted it: %v", err)
	}
}

// Strings come back byte for byte, including what PostgreSQL's TEXT type
// refuses: NUL bytes and invalid UTF-8 (a title cut inside a character).
func TestBytesRoundTrip(t *testing.T) {
	s, err := postgres.Open(t.Context(), postgres.NewTestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	odd := "nul\x00byte, cut \xe5\x8c, latin1 \xe9"
	rec := situate.DocumentRecord{ID: odd, Title: odd, Path: odd, Hash: odd, Version: 1}
	cs := []situate.StoredChunk{{Chunk: situate.Chunk{Index: 0, End: len(odd), Text: odd, Heading: odd},
		Context: situate.Context{Text: odd, Source: odd}}}
	if err := s.PutDocument(t.Context(), rec, cs); err != nil {
		t.Fatal(err)
	}
	got, err := s.Document(t.Context(), odd)
	if err != nil || got.ID != odd || got.Title != odd || got.Path != odd || got.Hash != odd {
		t.Errorf("record: %q %q %v", got.ID, got.Title, err)
	}
	gc, err := s.Chunks(t.Context(), odd)
	if err != nil || len(gc) != 1 || gc[0].Text != odd || gc[0].Heading != odd || gc[0].Context.Text != odd || gc[0].DocID != odd {
		t.Errorf("chunks: %+v %v", gc, err)
	}
	if err := s.SetMeta(t.Context(), odd, odd); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Meta(t.Context(), odd); err != nil || !ok || v != odd {
		t.Errorf("meta: %q %v %v", v, ok, err)
	}
	if err := s.RecordUsage(t.Context(), situate.Usage{Provider: odd, DocID: odd, Error: odd}); err != nil {
		t.Errorf("usage with odd bytes: %v", err)
	}
	docs, _ := s.Documents(t.Context())
	if ids := []string{docs[0].ID}; !slices.Equal(ids, []string{odd}) {
		t.Errorf("Documents: %q", ids)
	}
}
