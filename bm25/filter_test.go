package bm25

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"sort"
	"testing"

	"github.com/situate/situate/analysis"
)

// TestFilterWhileScoring checks that a filter is applied during scoring: the
// results equal the unfiltered exhaustive ranking restricted to allowed
// docs, so K allowed results come back whenever K allowed matches exist.
func TestFilterWhileScoring(t *testing.T) {
	ix, docs := cacmIndex(t)
	defer ix.Close()
	a, _ := analysis.New("english")
	ref := newReference(a, docs, 0.9, 0.4)
	rng := rand.New(rand.NewSource(3))
	topics := readTopics(t)
	full := map[string][]Result{}
	for _, tp := range topics {
		full[tp.id] = ref.search(tp.text, len(docs))
	}
	for _, share := range []int{50, 5, 1} { // percent of groups allowed
		allowed := map[string]bool{}
		for _, d := range docs {
			if rng.Intn(100) < share {
				allowed[d.id] = true
			}
		}
		filters := map[string]*Filter{
			"groups": {Groups: allowed},
			"accept": {Accept: func(id, g string, _ map[string]string) bool { return allowed[g] }},
		}
		for name, f := range filters {
			for _, tp := range topics {
				got, err := ix.Search(Query{Text: tp.text, K: 20, Filter: f})
				if err != nil {
					t.Fatal(err)
				}
				var want []Result
				for _, r := range full[tp.id] {
					if allowed[r.ID] && len(want) < 20 {
						want = append(want, r)
					}
				}
				sameResults(t, fmt.Sprintf("%d%% %s topic %s", share, name, tp.id), got, want)
			}
		}
	}
	// A filter that allows nothing returns nothing.
	got, err := ix.Search(Query{Text: topics[0].text, Filter: &Filter{Groups: map[string]bool{}}})
	if err != nil || len(got) != 0 {
		t.Fatalf("empty Groups: %v %v", got, err)
	}
}

// TestMultiField checks weighted multi-field scoring: a doc's score is the
// sum over fields of per-field BM25 with boost = field weight, each field
// with its own statistics; per-query weights override the defaults.
func TestMultiField(t *testing.T) {
	docs := readCACM(t)
	topics := readTopics(t)
	// Title: the first non-empty line; body: the rest.
	split := func(text string) (string, string) {
		for i := 0; i < len(text); i++ {
			if text[i] > ' ' {
				j := i
				for j < len(text) && text[j] != '\n' {
					j++
				}
				return text[i:j], text[j:]
			}
		}
		return "", text
	}
	build := func(fields []Field, only string) *Index {
		ix, err := New(Options{K1: 0.9, B: 0.4, Analyzer: "english", Fields: fields})
		if err != nil {
			t.Fatal(err)
		}
		var b Batch
		for _, d := range docs {
			title, body := split(d.text)
			f := map[string]string{"title": title, "body": body}
			if only != "" {
				f = map[string]string{only: f[only]}
			}
			b.Replace(d.id, []Doc{{ID: d.id, Fields: f}})
		}
		if err := ix.Apply(&b); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	multi := build([]Field{{"title", 2}, {"body", 1}}, "")
	titleOnly := build([]Field{{"title", 2}}, "title")
	bodyOnly := build([]Field{{"body", 1}}, "body")
	st := multi.Stats()
	if st.Fields["title"].Tokens+st.Fields["body"].Tokens != 320968 {
		t.Errorf("title+body tokens = %d, want CACM's 320968", st.Fields["title"].Tokens+st.Fields["body"].Tokens)
	}
	all := func(ix *Index, q Query) map[string]float64 {
		q.K = len(docs)
		res, err := ix.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]float64{}
		for _, r := range res {
			m[r.ID] = r.Score
		}
		return m
	}
	for _, tp := range topics[:20] {
		m := all(multi, Query{Text: tp.text})
		ts := all(titleOnly, Query{Text: tp.text})
		bs := all(bodyOnly, Query{Text: tp.text})
		for id, s := range m {
			want := ts[id] + bs[id]
			if math.Abs(s-want) > 1e-5*want {
				t.Fatalf("topic %s doc %s: multi-field score %v, title %v + body %v = %v", tp.id, id, s, ts[id], bs[id], want)
			}
		}
		for id := range ts {
			if _, ok := m[id]; !ok {
				t.Fatalf("topic %s: doc %s matches the title but not the multi-field index", tp.id, id)
			}
		}
		// Per-query weights: body only, weight 1, is exactly the body index.
		got, _ := multi.Search(Query{Text: tp.text, K: 50, Fields: map[string]float64{"body": 1}})
		want, _ := bodyOnly.Search(Query{Text: tp.text, K: 50})
		sameResults(t, "Fields{body:1} topic "+tp.id, got, want)
	}
	// The title weight matters: with weight 2 a title match outranks more.
	ts1 := build([]Field{{"title", 1}}, "title")
	r1, _ := ts1.Search(Query{Text: topics[0].text, K: 1})
	r2, _ := titleOnly.Search(Query{Text: topics[0].text, K: 1})
	if len(r1) == 1 && len(r2) == 1 && math.Abs(r2[0].Score-2*r1[0].Score) > 1e-5*r2[0].Score {
		t.Errorf("title weight 2 score %v, weight 1 score %v: not doubled", r2[0].Score, r1[0].Score)
	}
	if _, err := multi.Search(Query{Text: "x", Fields: map[string]float64{"nope": 1}}); err == nil {
		t.Error("unknown query field accepted")
	}
	if _, err := multi.Search(Query{Text: "x", Fields: map[string]float64{"body": math.NaN()}}); err == nil {
		t.Error("NaN field weight accepted")
	}
}

