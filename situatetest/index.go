package situatetest

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// IndexBackendHarness opens what TestIndexBackend needs: an empty backend
// (its own namespace: collections, tenant) and an empty store, both fresh
// on every call.
type IndexBackendHarness struct {
	Open func(t *testing.T) driver.IndexBackend
	// Reopen opens the namespace of a backend Open returned again (after
	// the Engine over it closed it).
	Reopen   func(t *testing.T, old driver.IndexBackend) driver.IndexBackend
	NewStore func(t *testing.T) driver.Store
}

// hashEmbedder embeds a hashed bag of words: texts sharing
// words are near, deterministic in every run.
type hashEmbedder struct{}

func (hashEmbedder) Name() string { return "hash" }
func (hashEmbedder) Embed(_ context.Context, texts []string, _ driver.InputType) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hashVector(t, 64)
	}
	return out, nil
}

// hashVector is a unit vector of the text's words hashed into dim buckets.
func hashVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		h := fnv.New32a()
		h.Write([]byte(w))
		x := h.Sum32()
		if x&1 == 0 {
			v[x%uint32(dim)]++
		} else {
			v[x%uint32(dim)]--
		}
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
	}
	return v
}

// backendCorpus: five languages and code, access lists and metadata of
// every kind a filter reads (strings, numbers, dates, missing keys).
var backendCorpus = []situate.Document{
	{ID: "en/harbor.md", Lang: "en", Format: situate.FormatMarkdown, Title: "Harbor",
		Text:     "# Harbor report\n\nThe harbor cranes loaded twelve ships in March. Brightwater Logistics runs the harbor.\n\n## Revenue\n\nThird quarter revenue of Brightwater Logistics grew by nine percent.",
		Metadata: map[string]string{"team": "ops", "year": "2021", "published": "2021-03-04"}},
	{ID: "en/running.md", Lang: "en", Format: situate.FormatMarkdown, Title: "Running",
		Text:     "# Runners\n\nThe runners were running faster than the cars. Running shoes help runners run.",
		Metadata: map[string]string{"team": "sport", "year": "2019"}, Access: []string{"alice"}},
	{ID: "de/haus.md", Lang: "de", Format: situate.FormatMarkdown, Title: "Häuser",
		Text:     "# Häuser am Hafen\n\nDie Häuser am Hafen wurden im Jahr 1900 gebaut. Das Gerichtsverfahren über die Häuser dauerte lange.",
		Metadata: map[string]string{"team": "ops", "year": "1999", "published": "2020-01-01"}},
	{ID: "ru/port.md", Lang: "ru", Format: situate.FormatMarkdown, Title: "Порт",
		Text:     "# Порт\n\nКраны в порту загрузили двенадцать кораблей. Корабли приходят в порт каждый день.",
		Metadata: map[string]string{"team": "ru"}, Access: []string{"bob", "alice"}},
	{ID: "zh/port.md", Lang: "zh", Format: situate.FormatMarkdown, Title: "港口",
		Text:     "# 港口报告\n\n港口的起重机在三月装载了十二艘船。港口收入增长了百分之九。",
		Metadata: map[string]string{"team": "zh", "year": "2022"}},
	{ID: "es/puerto.md", Lang: "es", Format: situate.FormatMarkdown, Title: "Puerto",
		Text:     "# Puerto\n\nLas grúas del puerto cargaron doce barcos. Los barcos llegan al puerto cada día.",
		Metadata: map[string]string{"year": "2023.5"}},
	{ID: "code/loader.go", Lang: "en", Format: situate.FormatCode, Path: "code/loader.go", Title: "loader.go",
		Text:     "package loader\n\n// LoadShips loads the ships of a harbor.\nfunc LoadShips(harborName string) int {\n\treturn len(harborName)\n}\n",
		Metadata: map[string]string{"team": "ops", "lang": "go"}},
}

