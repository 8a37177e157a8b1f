package bm25

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

type cbChunk struct {
	id, group, content, context string
}

type cbQuery struct {
	query  string
	golden []string // golden chunk contents, stripped
}

// readCodebase reads Anthropic's contextual-retrieval evaluation set in
// place: 737 chunks with their Claude 3 Haiku contexts and 248 queries.
func readCodebase(tb testing.TB) ([]cbChunk, []cbQuery) {
	tb.Helper()
	var docs []struct {
		DocID  string `json:"doc_id"`
		UUID   string `json:"original_uuid"`
		Chunks []struct {
			ChunkID string `json:"chunk_id"`
			Index   int    `json:"original_index"`
			Content string `json:"content"`
		} `json:"chunks"`
	}
	var contexts []struct {
		UUID    string `json:"original_uuid"`
		Index   int    `json:"original_index"`
		Context string `json:"context"`
	}
	for _, f := range []struct {
		rel string
		v   any
	}{{"codebase/codebase_chunks.json", &docs}, {"codebase/contexts_claude3haiku.json", &contexts}} {
		path := sharedData(tb, f.rel)
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		if err := json.Unmarshal(b, f.v); err != nil {
			tb.Fatalf("read %s: %v", path, err)
		}
	}
	ctx := map[string]string{}
	for _, c := range contexts {
		ctx[fmt.Sprintf("%s/%d", c.UUID, c.Index)] = c.Context
	}
	content := map[string]string{}
	var chunks []cbChunk
	for _, d := range docs {
		for _, c := range d.Chunks {
			key := fmt.Sprintf("%s/%d", d.UUID, c.Index)
			c2, ok := ctx[key]
			if !ok {
				tb.Fatalf("no context for chunk %s", key)
			}
			content[key] = c.Content
			chunks = append(chunks, cbChunk{id: c.ChunkID, group: d.UUID, content: c.Content, context: c2})
		}
	}
	path := sharedData(tb, "codebase/evaluation_set.jsonl")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var queries []cbQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var q struct {
			Query  string  `json:"query"`
			Golden [][]any `json:"golden_chunk_uuids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			tb.Fatalf("read %s: %v", path, err)
		}
		cq := cbQuery{query: q.Query}
		for _, g := range q.Golden {
			key := fmt.Sprintf("%v/%v", g[0], g[1])
			c, ok := content[key]
			if !ok {
				tb.Fatalf("read %s: golden chunk %s unknown", path, key)
			}
			cq.golden = append(cq.golden, strings.TrimSpace(c))
		}
		queries = append(queries, cq)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	return chunks, queries
}

// passAtK is the cookbook's metric: per query, the share of golden chunks
// whose stripped content equals a retrieved chunk's, averaged, × 100.
func passAtK(t *testing.T, ix *Index, chunks []cbChunk, queries []cbQuery, k int) float64 {
	t.Helper()
	byID := map[string]string{}
	for _, c := range chunks {
		byID[c.id] = strings.TrimSpace(c.content)
	}
	total := 0.0
	for _, q := range queries {
		res, err := ix.Search(Query{Text: q.query, K: k})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, r := range res {
			got[byID[r.ID]] = true
		}
		found := 0
		for _, g := range q.golden {
			if got[g] {
				found++
			}
		}
		total += float64(found) / float64(len(q.golden))
	}
	return 100 * total / float64(len(queries))
}

// TestCodebaseParity compares Pass@5/10/20 on the contextual-retrieval set
// with Lucene 8.8 BM25 (k1 = 1.2, b = 0.75, English analyzer) as measured in
// the data README, for the contextualised text in one field and for raw
// chunks.
func TestCodebaseParity(t *testing.T) {
	chunks, queries := readCodebase(t)
	if len(chunks) != 737 || len(queries) != 248 {
		t.Fatalf("%d chunks, %d queries; want 737, 248", len(chunks), len(queries))
	}
	for _, tc := range []struct {
		name string
		text func(c cbChunk) string
		want [3]float64
	}{
		{"chunk+context", func(c cbChunk) string { return c.content + "\n\n" + c.context }, [3]float64{80.48, 87.51, 90.80}},
		{"raw chunk", func(c cbChunk) string { return c.content }, [3]float64{66.76, 74.96, 80.89}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := New(Options{Analyzer: "english"})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			var b Batch
			groups := map[string][]Doc{}
			var order []string
			for _, c := range chunks {
				if _, ok := groups[c.group]; !ok {
					order = append(order, c.group)
				}
				groups[c.group] = append(groups[c.group], Doc{ID: c.id, Fields: map[string]string{"text": tc.text(c)}})
			}
			for _, g := range order {
				b.Replace(g, groups[g])
			}
			if err := ix.Apply(&b); err != nil {
				t.Fatal(err)
			}
			for i, k := range []int{5, 10, 20} {
				got := passAtK(t, ix, chunks, queries, k)
				t.Logf("Pass@%d = %.2f (Lucene %.2f)", k, got, tc.want[i])
				if math.Abs(got-tc.want[i]) > 0.3 {
					t.Errorf("Pass@%d = %.2f, Lucene has %.2f (±0.3)", k, got, tc.want[i])
				}
			}
		})
	}
}
