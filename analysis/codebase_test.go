package analysis

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// TestCodebaseRetrieval measures analyzers on Anthropic's codebase set as
// raw-chunk BM25 (Pass@k: the share of a query's golden chunks in the top
// k, averaged over queries; chunks matched by id). The README's Lucene
// figures for raw chunks: english 66.76 / 74.96 / 80.89, standard 53.06 /
// 61.99 / 70.49 (@5/@10/@20). It compares the code analyzer with and without
// Porter-stemmed sub-words and asserts it beats the standard analyzer.
func TestCodebaseRetrieval(t *testing.T) {
	chunksPath := sharedData(t, "codebase/codebase_chunks.json")
	evalPath := sharedData(t, "codebase/evaluation_set.jsonl")
	raw, err := os.ReadFile(chunksPath)
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		UUID   string `json:"original_uuid"`
		Chunks []struct {
			Index   int    `json:"original_index"`
			Content string `json:"content"`
		} `json:"chunks"`
	}
	if err := json.Unmarshal(raw, &docs); err != nil {
		t.Fatalf("parse %s: %v", chunksPath, err)
	}
	var texts []string
	id := map[string]int{}
	for _, d := range docs {
		for _, c := range d.Chunks {
			id[fmt.Sprintf("%s/%d", d.UUID, c.Index)] = len(texts)
			texts = append(texts, c.Content)
		}
	}
	f, err := os.Open(evalPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type query struct {
		text string
		gold []int
	}
	var queries []query
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var q struct {
			Query  string  `json:"query"`
			Golden [][]any `json:"golden_chunk_uuids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("parse %s line %d: %v", evalPath, line, err)
		}
		var gold []int
		for _, g := range q.Golden {
			key := fmt.Sprintf("%v/%v", g[0], g[1])
			d, ok := id[key]
			if !ok {
				t.Fatalf("%s line %d: golden chunk %s not among the chunks", evalPath, line, key)
			}
			gold = append(gold, d)
		}
		queries = append(queries, query{q.Query, gold})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	pass := func(a Analyzer) [3]float64 {
		ix := newTestIndex(a, texts)
		var p [3]float64
		for _, q := range queries {
			order := ix.rank(q.text)
			for i, k := range []int{5, 10, 20} {
				found := 0
				for _, g := range q.gold {
					for _, d := range order[:k] {
						if d == g {
							found++
							break
						}
					}
				}
				p[i] += float64(found) / float64(len(q.gold))
			}
		}
		for i := range p {
			p[i] = 100 * p[i] / float64(len(queries))
		}
		return p
	}
	results := map[string][3]float64{}
	for _, c := range []struct {
		name string
		a    Analyzer
	}{
		{Standard, mustNew(t, Standard)},
		{English, mustNew(t, English)},
		{Code, mustNew(t, Code)},
		{"code-unstemmed", &codeAnalyzer{stop: newStopSet(CodeStopWords)}},
	} {
		p := pass(c.a)
		results[c.name] = p
		t.Logf("codebase raw chunks %-15s Pass@5 %.2f Pass@10 %.2f Pass@20 %.2f", c.name, p[0], p[1], p[2])
	}
	if results[Code][1] <= results[Standard][1] {
		t.Errorf("code analyzer Pass@10 %.2f does not beat standard %.2f", results[Code][1], results[Standard][1])
	}
}
