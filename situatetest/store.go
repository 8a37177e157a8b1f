package situatetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// StoreHarness opens the stores TestStore runs against.
type StoreHarness struct {
	// New opens an empty store for t. It also returns reopen, which opens
	// the same store again after the suite closed it (the persistence
	// checks); reopen may be nil for a store that does not persist.
	New func(t *testing.T) (s driver.Store, reopen func() (driver.Store, error))
}

// TestStore runs the Store conformance suite: round trips of every field,
// atomic replacement, ordering, not-found errors, unicode and large
// values, concurrent use and persistence across close and reopen. It also
// runs the MetaStore, ContextCache, VectorCache and UsageRecorder checks
// for the interfaces the store implements.
func TestStore(t *testing.T, h StoreHarness) {
	open := func(t *testing.T) (driver.Store, func() driver.Store) {
		t.Helper()
		s, reopen := h.New(t)
		closed := false
		t.Cleanup(func() {
			if !closed {
				s.Close()
			}
		})
		again := func() driver.Store {
			t.Helper()
			if reopen == nil {
				t.Skip("the store does not persist (no reopen)")
			}
			if err := s.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			closed = true
			s2, err := reopen()
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			t.Cleanup(func() { s2.Close() })
			return s2
		}
		return s, again
	}
	for _, c := range []struct {
		name string
		run  func(t *testing.T, s driver.Store, reopen func() driver.Store)
	}{
		{"RoundTrip", storeRoundTrip},
		{"NotFound", storeNotFound},
		{"Replace", storeReplace},
		{"Delete", storeDelete},
		{"Order", storeOrder},
		{"Invalid", storeInvalid},
		{"Canceled", storeCanceled},
		{"Large", storeLarge},
		{"Concurrent", storeConcurrent},
		{"Persist", storePersist},
		{"Meta", storeMeta},
		{"ContextCache", storeContextCache},
		{"VectorCache", storeVectorCache},
		{"Usage", storeUsage},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, reopen := open(t)
			c.run(t, s, reopen)
		})
	}
}

// unicodeTexts covers scripts, combining marks, astral characters,
// control characters that are valid text, and quoting characters.
var unicodeTexts = []string{
	"plain ascii",
	"Größenverhältnis — „Anführung“",
	"Москва, ёлка",
	"北京的天气 🌧️ and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
	"e\u0301 combining, \u200b zero width, \u202e right-to-left override",
	"tab\tnewline\ncarriage\rreturn \x01\x1f",
	`quotes ' " \ backslash; -- ; DROP TABLE documents;`,
	"%_ like wildcards and [brackets] {braces}",
}

func record(id string, version, chunks int) situate.DocumentRecord {
	return situate.DocumentRecord{ID: id, Title: "Title of " + id, Format: situate.FormatMarkdown, Lang: situate.LangGerman,
		Path: "/corpus/" + id, Hash: fmt.Sprintf("hash-%s-%d", id, version),
		Metadata: map[string]string{"author": "Jörg", "year": "2024", "": "empty key", "empty value": ""},
		Access:   []string{"group:eng", "user:ana"}, Version: version, Chunks: chunks}
}

func chunks(id string, version, n int) []situate.StoredChunk {
	out := make([]situate.StoredChunk, n)
	off := 0
	for i := range out {
		text := fmt.Sprintf("v%d chunk %d of %s: %s", version, i, id, unicodeTexts[i%len(unicodeTexts)])
		out[i] = situate.StoredChunk{
			Chunk: situate.Chunk{DocID: id, Index: i, Start: off, End: off + len(text), Text: text,
				Heading: "Kapitel 1 > Abschnitt " + fmt.Sprint(i), Tokens: 7 + i},
			Context: situate.Context{Text: fmt.Sprintf("context v%d of chunk %d", version, i), Source: "anthropic:claude-haiku-4-5",
				Flags: []string{"fallback", "unknown-number:42"}[:i%3%2*2]},
		}
		off += len(text)
	}
	return out
}

func put(t *testing.T, s driver.Store, rec situate.DocumentRecord, cs []situate.StoredChunk) {
	t.Helper()
	if err := s.PutDocument(t.Context(), rec, cs); err != nil {
		t.Fatalf("PutDocument %q: %v", rec.ID, err)
	}
}

