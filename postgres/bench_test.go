package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/situate/situate"
	"github.com/situate/situate/postgres"
)

// The benchmarks run against the test server, which runs with fsync off:
// they measure the store's work and the round trips, not the disk.

func benchStore(b *testing.B) *postgres.Store {
	s, err := postgres.Open(context.Background(), postgres.NewTestDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func benchChunks(id string, n int) []situate.StoredChunk {
	text := strings.Repeat("lorem ipsum dolor sit amet ", 30*n)
	size := len(text) / n
	out := make([]situate.StoredChunk, n)
	for i := range out {
		out[i] = situate.StoredChunk{
			Chunk: situate.Chunk{DocID: id, Index: i, Start: i * size, End: (i + 1) * size,
				Text: text[i*size : (i+1)*size], Heading: "Intro > Part", Tokens: 200},
			Context: situate.Context{Text: strings.Repeat("context words here ", 20), Source: "offline"},
		}
	}
	return out
}

// BenchmarkPutDocument replaces one document of n chunks of ~800 bytes per
// iteration (the SQLite store's benchmark of the same name).
func BenchmarkPutDocument(b *testing.B) {
	for _, n := range []int{1, 20, 100} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			s := benchStore(b)
			chunks := benchChunks("bench/doc.md", n)
			rec := situate.DocumentRecord{ID: "bench/doc.md", Title: "Bench", Lang: "en"}
			b.ReportAllocs()
			for b.Loop() {
				rec.Version++
				if err := s.PutDocument(context.Background(), rec, chunks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkChunks(b *testing.B) {
	s := benchStore(b)
	if err := s.PutDocument(context.Background(), situate.DocumentRecord{ID: "d", Version: 1}, benchChunks("d", 16)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Chunks(context.Background(), "d"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCachedContext(b *testing.B) {
	s := benchStore(b)
	if err := s.CacheContext(context.Background(), "k", situate.Context{Text: "a context", Source: "s"}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := s.CachedContext(context.Background(), "k"); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkClaimAndFinishJob is the queue's coordination cost per job: one
// claim and one final update.
func BenchmarkClaimAndFinishJob(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	for i := range b.N + 100 {
		if _, _, err := s.EnqueueJob(ctx, fmt.Sprintf("d%d", i), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	b.ReportAllocs()
	for range b.N {
		j, ok, err := s.ClaimJob(ctx, time.Minute)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		j.State, j.FinishedAt = situate.JobDone, time.Now()
		if err := s.UpdateJob(ctx, j, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSync is what a server over a shared store pays every sync
// interval (situate.Engine.Sync): docs=N with nothing changed reads the
// store's change stamp alone; changed=10 adds ten documents another
// process committed (the document list, then their chunks).
func BenchmarkSync(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		s := benchStore(b)
		ctx := context.Background()
		for i := range n {
			id := fmt.Sprintf("d%06d", i)
			if err := s.PutDocument(ctx, situate.DocumentRecord{ID: id, Title: id, Hash: "h", Version: 1, Metadata: map[string]string{"team": "a"}}, benchChunks(id, 1)); err != nil {
				b.Fatal(err)
			}
		}
		o := situate.DefaultOptions()
		o.SharedStore = true
		e, err := situate.Open(ctx, b.TempDir(), s, o)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("docs=%d/changed=0", n), func(b *testing.B) {
			for range b.N {
				if res, err := e.Sync(ctx); err != nil || res.Indexed != 0 {
					b.Fatal(res, err)
				}
			}
		})
		// What a server pays before each request (httpapi): one read of
		// the change stamp, no lock.
		b.Run(fmt.Sprintf("docs=%d/if-changed=0", n), func(b *testing.B) {
			for range b.N {
				if res, err := e.SyncIfChanged(ctx); err != nil || res.Indexed != 0 {
					b.Fatal(res, err)
				}
			}
		})
		version := 1
		b.Run(fmt.Sprintf("docs=%d/changed=10", n), func(b *testing.B) {
			for range b.N {
				version++
				b.StopTimer()
				for j := range 10 {
					id := fmt.Sprintf("d%06d", j)
					if err := s.PutDocument(ctx, situate.DocumentRecord{ID: id, Title: id, Hash: "h", Version: version}, benchChunks(id, 1)); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if res, err := e.Sync(ctx); err != nil || res.Indexed != 10 {
					b.Fatal(res, err)
				}
			}
		})
		e.Close()
	}
}

// BenchmarkOpenShared is what a server or command pays to open a shared
// store whose local indexes are up to date (a restart, or `situate search
// --store-url` on a machine that searched before) and run one search:
// docs=N documents of one chunk each, nothing changed since the indexes
// were last synced.
func BenchmarkOpenShared(b *testing.B) {
	for _, n := range []int{10000, 50000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			url := postgres.NewTestDatabase(b)
			s, err := postgres.Open(context.Background(), url)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			bulkLoad(b, url, n)
			o := situate.DefaultOptions()
			o.SharedStore = true
			dir := b.TempDir()
			e, err := situate.Open(ctx, dir, s, o) // builds the local indexes
			if err != nil {
				b.Fatal(err)
			}
			e.Close()
			b.ReportAllocs()
			for b.Loop() {
				e, err := situate.Open(ctx, dir, s, o)
				if err != nil {
					b.Fatal(err)
				}
				if hits, err := e.Search(ctx, situate.Query{Text: "lorem", K: 3}); err != nil || len(hits) != 3 {
					b.Fatal(len(hits), err)
				}
				e.Close()
			}
		})
	}
}

// bulkLoad writes n documents of one chunk each straight into the tables
// (COPY: a benchmark's setup, not the store's write path), as one change.
func bulkLoad(b *testing.B, url string, n int) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	docs := make([][]any, n)
	chunks := make([][]any, n)
	for i := range n {
		id := []byte(fmt.Sprintf("d%06d", i))
		c := benchChunks(string(id), 1)[0]
		docs[i] = []any{id, id, []byte("markdown"), []byte("en"), []byte(""), []byte("h/x"), "{}", "[]", 1, 1, time.Now().UnixNano(), int64(1)}
		chunks[i] = []any{id, 0, c.Start, c.End, []byte(c.Text), []byte(c.Heading), c.Tokens, []byte(c.Context.Text), []byte(c.Context.Source), "[]"}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"documents"}, []string{"id", "title", "format", "lang", "path", "hash",
		"metadata", "access", "version", "chunks", "indexed_at", "change_n"}, pgx.CopyFromRows(docs)); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"chunks"}, []string{"doc_id", "idx", "start", "end", "text", "heading",
		"tokens", "context_text", "context_source", "context_flags"}, pgx.CopyFromRows(chunks)); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE doc_changes SET n = 1 WHERE id = 1`); err != nil {
		b.Fatal(err)
	}
}
