package situate_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/situate/situate"
)

func TestOptionsValidateNamesTheField(t *testing.T) {
	if err := situate.DefaultOptions().Validate(); err != nil {
		t.Fatalf("default options: %v", err)
	}
	for _, tc := range []struct {
		field string
		set   func(*situate.Options)
	}{
		{"ChunkSize", func(o *situate.Options) { o.ChunkSize = 0 }},
		{"ChunkOverlap", func(o *situate.Options) { o.ChunkOverlap = o.ChunkSize }},
		{"BM25K1", func(o *situate.Options) { o.BM25K1 = -1 }},
		{"BM25B", func(o *situate.Options) { o.BM25B = 1.5 }},
		{"CompoundWeight", func(o *situate.Options) { o.CompoundWeight = -1 }},
		{"ContextWeight", func(o *situate.Options) { o.ContextWeight = -1 }},
		{"CodeArmWeight", func(o *situate.Options) { o.CodeArmWeight = -1 }},
		{"CodeK1/CodeB", func(o *situate.Options) { o.CodeB = 2 }},
		{"PairArmWeight", func(o *situate.Options) { o.PairArmWeight = -1 }},
		{"PairK1/PairB", func(o *situate.Options) { o.PairK1 = -1 }},
		{"DocumentWeight", func(o *situate.Options) { o.DocumentWeight = -1 }},
		{"Fusion", func(o *situate.Options) { o.Fusion = "borda" }},
		{"DenseWeight/LexicalWeight", func(o *situate.Options) { o.LexicalWeight = -1 }},
		{"RerankCandidates", func(o *situate.Options) { o.RerankCandidates = 0 }},
		{"EmbedMaxTokens", func(o *situate.Options) { o.EmbedMaxTokens = -1 }},
		{"Candidates", func(o *situate.Options) { o.Candidates = 0 }},
		{"ParallelDocuments", func(o *situate.Options) { o.ParallelDocuments = 0 }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			o := situate.DefaultOptions()
			tc.set(&o)
			err := o.Validate()
			if !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), "options: "+tc.field+":") {
				t.Fatalf("Validate: %v, want ErrInvalid naming %s", err, tc.field)
			}
			if _, err := situate.Open(context.Background(), "", nil, o); !errors.Is(err, situate.ErrInvalid) {
				t.Fatalf("Open with invalid options: %v", err)
			}
		})
	}
	// A disabled arm's parameters are not checked.
	o := situate.DefaultOptions()
	o.CodeArmWeight, o.CodeB = 0, 7
	if err := o.Validate(); err != nil {
		t.Errorf("disabled code arm: %v", err)
	}
}

func TestChangeString(t *testing.T) {
	for c, want := range map[situate.Change]string{situate.Added: "added", situate.Updated: "updated", situate.Unchanged: "unchanged"} {
		if c.String() != want {
			t.Errorf("%d: %q, want %q", c, c.String(), want)
		}
	}
}

// TestPutChunks: a document that comes chunked, with or without its
// contexts, is stored as given and searchable; unchanged input does no work.
func TestPutChunks(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	eng := ts.open(situate.DefaultOptions())
	d := doc("pre", "Tide tables. Harbour dues.")
	chunks := []situate.Chunk{{Text: "Tide tables.", End: 12}, {Text: "Harbour dues.", Start: 13, End: 26}}
	contexts := []situate.Context{{Text: "From the port handbook.", Source: "dataset"}, {Text: "Fees section.", Source: "dataset"}}
	for _, step := range []struct {
		contexts []situate.Context
		want     situate.Change
	}{{contexts, situate.Added}, {contexts, situate.Unchanged}, {nil, situate.Updated}} {
		got, err := eng.PutChunks(ctx, d, slices.Clone(chunks), step.contexts)
		if err != nil || got != step.want {
			t.Fatalf("PutChunks: %v %v, want %v", got, err, step.want)
		}
	}
	stored, err := eng.Chunks(ctx, "pre")
	if err != nil || len(stored) != 2 || stored[1].Text != "Harbour dues." || stored[1].Index != 1 {
		t.Fatalf("stored chunks: %+v %v", stored, err)
	}
	if got := searchIDs(t, eng, situate.Query{Text: "harbour dues"}); !slices.Equal(got, []string{"pre"}) {
		t.Errorf("search: %v", got)
	}
	if len(eng.Stale()) != 0 {
		t.Errorf("pre-chunked documents are never stale: %v", eng.Stale())
	}
	if _, err := eng.PutChunks(ctx, d, chunks, contexts[:1]); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("1 context for 2 chunks: %v", err)
	}
	if _, err := eng.PutChunks(ctx, situate.Document{}, chunks, nil); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("no id: %v", err)
	}
	if _, err := eng.Chunks(ctx, "absent"); !errors.Is(err, situate.ErrNotFound) {
		t.Errorf("chunks of an unknown document: %v", err)
	}
	if st := eng.IndexStats(); st.Chunks != 2 {
		t.Errorf("IndexStats: %d chunks, want 2", st.Chunks)
	}
	if eng.ProcessingFingerprint() == "" || eng.Options().ChunkSize != situate.DefaultChunkSize {
		t.Errorf("fingerprint %q, options %+v", eng.ProcessingFingerprint(), eng.Options())
	}
}