// sameRecord compares records; nil and empty maps and lists are equal,
// and IndexedAt is compared to the microsecond.
func sameRecord(t *testing.T, what string, got, want situate.DocumentRecord) {
	t.Helper()
	if got.ID != want.ID || got.Title != want.Title || got.Format != want.Format || got.Lang != want.Lang ||
		got.Path != want.Path || got.Hash != want.Hash || got.Version != want.Version || got.Chunks != want.Chunks ||
		!(len(got.Metadata) == 0 && len(want.Metadata) == 0 || maps.Equal(got.Metadata, want.Metadata)) ||
		!(len(got.Access) == 0 && len(want.Access) == 0 || slices.Equal(got.Access, want.Access)) {
		t.Errorf("%s: record\n got %+v\nwant %+v", what, got, want)
	}
	if !want.IndexedAt.IsZero() && got.IndexedAt.Sub(want.IndexedAt).Abs() >= time.Microsecond {
		t.Errorf("%s: IndexedAt %v, want %v", what, got.IndexedAt, want.IndexedAt)
	}
}

func sameChunks(t *testing.T, what string, got, want []situate.StoredChunk) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d chunks, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Chunk != w.Chunk || g.Context.Text != w.Context.Text || g.Context.Source != w.Context.Source ||
			!(len(g.Context.Flags) == 0 && len(w.Context.Flags) == 0 || slices.Equal(g.Context.Flags, w.Context.Flags)) {
			t.Errorf("%s: chunk %d\n got %+v\nwant %+v", what, i, g, w)
		}
	}
}

func checkDocument(t *testing.T, s driver.Store, want situate.DocumentRecord, wantChunks []situate.StoredChunk) {
	t.Helper()
	got, err := s.Document(t.Context(), want.ID)
	if err != nil {
		t.Fatalf("Document %q: %v", want.ID, err)
	}
	sameRecord(t, "Document "+want.ID, got, want)
	cs, err := s.Chunks(t.Context(), want.ID)
	if err != nil {
		t.Fatalf("Chunks %q: %v", want.ID, err)
	}
	sameChunks(t, "Chunks "+want.ID, cs, wantChunks)
}

func storeRoundTrip(t *testing.T, s driver.Store, _ func() driver.Store) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)
	for i, id := range append([]string{"docs/a.md"}, unicodeTexts...) {
		rec := record(id, i+1, 0)
		rec.IndexedAt = at
		cs := chunks(id, i+1, 5)
		rec.Chunks = 99 // the store counts the chunks itself
		put(t, s, rec, cs)
		rec.Chunks = len(cs)
		checkDocument(t, s, rec, cs)
	}
	// A zero IndexedAt is set by the store; an empty chunk DocID is the record's.
	before := time.Now().Add(-time.Second)
	rec := record("zero-time", 1, 2)
	cs := chunks("zero-time", 1, 2)
	for i := range cs {
		cs[i].DocID = ""
	}
	put(t, s, rec, cs)
	got, err := s.Document(t.Context(), "zero-time")
	if err != nil {
		t.Fatal(err)
	}
	if got.IndexedAt.Before(before) || got.IndexedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("zero IndexedAt stored as %v, want about now", got.IndexedAt)
	}
	gotChunks, err := s.Chunks(t.Context(), "zero-time")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range gotChunks {
		if c.DocID != "zero-time" {
			t.Errorf("chunk %d DocID %q, want the record's id", c.Index, c.DocID)
		}
	}
	// A document without chunks and without metadata.
	bare := situate.DocumentRecord{ID: "bare", Version: 1}
	put(t, s, bare, nil)
	checkDocument(t, s, bare, nil)
}

func storeNotFound(t *testing.T, s driver.Store, _ func() driver.Store) {
	put(t, s, record("exists", 1, 1), chunks("exists", 1, 1))
	for _, id := range []string{"missing", "exists/", "EXISTS", "exist"} {
		if _, err := s.Document(t.Context(), id); !errors.Is(err, situate.ErrNotFound) {
			t.Errorf("Document(%q): %v, want an error wrapping situate.ErrNotFound", id, err)
		} else if !strings.Contains(err.Error(), id) {
			t.Errorf("Document(%q): %q does not name the document", id, err)
		}
		if _, err := s.Chunks(t.Context(), id); !errors.Is(err, situate.ErrNotFound) {
			t.Errorf("Chunks(%q): %v, want an error wrapping situate.ErrNotFound", id, err)
		}
	}
}

