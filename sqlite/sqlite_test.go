package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/sqlite"

	_ "modernc.org/sqlite"
)

// MustOpen opens a new store in a temporary directory, closed at the end of
// the test.
func MustOpen(tb testing.TB) *sqlite.Store {
	tb.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "situate.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// makeDoc builds a document whose chunks all carry version v in their text,
// so a reader can tell whether it sees one whole version. The chunk count
// depends on v, so a mix of versions also shows in the count.
func makeDoc(id string, v int) (situate.DocumentRecord, []situate.StoredChunk) {
	n := 1 + v%17
	var text strings.Builder
	chunks := make([]situate.StoredChunk, n)
	for i := range chunks {
		start := text.Len()
		fmt.Fprintf(&text, "%s v%d chunk %d. ", id, v, i)
		chunks[i] = situate.StoredChunk{
			Chunk: situate.Chunk{
				DocID: id, Index: i, Start: start, End: text.Len(),
				Heading: fmt.Sprintf("H%d", i), Tokens: 5,
			},
			Context: situate.Context{Text: fmt.Sprintf("ctx %s v%d", id, v), Source: "offline"},
		}
	}
	doc := situate.Document{ID: id, Title: "Title " + id, Text: text.String(), Format: situate.FormatText, Lang: "en"}
	for i := range chunks {
		chunks[i].Text = doc.Text[chunks[i].Start:chunks[i].End]
	}
	rec := situate.DocumentRecord{ID: id, Title: doc.Title, Format: doc.Format, Lang: "en", Hash: doc.Hash(), Version: v}
	return rec, chunks
}

// checkWhole fails unless the stored chunks of id are exactly one version
// as built by makeDoc, matching the record.
func checkWhole(t testing.TB, rec situate.DocumentRecord, chunks []situate.StoredChunk) {
	t.Helper()
	_, want := makeDoc(rec.ID, rec.Version)
	if rec.Chunks != len(chunks) {
		t.Fatalf("%s: record v%d says %d chunks, store has %d", rec.ID, rec.Version, rec.Chunks, len(chunks))
	}
	if len(chunks) != len(want) {
		t.Fatalf("%s: v%d has %d chunks, want %d", rec.ID, rec.Version, len(chunks), len(want))
	}
	for i := range chunks {
		if chunks[i].Text != want[i].Text || chunks[i].Context.Text != want[i].Context.Text {
			t.Fatalf("%s: record v%d, chunk %d is %q / %q", rec.ID, rec.Version, i, chunks[i].Text, chunks[i].Context.Text)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	doc := situate.Document{
		ID: "a/b.md", Title: "Bericht", Text: "# Umsatz\n\nDer Umsatz stieg um 3 %.", Format: situate.FormatMarkdown,
		Path: "/data/a/b.md", Metadata: map[string]string{"team": "finance", "year": "2024"},
		Access: []string{"group:finance", "user:ann"},
	}
	chunks := []situate.StoredChunk{
		{Chunk: situate.Chunk{DocID: doc.ID, Index: 0, Start: 0, End: 8, Text: doc.Text[0:8], Heading: "Umsatz", Tokens: 3},
			Context: situate.Context{Text: "Aus Bericht, Abschnitt Umsatz.", Source: "offline"}},
		{Chunk: situate.Chunk{DocID: doc.ID, Index: 1, Start: 10, End: len(doc.Text), Text: doc.Text[10:], Heading: "Umsatz", Tokens: 9},
			Context: situate.Context{Text: "Der Umsatz von ACME 2024.", Source: "anthropic:claude-haiku-4-5", Flags: []string{"unknown-number:3"}}},
	}
	rec0 := situate.DocumentRecord{ID: doc.ID, Title: doc.Title, Format: doc.Format, Lang: "de", Path: doc.Path,
		Hash: doc.Hash(), Metadata: doc.Metadata, Access: doc.Access, Version: 1, Chunks: 99}
	before := time.Now()
	if err := s.PutDocument(ctx, rec0, chunks); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Document(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.IndexedAt.Before(before.Add(-time.Second)) || rec.IndexedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("IndexedAt = %v, want about %v", rec.IndexedAt, before)
	}
	rec.IndexedAt = time.Time{}
	want := rec0
	want.Chunks = 2 // the store counts the chunks it was given
	if !reflect.DeepEqual(rec, want) {
		t.Errorf("Document:\n got %+v\nwant %+v", rec, want)
	}
	got, err := s.Chunks(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, chunks) {
		t.Errorf("Chunks:\n got %+v\nwant %+v", got, chunks)
	}
	docs, err := s.Documents(ctx)
	if err != nil || len(docs) != 1 || docs[0].ID != doc.ID {
		t.Errorf("Documents = %+v, %v", docs, err)
	}

	// Caches.
	c := situate.Context{Text: "ctx", Source: "openai:gpt", Flags: []string{"fallback"}}
	if err := s.CacheContext(ctx, "k1", c); err != nil {
		t.Fatal(err)
	}
	if gc, ok, err := s.CachedContext(ctx, "k1"); err != nil || !ok || !reflect.DeepEqual(gc, c) {
		t.Errorf("CachedContext = %+v, %v, %v", gc, ok, err)
	}
	if _, ok, err := s.CachedContext(ctx, "missing"); ok || err != nil {
		t.Errorf("CachedContext(missing) = %v, %v", ok, err)
	}
	vec := []float32{1, -0.5, float32(math.Pi), float32(math.Inf(1)), 0}
	if err := s.CacheVector(ctx, "v1", vec); err != nil {
		t.Fatal(err)
	}
	if gv, ok, err := s.CachedVector(ctx, "v1"); err != nil || !ok || !reflect.DeepEqual(gv, vec) {
		t.Errorf("CachedVector = %v, %v, %v", gv, ok, err)
	}
	if _, ok, err := s.CachedVector(ctx, "missing"); ok || err != nil {
		t.Errorf("CachedVector(missing) = %v, %v", ok, err)
	}
	if err := s.CacheVector(ctx, "empty", nil); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("CacheVector(empty) = %v, want ErrInvalid", err)
	}

	// Meta.
	if err := s.SetMeta(ctx, "bm25.version", "3"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMeta(ctx, "bm25.version", "4"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Meta(ctx, "bm25.version"); err != nil || !ok || v != "4" {
		t.Errorf("Meta = %q, %v, %v", v, ok, err)
	}
	if _, ok, err := s.Meta(ctx, "nope"); ok || err != nil {
		t.Errorf("Meta(nope) = %v, %v", ok, err)
	}

	// Stats.
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 1 || st.Chunks != 2 || st.DocumentsByLang["de"] != 1 || st.ChunksByLang["de"] != 2 ||
		st.ContextsBySource["offline"] != 1 || st.ContextsBySource["anthropic:claude-haiku-4-5"] != 1 ||
		st.FlaggedContexts != 1 || st.CachedContexts != 1 || st.CachedVectors != 1 || st.FileBytes <= 0 {
		t.Errorf("Stats = %+v", st)
	}

	// Delete cascades to chunks.
	if err := s.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDocument(ctx, doc.ID); err != nil {
		t.Errorf("deleting an unknown document: %v", err)
	}
	if _, err := s.Document(ctx, doc.ID); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("Document after delete = %v, want ErrNotFound", err)
	}
	if _, err := s.Chunks(ctx, doc.ID); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("Chunks after delete = %v, want ErrNotFound", err)
	}
	if st, _ := s.Stats(ctx); st.Chunks != 0 {
		t.Errorf("%d chunks left after delete", st.Chunks)
	}
}

func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub dir?#%", "s.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	doc, chunks := makeDoc("d", 5)
	if err := s.PutDocument(ctx, doc, chunks); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("store file not at the path given: %v", err)
	}
	s, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := s.Document(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Chunks(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	checkWhole(t, rec, got)
}

func TestReplaceRemovesOldChunks(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	doc, chunks := makeDoc("d", 16) // 17 chunks
	if err := s.PutDocument(ctx, doc, chunks); err != nil {
		t.Fatal(err)
	}
	other, otherChunks := makeDoc("other", 3)
	if err := s.PutDocument(ctx, other, otherChunks); err != nil {
		t.Fatal(err)
	}
	doc, chunks = makeDoc("d", 18) // 2 chunks
	if err := s.PutDocument(ctx, doc, chunks); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Document(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 18 {
		t.Errorf("version = %d, want 18", rec.Version)
	}
	got, err := s.Chunks(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	checkWhole(t, rec, got)
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 + len(otherChunks); st.Chunks != want {
		t.Errorf("store holds %d chunks, want %d: old ones survived the replace", st.Chunks, want)
	}
	// A failing put (chunk out of order) leaves the previous version whole.
	bad, badChunks := makeDoc("d", 20)
	badChunks[3].Index = 7
	if err := s.PutDocument(ctx, bad, badChunks); !errors.Is(err, situate.ErrInvalid) {
		t.Fatalf("out-of-order put = %v, want ErrInvalid", err)
	}
	// A put whose context is cancelled changes nothing either.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.PutDocument(cctx, bad, badChunks[:3]); err == nil {
		t.Fatal("put with a cancelled context succeeded")
	}
	rec, _ = s.Document(ctx, "d")
	got, _ = s.Chunks(ctx, "d")
	checkWhole(t, rec, got)
	if rec.Version != 18 {
		t.Errorf("failed puts changed the version to %d", rec.Version)
	}
}

func TestPutDocumentInvalid(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	rec, chunks := makeDoc("d", 3)
	v0 := rec
	v0.Version = 0
	for name, tc := range map[string]struct {
		rec    situate.DocumentRecord
		chunks []situate.StoredChunk
		want   string
	}{
		"empty id":      {situate.DocumentRecord{Version: 1}, nil, "document ID is empty"},
		"version 0":     {v0, chunks, "version 0"},
		"foreign chunk": {rec, []situate.StoredChunk{{Chunk: situate.Chunk{DocID: "x"}}}, `DocID "x"`},
		"bad span":      {rec, []situate.StoredChunk{{Chunk: situate.Chunk{Start: 5, End: 2}}}, "span [5,2)"},
	} {
		t.Run(name, func(t *testing.T) {
			err := s.PutDocument(ctx, tc.rec, tc.chunks)
			if !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), s.Path()) {
				t.Errorf("got %v, want ErrInvalid naming %q and the path", err, tc.want)
			}
		})
	}
}

func TestStoreTooNew(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "new.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	future := sqlite.SchemaVersion() + 5
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", future)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqlite.Open(ctx, path)
	if !errors.Is(err, situate.ErrStoreTooNew) {
		t.Fatalf("Open = %v, want ErrStoreTooNew", err)
	}
	for _, want := range []string{path, fmt.Sprint(future), fmt.Sprint(sqlite.SchemaVersion())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestOpenForeignFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	notDB := filepath.Join(dir, "notes.txt")
	os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 200)), 0o644)
	if _, err := sqlite.Open(ctx, notDB); err == nil || !strings.Contains(err.Error(), notDB) {
		t.Errorf("Open(text file) = %v, want an error naming the file", err)
	}

	other := filepath.Join(dir, "other.db")
	db, _ := sql.Open("sqlite", other)
	if _, err := db.Exec("CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := sqlite.Open(ctx, other); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("Open(other app's db) = %v, want ErrInvalid", err)
	}

	if _, err := sqlite.Open(ctx, filepath.Join(dir, "missing", "dir", "s.db")); err == nil {
		t.Error("Open in a missing directory succeeded")
	}
}

