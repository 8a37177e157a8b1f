package harness_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/harness"

	"github.com/situate/situate"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

func TestParseEvalConfig(t *testing.T) {
	for _, tc := range []struct {
		name     string
		contexts string
		mode     string
		rerank   bool
		bad      bool
	}{
		{"raw", harness.Raw, situate.ModeBM25, false, false},
		{"provided+dense", harness.Provided, situate.ModeDense, false, false},
		{"offline+hybrid+rerank", harness.Offline, situate.ModeHybrid, true, false},
		{"llm+hybrid", harness.LLM, situate.ModeHybrid, false, false},
		{"offline+sparkle", "", "", false, true},
		{"gpt", "", "", false, true},
	} {
		cfg, err := harness.ParseConfig(tc.name)
		if tc.bad {
			if !errors.Is(err, situate.ErrInvalid) {
				t.Errorf("%q: err %v, want ErrInvalid", tc.name, err)
			}
			continue
		}
		if err != nil || cfg.Contexts != tc.contexts || cfg.Mode != tc.mode || cfg.Rerank != tc.rerank || cfg.Name != tc.name {
			t.Errorf("%q: %+v %v", tc.name, cfg, err)
		}
	}
}

func TestEvalConfigs(t *testing.T) {
	plain := &eval.Dataset{Docs: []eval.Doc{{ID: "a", Text: "x"}}}
	chunked := &eval.Dataset{Docs: []eval.Doc{{ID: "a", Title: "T", Chunks: []eval.Chunk{{Text: "x", Context: "c"}}}}}
	for _, tc := range []struct {
		ds   *eval.Dataset
		av   harness.Available
		want string
	}{
		{plain, harness.Available{}, "[raw offline]"},
		{plain, harness.Available{LLM: true}, "[raw offline llm]"},
		{chunked, harness.Available{}, "[raw offline title provided]"},
		{chunked, harness.Available{Embedder: true, Reranker: true},
			"[raw offline title provided raw+dense provided+dense provided+hybrid provided+hybrid+rerank]"},
		{plain, harness.Available{LLM: true, Embedder: true}, "[raw offline llm raw+dense llm+dense llm+hybrid]"},
	} {
		if got := fmt.Sprint(harness.Configs(tc.ds, tc.av)); got != tc.want {
			t.Errorf("EvalConfigs(%+v) = %s, want %s", tc.av, got, tc.want)
		}
	}
}

func evalOptions() harness.Options {
	return harness.Options{
		NewStore: func(ctx context.Context, dir string) (driver.Store, error) {
			return sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
		},
		EngineOptions: func(cfg harness.Config, store driver.Store) (situate.Options, error) {
			o := situate.DefaultOptions()
			o.ChunkSize, o.ChunkOverlap = 48, 0
			o.Contextualizer = offline.New(offline.DefaultOptions())
			return o, nil
		},
	}
}