func storeReplace(t *testing.T, s driver.Store, _ func() driver.Store) {
	put(t, s, record("doc", 1, 5), chunks("doc", 1, 5))
	put(t, s, record("other", 1, 3), chunks("other", 1, 3))
	v2 := record("doc", 2, 2)
	v2.Metadata = map[string]string{"only": "this"}
	v2.Access = nil
	put(t, s, v2, chunks("doc", 2, 2))
	checkDocument(t, s, v2, chunks("doc", 2, 2))
	checkDocument(t, s, record("other", 1, 3), chunks("other", 1, 3))
	// Growing again, then to no chunks at all.
	put(t, s, record("doc", 3, 7), chunks("doc", 3, 7))
	checkDocument(t, s, record("doc", 3, 7), chunks("doc", 3, 7))
	put(t, s, record("doc", 4, 0), nil)
	checkDocument(t, s, record("doc", 4, 0), nil)
	docs, err := s.Documents(t.Context())
	if err != nil || len(docs) != 2 {
		t.Fatalf("Documents after replacing: %d, %v; want 2", len(docs), err)
	}
}

func storeDelete(t *testing.T, s driver.Store, _ func() driver.Store) {
	put(t, s, record("a", 1, 3), chunks("a", 1, 3))
	put(t, s, record("b", 1, 2), chunks("b", 1, 2))
	if err := s.DeleteDocument(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Document(t.Context(), "a"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("deleted document: %v, want situate.ErrNotFound", err)
	}
	if _, err := s.Chunks(t.Context(), "a"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("deleted document's chunks: %v, want situate.ErrNotFound", err)
	}
	if err := s.DeleteDocument(t.Context(), "a"); err != nil {
		t.Errorf("deleting again: %v, want nil", err)
	}
	if err := s.DeleteDocument(t.Context(), "never-there"); err != nil {
		t.Errorf("deleting an unknown document: %v, want nil", err)
	}
	checkDocument(t, s, record("b", 1, 2), chunks("b", 1, 2))
	// A deleted id can be put again, from version 1.
	put(t, s, record("a", 1, 1), chunks("a", 1, 1))
	checkDocument(t, s, record("a", 1, 1), chunks("a", 1, 1))
}

func storeOrder(t *testing.T, s driver.Store, _ func() driver.Store) {
	docs, err := s.Documents(t.Context())
	if err != nil || len(docs) != 0 {
		t.Fatalf("empty store: Documents = %d records, %v", len(docs), err)
	}
	ids := []string{"b", "a/b", "a-b", "a", "A", "ä", "z", "中文", "a b", "a\tb", "Z", "10", "9", "a/b/c", "ab", "é", "e\u0301"}
	for i, id := range ids {
		put(t, s, record(id, 1, i%3), chunks(id, 1, i%3))
	}
	docs, err = s.Documents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.ID)
	}
	want := slices.Clone(ids)
	slices.Sort(want) // byte order of UTF-8, which is code point order
	if !slices.Equal(got, want) {
		t.Errorf("Documents order (byte order of the ids)\n got %q\nwant %q", got, want)
	}
	for _, d := range docs {
		sameRecord(t, "Documents "+d.ID, d, record(d.ID, 1, d.Chunks))
	}
	// Chunks come back in index order, however many.
	put(t, s, record("many", 1, 120), chunks("many", 1, 120))
	cs, err := s.Chunks(t.Context(), "many")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		if c.Index != i {
			t.Fatalf("Chunks order: position %d holds chunk %d", i, c.Index)
		}
	}
}

func storeInvalid(t *testing.T, s driver.Store, _ func() driver.Store) {
	put(t, s, record("doc", 1, 2), chunks("doc", 1, 2))
	if err := s.PutDocument(t.Context(), situate.DocumentRecord{Version: 1}, nil); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("empty document ID: %v, want an error wrapping situate.ErrInvalid", err)
	}
	bad := chunks("doc", 2, 3)
	bad[2].DocID = "someone-else"
	if err := s.PutDocument(t.Context(), record("doc", 2, 3), bad); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("a chunk of another document: %v, want an error wrapping situate.ErrInvalid", err)
	}
	// A refused put changes nothing.
	checkDocument(t, s, record("doc", 1, 2), chunks("doc", 1, 2))
	docs, err := s.Documents(t.Context())
	if err != nil || len(docs) != 1 {
		t.Errorf("after refused puts: %d documents, %v; want 1", len(docs), err)
	}
}