func TestUsageSummary(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	// Old call, excluded by since.
	if err := s.RecordUsage(ctx, situate.Usage{Time: t0.Add(-time.Hour), Provider: "anthropic", Model: "haiku",
		Operation: "context", InputTokens: 1000, Latency: time.Hour}); err != nil {
		t.Fatal(err)
	}
	// 100 context calls with latencies 1..100 ms, every 10th failed.
	for i := 1; i <= 100; i++ {
		u := situate.Usage{Time: t0.Add(time.Duration(i) * time.Second), Provider: "anthropic", Model: "haiku",
			Operation: "context", DocID: "d", InputTokens: 10, CacheWriteTokens: 100, CacheReadTokens: 1000,
			OutputTokens: 50, Latency: time.Duration(i) * time.Millisecond, CostUSD: 0.001}
		if i%10 == 0 {
			u.Error = "429 rate limited"
			u.Retries = 3
		}
		if err := s.RecordUsage(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordUsage(ctx, situate.Usage{Time: t0.Add(time.Minute), Provider: "openai", Model: "text-embedding-3-small",
		Operation: "embed", InputTokens: 500, Latency: 7 * time.Millisecond, CostUSD: 0.01}); err != nil {
		t.Fatal(err)
	}
	sum, err := s.UsageSummary(ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Groups) != 2 {
		t.Fatalf("groups = %+v", sum.Groups)
	}
	g := sum.Groups[0]
	if g.Provider != "anthropic" || g.Model != "haiku" || g.Operation != "context" {
		t.Errorf("first group = %s/%s/%s", g.Provider, g.Model, g.Operation)
	}
	want := sqlite.UsageTotals{Calls: 100, Errors: 10, Retries: 30, InputTokens: 1000, CacheWriteTokens: 10000,
		CacheReadTokens: 100000, OutputTokens: 5000, LatencyP50: 50 * time.Millisecond,
		LatencyP95: 95 * time.Millisecond, LatencyP99: 99 * time.Millisecond}
	gotTotals := g.UsageTotals
	if math.Abs(gotTotals.CostUSD-0.1) > 1e-9 {
		t.Errorf("cost = %v, want 0.1", gotTotals.CostUSD)
	}
	gotTotals.CostUSD = 0
	if gotTotals != want {
		t.Errorf("anthropic totals:\n got %+v\nwant %+v", gotTotals, want)
	}
	if sum.Total.Calls != 101 || sum.Total.InputTokens != 1500 || sum.Groups[1].LatencyP99 != 7*time.Millisecond {
		t.Errorf("total = %+v, embed = %+v", sum.Total, sum.Groups[1])
	}
	all, err := s.UsageSummary(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// 102 calls: 1..100 ms, 7 ms and one hour; nearest rank 101 is 100 ms.
	if all.Total.Calls != 102 || all.Total.InputTokens != 2500 || all.Total.LatencyP99 != 100*time.Millisecond {
		t.Errorf("summary since zero: %+v", all.Total)
	}
}

// TestConcurrentReadersWhileWriting runs readers beside a writer that keeps
// replacing documents; every read must see one whole version. Run with -race.
func TestConcurrentReadersWhileWriting(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	ids := []string{"a", "b", "c"}
	for _, id := range ids {
		doc, chunks := makeDoc(id, 1)
		if err := s.PutDocument(ctx, doc, chunks); err != nil {
			t.Fatal(err)
		}
	}
	var (
		done  atomic.Bool
		reads atomic.Int64
		wg    sync.WaitGroup
	)
	for r := range 4 {
		wg.Go(func() {
			for i := 0; !done.Load(); i++ {
				id := ids[(i+r)%len(ids)]
				got, err := s.Chunks(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				// The chunks name their version; rebuild the record from it.
				var v int
				if _, err := fmt.Sscanf(got[0].Context.Text, "ctx "+id+" v%d", &v); err != nil {
					t.Errorf("chunk context %q: %v", got[0].Context.Text, err)
					return
				}
				checkWhole(t, situate.DocumentRecord{ID: id, Version: v, Chunks: len(got)}, got)
				if _, err := s.Stats(ctx); err != nil {
					t.Error(err)
					return
				}
				reads.Add(1)
			}
		})
	}
	for v := 2; v <= 150; v++ {
		for _, id := range ids {
			doc, chunks := makeDoc(id, v)
			if err := s.PutDocument(ctx, doc, chunks); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.RecordUsage(ctx, situate.Usage{Provider: "p", Model: "m", Operation: "context"}); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	wg.Wait()
	if reads.Load() == 0 {
		t.Error("readers made no progress while the writer ran")
	}
	t.Logf("%d consistent reads during 450 writes", reads.Load())
}

const crashEnv = "SITUATE_SQLITE_CRASH_CHILD"

// TestCrashChild is the child half of TestCrashLeavesWholeVersions: it keeps
// replacing documents until it is killed.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("child process of TestCrashLeavesWholeVersions")
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	start := 1
	recs, err := s.Documents(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for _, rec := range recs {
		start = max(start, rec.Version+1)
	}
	fmt.Println("ready")
	for v := start; ; v++ {
		for _, id := range []string{"x", "y"} {
			doc, chunks := makeDoc(id, v)
			if err := s.PutDocument(ctx, doc, chunks); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(4)
			}
		}
	}
}

// TestCrashLeavesWholeVersions SIGKILLs a child process that is replacing
// documents at random moments and checks, after every kill, that reopening
// the store shows only whole versions.
func TestCrashLeavesWholeVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crash.db")
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	const trials = 5
	lastMax := 0
	for trial := range trials {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 6)
		if _, err := stdout.Read(buf); err != nil || string(buf) != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("trial %d: child did not start: %q %v; stderr: %s", trial, buf, err, stderr.String())
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if strings.TrimSpace(stderr.String()) != "" {
			t.Fatalf("trial %d: child failed: %s", trial, stderr.String())
		}

		s, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatalf("trial %d: reopen after SIGKILL: %v", trial, err)
		}
		recs, err := s.Documents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		maxV := 0
		for _, rec := range recs {
			chunks, err := s.Chunks(ctx, rec.ID)
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			checkWhole(t, rec, chunks)
			maxV = max(maxV, rec.Version)
		}
		var check string
		db, _ := sql.Open("sqlite", path)
		if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Errorf("trial %d: integrity_check = %q, %v", trial, check, err)
		}
		db.Close()
		s.Close()
		if maxV <= lastMax {
			t.Errorf("trial %d: child made no progress (version %d, before %d)", trial, maxV, lastMax)
		}
		t.Logf("trial %d: killed at version %d; %d documents whole", trial, maxV, len(recs))
		lastMax = maxV
	}
}

// TestPutDocumentsAllOrNone: PutDocuments stores a batch in one
// transaction: when the database refuses one document (here a trigger),
// none of the batch is stored, and the documents stored before keep their
// versions.
func TestPutDocumentsAllOrNone(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "situate.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a1, a1chunks := makeDoc("a", 1) // version v has 1+v chunks
	if err := s.PutDocument(ctx, a1, a1chunks); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE TRIGGER refuse_c BEFORE INSERT ON documents WHEN NEW.id = 'c' BEGIN SELECT RAISE(ABORT, 'no c here'); END`); err != nil {
		t.Fatal(err)
	}
	a2, a2chunks := makeDoc("a", 2)
	b, bchunks := makeDoc("b", 1)
	c, cchunks := makeDoc("c", 1)
	err = s.PutDocuments(ctx, []driver.DocumentPut{{Record: a2, Chunks: a2chunks}, {Record: b, Chunks: bchunks}, {Record: c, Chunks: cchunks}})
	if err == nil || !strings.Contains(err.Error(), "no c here") || !strings.Contains(err.Error(), `"c"`) {
		t.Fatalf("PutDocuments with c refused: %v, want the refusal naming c", err)
	}
	if rec, err := s.Document(ctx, "a"); err != nil || rec.Version != 1 || rec.Chunks != 2 {
		t.Errorf("a after the failed batch: %+v, %v; want version 1 with 2 chunks", rec, err)
	}
	if chunks, err := s.Chunks(ctx, "a"); err != nil || len(chunks) != 2 {
		t.Errorf("a's chunks after the failed batch: %d, %v; want 2", len(chunks), err)
	}
	if _, err := s.Document(ctx, "b"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("b after the failed batch: %v, want not found", err)
	}
	if err := s.PutDocuments(ctx, []driver.DocumentPut{{Record: a2, Chunks: a2chunks}, {Record: b, Chunks: bchunks}}); err != nil {
		t.Fatal(err)
	}
	if rec, err := s.Document(ctx, "a"); err != nil || rec.Version != 2 || rec.Chunks != 3 {
		t.Errorf("a after the batch: %+v, %v; want version 2 with 3 chunks", rec, err)
	}
}