var backendQueries = []string{
	"harbor cranes ships", "Brightwater revenue quarter", "run runner", "Haus Hafen", "Häusern",
	"Gerichtsverfahren", "Verfahren vor dem Gericht", "Hafenhäuser", "корабль порт", "港口收入", "barco puerto", "LoadShips", "load ships harbor name",
	"nothing matches this zzzqqq",
}

func openPair(t *testing.T, h IndexBackendHarness, embed bool) (embedded, backend *situate.Engine) {
	t.Helper()
	ctx := context.Background()
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	if embed {
		opts.Embedder = hashEmbedder{}
		opts.VectorQuantizeAbove = -1
	}
	e1, err := situate.Open(ctx, "", h.NewStore(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e1.Close() })
	bo := opts
	bo.Backend = h.Open(t)
	e2, err := situate.Open(ctx, "", h.NewStore(t), bo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2.Close() })
	for _, d := range backendCorpus {
		for _, e := range []*situate.Engine{e1, e2} {
			if _, err := e.Put(ctx, d); err != nil {
				t.Fatalf("put %s: %v", d.ID, err)
			}
		}
	}
	return e1, e2
}

func keys(hits []situate.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%s#%d", h.DocID, h.Chunk)
	}
	return out
}

func search(t *testing.T, e *situate.Engine, q situate.Query) []situate.Hit {
	t.Helper()
	hits, err := e.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return hits
}

// sameRanking fails unless both engines return the same chunks in the same
// order (chunks whose embedded scores tie, within tol, may swap), with
// scores within tol (relative) of each other.
func sameRanking(t *testing.T, what string, want, got []situate.Hit, tol float64) {
	t.Helper()
	near := func(a, b float64) bool { return math.Abs(a-b) <= tol*max(math.Abs(a), math.Abs(b), 1) }
	if len(want) != len(got) {
		t.Errorf("%s: backend ranked\n  %v\nembedded ranked\n  %v", what, keys(got), keys(want))
		return
	}
	for i := range want {
		if !near(want[i].Score, got[i].Score) {
			t.Errorf("%s: hit %d (%s#%d): backend score %g, embedded %g", what, i+1, got[i].DocID, got[i].Chunk, got[i].Score, want[i].Score)
			return
		}
		tie := i > 0 && near(want[i].Score, want[i-1].Score) || i+1 < len(want) && near(want[i].Score, want[i+1].Score)
		if !tie && (got[i].DocID != want[i].DocID || got[i].Chunk != want[i].Chunk) {
			t.Errorf("%s: backend ranked\n  %v\nembedded ranked\n  %v", what, keys(got), keys(want))
			return
		}
		if got[i].DocID == want[i].DocID && got[i].Chunk == want[i].Chunk && (got[i].Text != want[i].Text || got[i].Context.Text != want[i].Context.Text) {
			t.Errorf("%s: hit %d: text or context differs", what, i+1)
		}
	}
}

// lexicalTol is how far a backend's BM25 scores may be from situate's: a
// backend scores its candidates with bm25.DocScore from its collection's
// statistics, so only the order of a float64 sum may differ.
const lexicalTol = 1e-6