// storeCanceled: a put under a canceled context either fails and leaves the
// previous version whole, or stores the new one whole; never a mix.
func storeCanceled(t *testing.T, s driver.Store, _ func() driver.Store) {
	put(t, s, record("doc", 1, 4), chunks("doc", 1, 4))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := s.PutDocument(ctx, record("doc", 2, 9), chunks("doc", 2, 9))
	if err == nil {
		checkDocument(t, s, record("doc", 2, 9), chunks("doc", 2, 9))
	} else {
		checkDocument(t, s, record("doc", 1, 4), chunks("doc", 1, 4))
	}
	if _, err := s.Document(ctx, "doc"); err == nil {
		// Reads under a canceled context may still answer; an error must
		// then not claim the document is missing.
	} else if errors.Is(err, situate.ErrNotFound) {
		t.Errorf("Document under a canceled context: %v claims not found", err)
	}
}

func storeLarge(t *testing.T, s driver.Store, _ func() driver.Store) {
	if testing.Short() {
		t.Skip("large values: skipped with -short")
	}
	big := strings.Repeat("Größe 北京 🌧️ ", 1<<18) // about 5 MB
	rec := record("big", 1, 2)
	rec.Title = big[:1<<16]
	rec.Metadata = map[string]string{}
	for i := range 500 {
		rec.Metadata[fmt.Sprintf("key-%03d", i)] = strings.Repeat("v", i)
	}
	rec.Access = make([]string, 300)
	for i := range rec.Access {
		rec.Access[i] = fmt.Sprintf("user:%d", i)
	}
	cs := chunks("big", 1, 2)
	cs[1].Text = big
	cs[1].End = cs[1].Start + len(big)
	cs[1].Context.Text = big[:1<<20]
	put(t, s, rec, cs)
	checkDocument(t, s, rec, cs)
	many := chunks("many", 1, 3000)
	put(t, s, record("many", 1, 3000), many)
	checkDocument(t, s, record("many", 1, 3000), many)
}