// TestFusionMethods: every fusion method ranks the document both arms
// agree on first.
func TestFusionMethods(t *testing.T) {
	ctx := context.Background()
	for _, fusion := range []string{situate.FusionRRF, situate.FusionCookbook, situate.FusionMinMax, situate.FusionRelative} {
		t.Run(fusion, func(t *testing.T) {
			opts := situate.DefaultOptions()
			opts.Fusion = fusion
			opts.Embedder = &hashEmbedder{dim: 64}
			eng := openMemEngine(t, opts)
			for _, d := range []situate.Document{
				doc("mill", "The windmill grinds grain by the river."),
				doc("forge", "The forge shapes iron nails."),
				doc("inn", "The inn serves bread and ale."),
			} {
				if _, err := eng.Put(ctx, d); err != nil {
					t.Fatal(err)
				}
			}
			hits, err := eng.Search(ctx, situate.Query{Text: "windmill grain river", K: 3, Mode: situate.ModeHybrid, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].DocID != "mill" || hits[0].Explain.Arm("lexical").Rank != 1 || hits[0].Explain.Arm("dense").Rank != 1 {
				t.Fatalf("%s: %+v", fusion, hits)
			}
		})
	}
}

func TestSearchInvalid(t *testing.T) {
	ctx := context.Background()
	eng := openMemEngine(t, situate.DefaultOptions())
	for _, tc := range []struct {
		q    situate.Query
		want string
	}{
		{situate.Query{Text: "  "}, "query: must not be empty"},
		{situate.Query{Text: "x", Mode: "fuzzy"}, `mode: "fuzzy": must be bm25, dense or hybrid`},
		{situate.Query{Text: "x", Mode: situate.ModeDense}, "needs an embedder"},
		{situate.Query{Text: "x", Rerank: true}, "no reranker"},
	} {
		if _, err := eng.Search(ctx, tc.q); !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want ErrInvalid saying %q", tc.q, err, tc.want)
		}
	}
}

// TestRecipes: a recipe is a value; the Lucene recipe is the situate
// recipe without its extra arms and steps, and searching with it is plain
// BM25 (one arm in the explanation besides the lexical ranking).
func TestRecipes(t *testing.T) {
	if got := situate.DefaultOptions().Recipe; got != situate.SituateRecipe() {
		t.Errorf("DefaultOptions().Recipe = %+v, want SituateRecipe()", got)
	}
	l, err := situate.RecipeNamed("lucene")
	if err != nil || l != situate.LuceneRecipe() {
		t.Fatalf("RecipeNamed(lucene) = %+v, %v", l, err)
	}
	if l.CodeArmWeight != 0 || l.PairArmWeight != 0 || l.DefsArmWeight != 0 || l.DocumentWeight != 0 || l.TestPenalty != 0 || l.CompoundWeight != 0 {
		t.Errorf("LuceneRecipe keeps a situate step: %+v", l)
	}
	if l.BM25K1 != situate.DefaultBM25K1 || l.BM25B != situate.DefaultBM25B || l.Fusion != situate.DefaultFusion {
		t.Errorf("LuceneRecipe changes BM25 or fusion: %+v", l)
	}
	if _, err := situate.RecipeNamed("bm42"); !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), "bm42") {
		t.Errorf("RecipeNamed(bm42): %v, want ErrInvalid naming it", err)
	}
	o := situate.DefaultOptions()
	o.Recipe = situate.LuceneRecipe()
	e := openMemEngine(t, o)
	if _, err := e.Put(context.Background(), doc("mill.md", "The old mill_wheel turns by the river.")); err != nil {
		t.Fatal(err)
	}
	hits, err := e.Search(context.Background(), situate.Query{Text: "mill wheel river", Explain: true})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	var arms []string
	for _, a := range hits[0].Explain.Arms {
		arms = append(arms, a.Arm)
	}
	if strings.Join(arms, ",") != "bm25,lexical" {
		t.Errorf("Lucene recipe searched arms %v, want bm25,lexical", arms)
	}
}
