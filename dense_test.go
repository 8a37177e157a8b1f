package situate_test

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// hashEmbedder is a deterministic stand-in for an embedding model: a hashed
// bag of lowercased words, normalised. Similar texts get similar vectors.
type hashEmbedder struct {
	dim   int
	calls int
	// wrongCount makes it return one vector too few, like a broken provider.
	wrongCount bool
}

func (h *hashEmbedder) Name() string { return "test:hash" }

func (h *hashEmbedder) Embed(_ context.Context, texts []string, _ driver.InputType) ([][]float32, error) {
	h.calls++
	out := make([][]float32, 0, len(texts))
	for _, t := range texts {
		v := make([]float32, h.dim)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			f := fnv.New32a()
			f.Write([]byte(strings.Trim(w, ".,:;!?")))
			v[f.Sum32()%uint32(h.dim)]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for i := range v {
				v[i] /= float32(math.Sqrt(n))
			}
		}
		out = append(out, v)
	}
	if h.wrongCount && len(out) > 0 {
		out = out[:len(out)-1]
	}
	return out, nil
}

// overlapReranker scores by the number of query words in the text.
type overlapReranker struct{ fail bool }

func (r *overlapReranker) Name() string { return "test:overlap" }

func (r *overlapReranker) Rerank(_ context.Context, query string, texts []string) ([]float64, error) {
	if r.fail {
		return nil, errors.New("reranker down")
	}
	q := strings.Fields(strings.ToLower(query))
	out := make([]float64, len(texts))
	for i, t := range texts {
		for _, w := range q {
			if strings.Contains(strings.ToLower(t), w) {
				out[i]++
			}
		}
	}
	return out, nil
}

func openTestEngine(t *testing.T, dir string, opts situate.Options) (*situate.Engine, *sqlite.Store) {
	t.Helper()
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "situate.db"))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := situate.Open(context.Background(), dir, store, opts)
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(); store.Close() })
	return eng, store
}

var denseDocs = []situate.Document{
	{ID: "ferry.md", Title: "Marlow ferry", Format: situate.FormatMarkdown, Lang: "en",
		Text: "# Marlow ferry\n\nThe Marlow ferry crosses the sound every hour.\n\n## Winter\n\nIn winter the crossing carries twelve cars.\n", Access: []string{"staff"}},
	{ID: "bakery.md", Title: "Calder bakery", Format: situate.FormatMarkdown, Lang: "en",
		Text: "# Calder bakery\n\nThe Calder bakery sells rye bread.\n\n## Ovens\n\nThe ovens burn beech wood every morning.\n"},
}