// storeConcurrent: writers replace their own documents and one shared
// document while readers read; every read of the shared document sees one
// whole version.
func storeConcurrent(t *testing.T, s driver.Store, _ func() driver.Store) {
	put(t, s, record("shared", 1, 3), chunks("shared", 1, 3))
	const writers, rounds = 4, 15
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("own-%d", w)
			for r := 1; r <= rounds; r++ {
				n := 1 + (r+w)%6
				if err := s.PutDocument(t.Context(), record(id, r, n), chunks(id, r, n)); err != nil {
					errs <- fmt.Errorf("put %s v%d: %w", id, r, err)
					return
				}
				v := 100*w + r
				if err := s.PutDocument(t.Context(), record("shared", v, 1+v%5), chunks("shared", v, 1+v%5)); err != nil {
					errs <- fmt.Errorf("put shared v%d: %w", v, err)
					return
				}
			}
		}()
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cs, err := s.Chunks(t.Context(), "shared")
				if err != nil {
					errs <- fmt.Errorf("read shared: %w", err)
					return
				}
				if len(cs) == 0 {
					errs <- errors.New("read shared: no chunks")
					return
				}
				version := strings.Fields(cs[0].Text)[0]
				for _, c := range cs {
					if !strings.HasPrefix(c.Text, version+" ") {
						errs <- fmt.Errorf("read shared: chunks of two versions in one read: %q and %q", cs[0].Text, c.Text)
						return
					}
				}
				if _, err := s.Documents(t.Context()); err != nil {
					errs <- fmt.Errorf("documents: %w", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range writers {
		id := fmt.Sprintf("own-%d", w)
		n := 1 + (rounds+w)%6
		checkDocument(t, s, record(id, rounds, n), chunks(id, rounds, n))
	}
}

func storePersist(t *testing.T, s driver.Store, reopen func() driver.Store) {
	ctx := t.Context()
	at := time.Date(2025, 12, 31, 23, 59, 59, 999999000, time.UTC)
	for i, id := range unicodeTexts {
		rec := record(id, i+1, 3)
		rec.IndexedAt = at
		put(t, s, rec, chunks(id, i+1, 3))
	}
	put(t, s, record("gone", 1, 1), chunks("gone", 1, 1))
	if err := s.DeleteDocument(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	meta, hasMeta := s.(driver.MetaStore)
	if hasMeta {
		if err := meta.SetMeta(ctx, "engine.pending", "a\x1fb"); err != nil {
			t.Fatal(err)
		}
	}
	cc, hasCC := s.(driver.ContextCache)
	if hasCC {
		if err := cc.CacheContext(ctx, "k1", situate.Context{Text: "Москва", Source: "s", Flags: []string{"f"}}); err != nil {
			t.Fatal(err)
		}
	}
	vc, hasVC := s.(driver.VectorCache)
	if hasVC {
		if err := vc.CacheVector(ctx, "v1", []float32{1, -2.5, float32(math.Copysign(0, -1))}); err != nil {
			t.Fatal(err)
		}
	}
	s = reopen()
	for i, id := range unicodeTexts {
		rec := record(id, i+1, 3)
		rec.IndexedAt = at
		checkDocument(t, s, rec, chunks(id, i+1, 3))
	}
	if _, err := s.Document(ctx, "gone"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("deleted document after reopen: %v", err)
	}
	docs, err := s.Documents(ctx)
	if err != nil || len(docs) != len(unicodeTexts) {
		t.Errorf("after reopen: %d documents, %v; want %d", len(docs), err, len(unicodeTexts))
	}
	if hasMeta {
		if v, ok, err := s.(driver.MetaStore).Meta(ctx, "engine.pending"); err != nil || !ok || v != "a\x1fb" {
			t.Errorf("meta after reopen: %q %v %v", v, ok, err)
		}
	}
	if hasCC {
		if c, ok, err := s.(driver.ContextCache).CachedContext(ctx, "k1"); err != nil || !ok || c.Text != "Москва" || !slices.Equal(c.Flags, []string{"f"}) {
			t.Errorf("cached context after reopen: %+v %v %v", c, ok, err)
		}
	}
	if hasVC {
		v, ok, err := s.(driver.VectorCache).CachedVector(ctx, "v1")
		if err != nil || !ok || len(v) != 3 || v[1] != -2.5 || !math.Signbit(float64(v[2])) {
			t.Errorf("cached vector after reopen: %v %v %v", v, ok, err)
		}
	}
}

func storeMeta(t *testing.T, s driver.Store, _ func() driver.Store) {
	m, ok := s.(driver.MetaStore)
	if !ok {
		t.Skip("not a situate.MetaStore")
	}
	ctx := t.Context()
	if v, ok, err := m.Meta(ctx, "absent"); err != nil || ok || v != "" {
		t.Errorf("absent key: %q %v %v, want \"\" false nil", v, ok, err)
	}
	big := strings.Repeat("ü", 1<<19)
	for _, kv := range [][2]string{{"k", "v"}, {"empty", ""}, {"ключ 北", "значение\n\x1f"}, {"big", big}, {"k", "replaced"}} {
		if err := m.SetMeta(ctx, kv[0], kv[1]); err != nil {
			t.Fatalf("SetMeta(%q): %v", kv[0], err)
		}
	}
	for k, want := range map[string]string{"k": "replaced", "empty": "", "ключ 北": "значение\n\x1f", "big": big} {
		if v, ok, err := m.Meta(ctx, k); err != nil || !ok || v != want {
			t.Errorf("Meta(%q) = %d bytes, %v, %v; want %d bytes, true", k, len(v), ok, err, len(want))
		}
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				k := fmt.Sprintf("c%d", i)
				if err := m.SetMeta(ctx, k, fmt.Sprint(j)); err != nil {
					t.Error(err)
					return
				}
				if _, _, err := m.Meta(ctx, k); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for i := range 8 {
		if v, _, _ := m.Meta(ctx, fmt.Sprintf("c%d", i)); v != "19" {
			t.Errorf("after concurrent sets: c%d = %q, want 19", i, v)
		}
	}
}

func storeContextCache(t *testing.T, s driver.Store, _ func() driver.Store) {
	c, ok := s.(driver.ContextCache)
	if !ok {
		t.Skip("not a situate.ContextCache")
	}
	ctx := t.Context()
	if got, ok, err := c.CachedContext(ctx, "absent"); err != nil || ok || got.Text != "" {
		t.Errorf("absent key: %+v %v %v", got, ok, err)
	}
	want := map[string]situate.Context{}
	for i, text := range unicodeTexts {
		k := fmt.Sprintf("anthropic/claude/%x/doc%d/chunk%d|%s", i*7919, i, i, text)
		want[k] = situate.Context{Text: text, Source: "ollama:qwen3:4b", Flags: []string{"fallback", text}[:i%3]}
	}
	want["empty-context"] = situate.Context{Source: "offline"}
	want["big"] = situate.Context{Text: strings.Repeat("context ", 1<<16), Source: "s"}
	for k, v := range want {
		if err := c.CacheContext(ctx, k, v); err != nil {
			t.Fatalf("CacheContext(%q): %v", k, err)
		}
	}
	want["empty-context"] = situate.Context{Text: "replaced", Source: "again"}
	if err := c.CacheContext(ctx, "empty-context", want["empty-context"]); err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		got, ok, err := c.CachedContext(ctx, k)
		if err != nil || !ok || got.Text != v.Text || got.Source != v.Source ||
			!(len(got.Flags) == 0 && len(v.Flags) == 0 || slices.Equal(got.Flags, v.Flags)) {
			t.Errorf("CachedContext(%q) = %+v %v %v, want %+v", k, got, ok, err, v)
		}
	}
	concurrently(t, 8, 25, func(i, j int) error {
		k := fmt.Sprintf("c%d-%d", i, j%5)
		if err := c.CacheContext(ctx, k, situate.Context{Text: k, Source: "s"}); err != nil {
			return err
		}
		got, ok, err := c.CachedContext(ctx, k)
		if err != nil || !ok || got.Text != k {
			return fmt.Errorf("CachedContext(%q) right after caching: %+v %v %v", k, got, ok, err)
		}
		return nil
	})
}

func storeVectorCache(t *testing.T, s driver.Store, _ func() driver.Store) {
	c, ok := s.(driver.VectorCache)
	if !ok {
		t.Skip("not a situate.VectorCache")
	}
	ctx := t.Context()
	if got, ok, err := c.CachedVector(ctx, "absent"); err != nil || ok || got != nil {
		t.Errorf("absent key: %v %v %v", got, ok, err)
	}
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, 1e-40, 0.1, 1.0 / 3}
	big := make([]float32, 4096)
	for i := range big {
		big[i] = float32(math.Sin(float64(i))) * 1e3
	}
	want := map[string][]float32{"special": special, "big": big, "one": {42}, "voyage:voyage-3.5/Москва": {1, 2, 3}}
	for k, v := range want {
		if err := c.CacheVector(ctx, k, v); err != nil {
			t.Fatalf("CacheVector(%q): %v", k, err)
		}
	}
	want["one"] = []float32{7, 8, 9, 10} // replaced, with another dimension
	if err := c.CacheVector(ctx, "one", want["one"]); err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		got, ok, err := c.CachedVector(ctx, k)
		if err != nil || !ok || len(got) != len(v) {
			t.Errorf("CachedVector(%q): %d values %v %v, want %d", k, len(got), ok, err, len(v))
			continue
		}
		for i := range v {
			if math.Float32bits(got[i]) != math.Float32bits(v[i]) {
				t.Errorf("CachedVector(%q)[%d] = %v, want %v bit for bit", k, i, got[i], v[i])
				break
			}
		}
	}
	concurrently(t, 8, 25, func(i, j int) error {
		k := fmt.Sprintf("c%d-%d", i, j%5)
		v := []float32{float32(i), float32(j)}
		if err := c.CacheVector(ctx, k, v); err != nil {
			return err
		}
		got, ok, err := c.CachedVector(ctx, k)
		if err != nil || !ok || !slices.Equal(got, v) {
			return fmt.Errorf("CachedVector(%q) right after caching: %v %v %v", k, got, ok, err)
		}
		return nil
	})
}