// TestIndexBackend is the conformance suite of a situate.IndexBackend: an
// Engine over it must rank, filter, update and delete exactly as the
// embedded engine does over the same documents (BM25 with situate's
// analyzers in five languages and code, the recipe's arms, dense and
// hybrid search, every filter), and repair what it lost on Open.
func TestIndexBackend(t *testing.T, h IndexBackendHarness) {
	ctx := context.Background()
	t.Run("bm25", func(t *testing.T) {
		e1, e2 := openPair(t, h, false)
		for _, q := range backendQueries {
			want := search(t, e1, situate.Query{Text: q, K: 10, Mode: situate.ModeBM25})
			got := search(t, e2, situate.Query{Text: q, K: 10, Mode: situate.ModeBM25})
			sameRanking(t, "bm25 "+q, want, got, lexicalTol)
		}
		// The analyzers are situate's: German and Russian stems, Chinese bigrams.
		for q, doc := range map[string]string{"Häusern": "de/haus.md", "кораблями": "ru/port.md", "港口收入": "zh/port.md", "runs": "en/running.md"} {
			got := search(t, e2, situate.Query{Text: q, K: 3, Mode: situate.ModeBM25})
			if len(got) == 0 || got[0].DocID != doc {
				t.Errorf("bm25 %q: want %s first, got %v", q, doc, keys(got))
			}
		}
	})
	t.Run("dense-and-hybrid", func(t *testing.T) {
		e1, e2 := openPair(t, h, true)
		for _, q := range backendQueries[:8] {
			for _, mode := range []string{situate.ModeDense, situate.ModeHybrid} {
				want := search(t, e1, situate.Query{Text: q, K: 10, Mode: mode})
				got := search(t, e2, situate.Query{Text: q, K: 10, Mode: mode})
				tol := 1e-4 // cosine similarities
				if mode == situate.ModeHybrid {
					tol = lexicalTol
				}
				sameRanking(t, mode+" "+q, want, got, tol)
			}
		}
	})
	t.Run("filters", func(t *testing.T) {
		e1, e2 := openPair(t, h, false)
		filters := map[string]situate.Filter{
			"principals alice":  {Principals: []string{"alice"}},
			"principals carol":  {Principals: []string{"carol"}},
			"principals none":   {Principals: []string{}},
			"docs":              {Docs: []string{"en/harbor.md", "de/haus.md", "missing"}},
			"docs empty":        {Docs: []string{}},
			"team=ops":          {Metadata: map[string]string{"team": "ops"}},
			"team=''":           {Metadata: map[string]string{"team": ""}},
			"team in":           {Where: []situate.Condition{{Key: "team", Op: situate.OpIn, Values: []string{"ru", "zh"}}}},
			"team not eq":       {Where: []situate.Condition{{Key: "team", Op: situate.OpEq, Values: []string{"ops"}, Not: true}}},
			"lang exists":       {Where: []situate.Condition{{Key: "lang", Op: situate.OpExists}}},
			"lang not exists":   {Where: []situate.Condition{{Key: "lang", Op: situate.OpExists, Not: true}}},
			"year >= 2020":      {Where: []situate.Condition{{Key: "year", Op: situate.OpGte, Values: []string{"2020"}}}},
			"year < 2021":       {Where: []situate.Condition{{Key: "year", Op: situate.OpLt, Values: []string{"2021"}}}},
			"year not > 2021":   {Where: []situate.Condition{{Key: "year", Op: situate.OpGt, Values: []string{"2021"}, Not: true}}},
			"year range":        {Where: []situate.Condition{{Key: "year", Op: situate.OpRange, Min: "2000", Max: "2022"}}},
			"published date":    {Where: []situate.Condition{{Key: "published", Op: situate.OpGte, Values: []string{"2021-01-01"}}}},
			"published <= date": {Where: []situate.Condition{{Key: "published", Op: situate.OpLte, Values: []string{"2021-03-04T00:00:00Z"}}}},
			"no typed key":      {Where: []situate.Condition{{Key: "nosuchkey", Op: situate.OpGt, Values: []string{"1"}}}},
			"no typed key, not": {Where: []situate.Condition{{Key: "nosuchkey", Op: situate.OpGt, Values: []string{"1"}, Not: true}}},
			"alice and ops":     {Principals: []string{"alice"}, Metadata: map[string]string{"team": "ops"}},
		}
		for name, f := range filters {
			for _, q := range []string{"harbor ships port", "Häuser Hafen", "порт", "港口", "puerto barco", "runners", "LoadShips"} {
				want := search(t, e1, situate.Query{Text: q, K: 20, Mode: situate.ModeBM25, Filter: f})
				got := search(t, e2, situate.Query{Text: q, K: 20, Mode: situate.ModeBM25, Filter: f})
				sameRanking(t, name+" / "+q, want, got, lexicalTol)
			}
		}
	})
	t.Run("access-patch", func(t *testing.T) {
		// A change of access applies at once in the backend too: its
		// native filters see the new access list, and searches by the
		// principals before and after rank as the embedded engine's.
		e1, e2 := openPair(t, h, true)
		carol := []string{"carol"}
		for _, e := range []*situate.Engine{e1, e2} {
			if _, err := e.Patch(ctx, "en/harbor.md", situate.Patch{Access: &carol}); err != nil {
				t.Fatalf("patch: %v", err)
			}
		}
		for _, p := range []string{"alice", "carol"} {
			f := situate.Filter{Principals: []string{p}}
			for _, mode := range []string{situate.ModeBM25, situate.ModeHybrid} {
				want := search(t, e1, situate.Query{Text: "harbor ships port", K: 20, Mode: mode, Filter: f})
				got := search(t, e2, situate.Query{Text: "harbor ships port", K: 20, Mode: mode, Filter: f})
				sameRanking(t, "after the patch, "+p+" "+mode, want, got, lexicalTol)
				found := slices.ContainsFunc(got, func(h situate.Hit) bool { return h.DocID == "en/harbor.md" })
				if found != (p == "carol") {
					t.Errorf("after the patch, %s %s finds en/harbor.md: %v", p, mode, found)
				}
			}
		}
	})
	t.Run("update-delete-repair", func(t *testing.T) {
		store := h.NewStore(t)
		opts := situate.DefaultOptions()
		opts.Contextualizer = nil
		b := h.Open(t)
		opts.Backend = b
		e, err := situate.Open(ctx, "", store, opts)
		if err != nil {
			t.Fatal(err)
		}
		long := situate.Document{ID: "long.md", Lang: "en", Format: situate.FormatMarkdown,
			Text: "# One\n\n" + strings.Repeat("alpha harbor words. ", 300) + "\n\n# Two\n\n" + strings.Repeat("beta words here. ", 300)}
		if _, err := e.Put(ctx, long); err != nil {
			t.Fatal(err)
		}
		if n := len(search(t, e, situate.Query{Text: "beta", K: 50, Mode: situate.ModeBM25})); n < 2 {
			t.Fatalf("beta: %d hits before the update, want several chunks", n)
		}
		short := long
		short.Text = "# One\n\nalpha only now."
		if _, err := e.Put(ctx, short); err != nil {
			t.Fatal(err)
		}
		if hits := search(t, e, situate.Query{Text: "beta", K: 50, Mode: situate.ModeBM25}); len(hits) != 0 {
			t.Errorf("beta after the update: %v, want none (the old version's chunks)", keys(hits))
		}
		v, err := b.Versions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v["long.md"] != 2 {
			t.Errorf("backend holds long.md at version %d, want 2", v["long.md"])
		}
		for _, d := range backendCorpus[:3] {
			if _, err := e.Put(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Delete(ctx, "en/harbor.md"); err != nil {
			t.Fatal(err)
		}
		if hits := search(t, e, situate.Query{Text: "Brightwater", K: 10, Mode: situate.ModeBM25}); len(hits) != 0 {
			t.Errorf("Brightwater after delete: %v", keys(hits))
		}
		// Lose a document behind the engine's back: the next Open puts it back.
		if err := b.Delete(ctx, []string{"de/haus.md"}); err != nil {
			t.Fatal(err)
		}
		if hits := search(t, e, situate.Query{Text: "Häuser", K: 10, Mode: situate.ModeBM25}); len(hits) != 0 {
			t.Fatalf("Häuser after the backend lost it: %v", keys(hits))
		}
		e.Close() // closes b
		opts.Backend = h.Reopen(t, b)
		e, err = situate.Open(ctx, "", store, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if hits := search(t, e, situate.Query{Text: "Häuser", K: 10, Mode: situate.ModeBM25}); len(hits) == 0 || hits[0].DocID != "de/haus.md" {
			t.Errorf("Häuser after reopen: %v, want de/haus.md back", keys(hits))
		}
		v, err = opts.Backend.Versions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := v["en/harbor.md"]; ok || len(v) != 3 {
			t.Errorf("backend documents after reopen: %v, want long.md, en/running.md, de/haus.md", v)
		}
	})
}