// TestEvaluateIsTheProductPath: harness.Evaluate gives exactly the metrics
// of indexing the same documents with Engine.Index and searching them with
// Engine.Search under the same options (issue 13: eval measures the product
// path).
func TestEvaluateIsTheProductPath(t *testing.T) {
	ctx := context.Background()
	var docs []eval.Doc
	var queries []eval.Query
	topics := []string{"ferry timetable harbour", "anvil forge hammer", "tax return deadline", "violin string tension", "glacier ice retreat"}
	for i := range 30 {
		topic := topics[i%len(topics)]
		text := fmt.Sprintf("# Report %d on %s\n\nThis report number %d covers %s in detail. ", i, topic, i, topic)
		for j := range 8 {
			text += fmt.Sprintf("Paragraph %d mentions item%d and %s again. ", j, i*10+j, topics[(i+j)%len(topics)])
		}
		docs = append(docs, eval.Doc{ID: fmt.Sprintf("doc%02d.md", i), Title: fmt.Sprintf("Report %d", i), Text: text, Lang: "en"})
		queries = append(queries, eval.Query{ID: fmt.Sprint(i), Text: fmt.Sprintf("item%d %s", i*10+3, topic), Qrels: map[string]int{docs[i].ID: 1}})
	}
	ds := &eval.Dataset{Name: "synthetic", Docs: docs, Queries: queries}
	opts := evalOptions()
	opts.DocFormat = situate.FormatMarkdown
	for _, name := range []string{harness.Raw, harness.Offline} {
		t.Run(name, func(t *testing.T) {
			cfg, _ := harness.ParseConfig(name)
			run, err := harness.Evaluate(ctx, ds, cfg, opts)
			if err != nil {
				t.Fatal(err)
			}
			// The same through index and search.
			dir := t.TempDir()
			store, err := opts.NewStore(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			eo, _ := opts.EngineOptions(cfg, store)
			if name == harness.Raw {
				eo.Contextualizer = nil
			}
			eng, err := situate.Open(ctx, dir, store, eo)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			var in []situate.Document
			for _, d := range docs {
				in = append(in, situate.Document{ID: d.ID, Title: d.Title, Text: d.Text, Lang: d.Lang, Format: situate.FormatMarkdown})
			}
			if _, err := eng.Index(ctx, situate.Documents(in...), situate.IndexOptions{}); err != nil {
				t.Fatal(err)
			}
			byHand := eval.Run{}
			for _, q := range queries {
				hits, err := eng.Search(ctx, situate.Query{Text: q.Text, K: harness.DefaultDepth})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					byHand[q.ID] = append(byHand[q.ID], eval.Ranked{DocID: h.DocID, Chunk: h.Chunk, Text: h.Text})
				}
			}
			want, _ := eval.Evaluate(ds, byHand)
			if !reflect.DeepEqual(run.Result.Metrics, want.Metrics) {
				t.Errorf("Evaluate metrics %v\nindex+search      %v", run.Result.Metrics, want.Metrics)
			}
			if run.Result.Metrics["hit@1"] < 0.9 {
				t.Errorf("hit@1 %.2f: the synthetic set should be easy", run.Result.Metrics["hit@1"])
			}
		})
	}
}

// TestEvaluatePrechunked: a dataset's own chunks are indexed as given, with
// the configuration's contexts: a query that only the provided context
// answers finds its chunk with "provided" and not with "raw".
func TestEvaluatePrechunked(t *testing.T) {
	ctx := context.Background()
	ds := &eval.Dataset{Name: "chunked", Docs: []eval.Doc{
		{ID: "a", Title: "Alpha", Text: "one two three four", Chunks: []eval.Chunk{
			{Index: 0, Start: 0, End: 7, Text: "one two", Context: "zebra crossing"},
			{Index: 1, Start: 8, End: 18, Text: "three four", Context: "lighthouse keeper"}}},
		{ID: "b", Title: "Beta", Text: "five six", Chunks: []eval.Chunk{{Index: 0, Start: 0, End: 8, Text: "five six", Context: "mountain goat"}}},
	}, Queries: []eval.Query{
		{ID: "q1", Text: "lighthouse keeper", Golden: []eval.ChunkRef{{DocID: "a", Index: 1}}, GoldenText: []string{"three four"}},
		{ID: "q2", Text: "mountain goat", Golden: []eval.ChunkRef{{DocID: "b", Index: 0}}, GoldenText: []string{"five six"}},
	}}
	got := map[string]float64{}
	for _, name := range []string{harness.Raw, harness.Provided, harness.Title} {
		cfg, _ := harness.ParseConfig(name)
		run, err := harness.Evaluate(ctx, ds, cfg, evalOptions())
		if err != nil {
			t.Fatal(err)
		}
		got[name] = run.Result.Metrics["pass@5"]
	}
	if got[harness.Provided] != 100 || got[harness.Raw] != 0 {
		t.Errorf("pass@5 by configuration %v: want provided 100, raw 0", got)
	}
	cfg, _ := harness.ParseConfig("provided+hybrid+rerank")
	if _, err := harness.Evaluate(ctx, ds, cfg, evalOptions()); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("rerank without a reranker: %v", err)
	}
}