func storeUsage(t *testing.T, s driver.Store, _ func() driver.Store) {
	r, ok := s.(driver.UsageRecorder)
	if !ok {
		t.Skip("not a situate.UsageRecorder")
	}
	ctx := t.Context()
	for _, u := range []situate.Usage{
		{Time: time.Now(), Provider: "anthropic", Model: "claude-haiku-4-5", Operation: "context", DocID: "Größe/北京.md",
			InputTokens: 1200, CacheWriteTokens: 3000, CacheWrite1hTokens: 3000, CacheReadTokens: 9000, OutputTokens: 80,
			Latency: 1500 * time.Millisecond, Retries: 2, CostUSD: 0.0123},
		{Provider: "voyage", Model: "voyage-3.5", Operation: "embed", Batch: true, Error: "voyage: embed: status 500 http_error: \"quoted\"\n"},
		{}, // a zero record is still a record
	} {
		if err := r.RecordUsage(ctx, u); err != nil {
			t.Errorf("RecordUsage(%+v): %v", u, err)
		}
	}
	concurrently(t, 8, 25, func(i, j int) error {
		return r.RecordUsage(ctx, situate.Usage{Time: time.Now(), Provider: "p", Model: fmt.Sprint(i), Operation: "embed", InputTokens: j})
	})
}

// concurrently runs f(i, j) for j < rounds on each of n goroutines and
// reports every error.
func concurrently(t *testing.T, n, rounds int, f func(i, j int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range rounds {
				if err := f(i, j); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