func TestHybridSearchDenseArmFusionRerank(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := situate.DefaultOptions()
	opts.ChunkSize, opts.ChunkOverlap = 16, 0
	opts.Contextualizer = offline.New(offline.DefaultOptions())
	emb := &hashEmbedder{dim: 64}
	opts.Embedder = emb
	opts.Reranker = &overlapReranker{}
	eng, _ := openTestEngine(t, dir, opts)
	for _, d := range denseDocs {
		if _, err := eng.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, mode := range []string{situate.ModeBM25, situate.ModeDense, situate.ModeHybrid} {
		hits, err := eng.Search(ctx, situate.Query{Text: "Marlow winter cars", K: 1, Mode: mode, Explain: true})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(hits) != 1 || hits[0].DocID != "ferry.md" || !strings.Contains(hits[0].Text, "twelve cars") {
			t.Fatalf("%s: got %+v", mode, hits)
		}
		x := hits[0].Explain
		if mode != situate.ModeDense && x.Arm("lexical").Rank != 1 || mode != situate.ModeBM25 && x.Arm("dense").Rank == 0 {
			t.Errorf("%s: explanation %+v", mode, x)
		}
	}
	// Reranked: the reranker's order decides, and its score is explained.
	hits, err := eng.Search(ctx, situate.Query{Text: "beech wood ovens", K: 2, Rerank: true, Explain: true})
	if err != nil || len(hits) == 0 || hits[0].DocID != "bakery.md" || !hits[0].Explain.Reranked {
		t.Fatalf("rerank: %v %+v", err, hits)
	}
	// Access rights restrict the dense arm too.
	hits, err = eng.Search(ctx, situate.Query{Text: "Marlow ferry crossing", K: 5, Mode: situate.ModeDense,
		Filter: situate.Filter{Principals: []string{"guest"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.DocID == "ferry.md" {
			t.Fatalf("dense arm returned a document the principal may not see: %+v", h)
		}
	}
}

func TestRerankFailureKeepsFusedOrder(t *testing.T) {
	ctx := context.Background()
	opts := situate.DefaultOptions()
	opts.Embedder = &hashEmbedder{dim: 32}
	opts.Reranker = &overlapReranker{fail: true}
	eng, _ := openTestEngine(t, t.TempDir(), opts)
	for _, d := range denseDocs {
		if _, err := eng.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	plain, err := eng.Search(ctx, situate.Query{Text: "bakery rye bread", K: 2})
	if err != nil {
		t.Fatal(err)
	}
	reranked, err := eng.Search(ctx, situate.Query{Text: "bakery rye bread", K: 2, Rerank: true})
	if err != nil || len(reranked) != len(plain) || len(plain) == 0 {
		t.Fatalf("failed reranker: %v, %d hits vs %d", err, len(reranked), len(plain))
	}
	for i := range plain {
		if plain[i].DocID != reranked[i].DocID || plain[i].Chunk != reranked[i].Chunk {
			t.Fatalf("failed reranker changed the order: %+v vs %+v", reranked, plain)
		}
	}
}

func TestEmbedderWrongVectorCountLeavesIndexUntouched(t *testing.T) {
	ctx := context.Background()
	opts := situate.DefaultOptions()
	emb := &hashEmbedder{dim: 16}
	opts.Embedder = emb
	eng, store := openTestEngine(t, t.TempDir(), opts)
	if _, err := eng.Put(ctx, denseDocs[0]); err != nil {
		t.Fatal(err)
	}
	emb.wrongCount = true
	changed := denseDocs[0]
	changed.Text += "\nA new paragraph about the harbour.\n"
	_, err := eng.Put(ctx, changed)
	if err == nil || !strings.Contains(err.Error(), "test:hash") || !strings.Contains(err.Error(), "ferry.md") {
		t.Fatalf("wrong vector count: err = %v, want one naming the embedder and document", err)
	}
	rec, err := store.Document(ctx, "ferry.md")
	if err != nil || rec.Version != 1 {
		t.Fatalf("failed put changed the store: %+v %v", rec, err)
	}
	hits, err := eng.Search(ctx, situate.Query{Text: "harbour", K: 3, Mode: situate.ModeBM25})
	if err != nil || len(hits) != 0 {
		t.Fatalf("half-written document reached the index: %+v %v", hits, err)
	}
}

func TestEmbedShortenedNeverSilent(t *testing.T) {
	ctx := context.Background()
	opts := situate.DefaultOptions()
	opts.Contextualizer = offline.New(offline.DefaultOptions())
	opts.Embedder = &hashEmbedder{dim: 16}
	opts.EmbedMaxTokens = 12
	eng, _ := openTestEngine(t, t.TempDir(), opts)
	if _, err := eng.Put(ctx, denseDocs[1]); err != nil {
		t.Fatal(err)
	}
	chunks, err := eng.Chunks(ctx, "bakery.md")
	if err != nil {
		t.Fatal(err)
	}
	flagged := 0
	for _, c := range chunks {
		for _, f := range c.Context.Flags {
			if f == situate.FlagEmbedShortened {
				flagged++
			}
		}
	}
	if flagged == 0 {
		t.Fatalf("no chunk flagged %s with a 12-token embedding limit: %+v", situate.FlagEmbedShortened, chunks)
	}
}

func TestLostIndexIsRebuiltFromStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := situate.DefaultOptions()
	eng, store := openTestEngine(t, dir, opts)
	for _, d := range denseDocs {
		if _, err := eng.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	eng.Close()
	if err := os.RemoveAll(filepath.Join(dir, "bm25")); err != nil {
		t.Fatal(err)
	}
	eng2, err := situate.Open(ctx, dir, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	hits, err := eng2.Search(ctx, situate.Query{Text: "Calder bakery rye", K: 1})
	if err != nil || len(hits) != 1 || hits[0].DocID != "bakery.md" {
		t.Fatalf("after losing the index directory: %v %+v", err, hits)
	}
}