type xqPara struct{ id, text string }
type xqQuestion struct{ text string }

func readXQuAD(t *testing.T, lang string) ([]xqPara, []xqQuestion) {
	t.Helper()
	path := sharedData(t, "xquad/xquad."+lang+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Data []struct {
			Title      string `json:"title"`
			Paragraphs []struct {
				Context string `json:"context"`
				QAs     []struct {
					Question string `json:"question"`
				} `json:"qas"`
			} `json:"paragraphs"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var ps []xqPara
	var qs []xqQuestion
	for _, a := range v.Data {
		for i, p := range a.Paragraphs {
			ps = append(ps, xqPara{fmt.Sprintf("%s-%s-%d", lang, a.Title, i), p.Context})
			for _, q := range p.QAs {
				qs = append(qs, xqQuestion{q.Question})
			}
		}
	}
	return ps, qs
}

// TestMixedLanguages indexes English and German XQuAD paragraphs together,
// each with its language's analyzer. Each language is a partition with its
// own statistics, so the mixed index must rank exactly like the two
// single-language indexes merged; Query.Lang restricts to one partition.
func TestMixedLanguages(t *testing.T) {
	en, enQ := readXQuAD(t, "en")
	de, deQ := readXQuAD(t, "de")
	build := func(sets ...[]xqPara) *Index {
		ix, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b Batch
		for _, set := range sets {
			for _, p := range set {
				b.Replace(p.id, []Doc{{ID: p.id, Lang: p.id[:2], Fields: map[string]string{"text": p.text}}})
			}
		}
		if err := ix.Apply(&b); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	mixed, enOnly, deOnly := build(en, de), build(en), build(de)
	st := mixed.Stats()
	if len(st.Partitions) != 2 || st.Partitions["text.english"].Docs != len(en) || st.Partitions["text.german"].Docs != len(de) {
		t.Fatalf("partitions %+v", st.Partitions)
	}
	var queries []string
	for i := 0; i < len(enQ); i += 25 {
		queries = append(queries, enQ[i].text, deQ[i].text)
	}
	for _, q := range queries {
		got, err := mixed.Search(Query{Text: q, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := enOnly.Search(Query{Text: q, K: 10})
		b, _ := deOnly.Search(Query{Text: q, K: 10})
		want := append(a, b...)
		sort.Slice(want, func(i, j int) bool {
			if want[i].Score != want[j].Score {
				return want[i].Score > want[j].Score
			}
			return want[i].ID < want[j].ID
		})
		sameResults(t, "mixed "+q, got, want[:min(10, len(want))])
		got, _ = mixed.Search(Query{Text: q, K: 10, Lang: "de"})
		sameResults(t, "Lang=de "+q, got, b)
	}
	// A German question finds its German paragraph through German stemming:
	// "Verteidigung" matches "Verteidigungen" only after stemming.
	r, _ := mixed.Search(Query{Text: "Wie viele Punkte gab die Verteidigung der Panthers ab?", K: 1})
	if len(r) != 1 || r[0].ID[:2] != "de" {
		t.Errorf("German question: %v", r)
	}
}
